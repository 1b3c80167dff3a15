package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/api"
	"github.com/botix/public-api/internal/awslimits"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
)

// itemOf is an item of the data table of exactly size bytes as DynamoDB
// counts them (UTF-8 lengths of attribute names and string values):
// "pk" and "sk" with n's digits, and "b" holding the rest.
func itemOf(n, size int) map[string]types.AttributeValue {
	pk, sk := "L", fmt.Sprintf("%06d", n)
	pad := size - (len("pk") + len(pk)) - (len("sk") + len(sk)) - len("b")
	return map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk},
		"sk": &types.AttributeValueMemberS{Value: sk},
		"b":  &types.AttributeValueMemberS{Value: strings.Repeat("x", pad)},
	}
}

func validationError(err error) bool {
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "ValidationException"
}

// TestDynamoDBLimitsAtTheEdge: DynamoDB Local takes what is exactly at
// each of DynamoDB's bounds the stack meets and refuses one more (byte,
// action) with ValidationException, as DynamoDB does.
func TestDynamoDBLimitsAtTheEdge(t *testing.T) {
	ctx := context.Background()
	s := dynamotest.Store(t)
	db, table := s.DB, s.Tables.Data
	putItem := func(size int) func() error {
		return func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: itemOf(0, size)})
			return err
		}
	}
	transact := func(n, size int) func() error {
		return func() error {
			items := make([]types.TransactWriteItem, n)
			for i := range items {
				items[i] = types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: itemOf(1000+i, size)}}
			}
			_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
			return err
		}
	}
	batchWrite := func(n int) func() error {
		return func() error {
			reqs := make([]types.WriteRequest, n)
			for i := range reqs {
				reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: itemOf(2000+i, 100)}}
			}
			_, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: reqs}})
			return err
		}
	}
	// 4 MB of items: ten of 400 KB and the rest.
	transactBytes := func(extra int) func() error {
		return func() error {
			items := make([]types.TransactWriteItem, 11)
			for i := range items {
				size := awslimits.DynamoDBItemBytes
				if i == 10 {
					size = awslimits.DynamoDBTransactBytes - 10*awslimits.DynamoDBItemBytes + extra
				}
				items[i] = types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: itemOf(4000+i, size)}}
			}
			_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
			return err
		}
	}
	for _, tc := range []struct {
		name    string
		call    func() error
		refused bool
	}{
		{"a transaction of exactly 4 MB commits", transactBytes(0), false},
		{"one byte more → ValidationException", transactBytes(1), true},
		{"an item of exactly 400 KB is stored", putItem(awslimits.DynamoDBItemBytes), false},
		{"one byte more → ValidationException", putItem(awslimits.DynamoDBItemBytes + 1), true},
		{"a transaction of exactly 100 actions commits", transact(awslimits.DynamoDBTransactItems, 100), false},
		{"101 → ValidationException", transact(awslimits.DynamoDBTransactItems+1, 100), true},
		{"a BatchWriteItem of exactly 25 puts is taken", batchWrite(awslimits.DynamoDBBatchWriteItems), false},
		{"26 → ValidationException", batchWrite(awslimits.DynamoDBBatchWriteItems + 1), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if tc.refused != validationError(err) || (!tc.refused && err != nil) {
				t.Fatalf("%v; want refused: %v", err, tc.refused)
			}
		})
	}

	t.Run("a Query stops at 1 MB with a LastEvaluatedKey", func(t *testing.T) {
		const n, size = 12, 100 << 10 // 1.2 MB in one partition
		for i := range n {
			if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: itemOf(3000+i, size)}); err != nil {
				t.Fatal(err)
			}
		}
		out, err := db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :pk AND sk >= :from"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "L"}, ":from": &types.AttributeValueMemberS{Value: "003000"}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(out.Items); got*size > awslimits.DynamoDBQueryPageBytes+size || out.LastEvaluatedKey == nil || got == n {
			t.Fatalf("one Query read %d items of %d bytes (LastEvaluatedKey %v); want about 1 MB and a key to go on", got, size, out.LastEvaluatedKey)
		}
	})
}

// The largest catalog import the API takes — up to MaxImportItems items
// whose names are MaxNameLength characters that Go's JSON escapes ("<",
// ">", "&", U+2028 become six bytes each), within api.MaxImportBody as
// a client may send it (nothing escaped but quotes and backslashes) — is
// stored as one item, under DynamoDB's 400 KB.
func TestTheLargestImportFitsOneItem(t *testing.T) {
	ctx := context.Background()
	s := dynamotest.Store(t)
	for _, name := range []struct{ what, unit string }{
		{"HTML characters", "<"},
		{"line separators", "\u2028"},
		{"quotes", `"`},
		{"backslashes", `\`},
		{"Cyrillic", "ж"},
		{"four-byte characters", "😀"},
	} {
		t.Run(name.what, func(t *testing.T) {
			// Letters at both ends: a name of separators alone is blank.
			n := "a" + strings.Repeat(name.unit, domain.MaxNameLength-2) + "a"
			sent := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(n)
			var items []string
			for i := range domain.MaxImportItems {
				item := fmt.Sprintf(`{"sku":"S%04d","name":"%s","price":1}`, i, sent)
				if len(`{"items":[`)+len(strings.Join(append(items, item), ","))+len(`]}`) > api.MaxImportBody {
					break
				}
				items = append(items, item)
			}
			body := `{"items":[` + strings.Join(items, ",") + `]}`
			var in domain.ImportInput
			if err := json.Unmarshal([]byte(body), &in); err != nil {
				t.Fatal(err)
			}
			if err := in.Validate().Err(); err != nil || *in.Items[0].Name != n {
				t.Fatalf("the API would not take it: %v", err)
			}
			imp := domain.CatalogImport{ID: ids.New(ids.Import, time.Now()), Status: store.ImportAccepted, ItemsCount: len(in.Items), CreatedAt: ids.Timestamp(time.Now())}
			var p store.Plan
			if err := s.AddImport(&p, "prj_limits", imp, in.CatalogItems()); err != nil {
				t.Fatal(err)
			}
			if err := s.Commit(ctx, p); err != nil {
				t.Fatalf("an import of %d items (a %d-byte body) is not stored: %v", len(in.Items), len(body), err)
			}
		})
	}
}

// A list page whose items together pass DynamoDB's 1 MB page — an
// inspector's captured requests, each keeping InspectorMaxBody of body —
// is read whole: the store follows LastEvaluatedKey within one page.
func TestAListPageReadsPastDynamoDBsPage(t *testing.T) {
	ctx := context.Background()
	s := dynamotest.Store(t)
	in := &store.Inspector{ID: ids.NewInspector()}
	var p store.Plan
	if err := s.AddInspector(&p, "prj_limits", in, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, p); err != nil {
		t.Fatal(err)
	}
	n := awslimits.DynamoDBQueryPageBytes/store.InspectorMaxBody + 4
	for range n {
		req := store.CapturedRequest{Method: "POST", Path: "/", Headers: map[string]string{}, Body: strings.Repeat("x", store.InspectorMaxBody)}
		if err := s.Capture(ctx, in.ID, req); err != nil {
			t.Fatal(err)
		}
	}
	page, err := store.ReadPage(ctx, s, store.InspectorRequestsQuery(in.ID), nil, n)
	if err != nil || len(page.Items) != n || page.HasMore {
		t.Fatalf("a page of %d requests of %d bytes: %d read, more: %v (%v)", n, store.InspectorMaxBody, len(page.Items), page.HasMore, err)
	}
}

// The largest transaction the API commits — a contact with MaxContactTags
// tags (an index item each) and its event, plus the idempotency record's
// completion the mutation runner adds — is well within DynamoDB's 100
// actions, and commits.
func TestTheLargestPlanFitsOneTransaction(t *testing.T) {
	ctx := context.Background()
	s := dynamotest.Store(t)
	c := domain.Contact{ID: ids.New(ids.Contact, time.Now()), Phone: "+79990000000", Name: strings.Repeat("😀", domain.MaxNameLength), CreatedAt: ids.Timestamp(time.Now())}
	for i := range domain.MaxContactTags {
		c.Tags = append(c.Tags, fmt.Sprintf("%0*d", domain.MaxTagLength, i))
	}
	var p store.Plan
	if err := s.AddContact(&p, "prj_limits", c); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(c)
	if err := s.AddEvent(&p, store.NewEvent("prj_limits", domain.EventContactCreated, data, time.Now()), ""); err != nil {
		t.Fatal(err)
	}
	const guard = 1
	if n := len(p.Items) + guard; n > awslimits.DynamoDBTransactItems {
		t.Fatalf("%d actions, past DynamoDB's %d", n, awslimits.DynamoDBTransactItems)
	}
	if err := s.Commit(ctx, p); err != nil {
		t.Fatal(err)
	}
}
