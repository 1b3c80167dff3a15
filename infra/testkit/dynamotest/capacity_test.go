package dynamotest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/infra/testkit/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// The units DynamoDB Local reports for each kind of call are those the
// on-demand price list bills (items under 1 KB here).
func TestCapacityCountsBilledRequestUnits(t *testing.T) {
	ctx := context.Background()
	c := dynamotest.NewCapacity(dynamotest.Client(t))
	db := dynamotest.Client(t, c.Option())
	table := dynamotest.Tables(t).Data
	item := func(pk string, indexed bool) map[string]types.AttributeValue {
		it := map[string]types.AttributeValue{"pk": s(pk), "sk": s("x")}
		if indexed {
			it["gsi1pk"], it["gsi1sk"] = s("g"), s(pk)
		}
		return it
	}
	put := func(pk string, indexed bool) *types.Put {
		return &types.Put{TableName: aws.String(table), Item: item(pk, indexed)}
	}
	key := map[string]types.AttributeValue{"pk": s("a"), "sk": s("x")}
	transact := func(items ...types.TransactWriteItem) error {
		_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		return err
	}
	update := func(pk, expression, value string) *types.Update {
		return &types.Update{TableName: aws.String(table), Key: map[string]types.AttributeValue{"pk": s(pk), "sk": s("x")},
			UpdateExpression: aws.String(expression), ExpressionAttributeValues: map[string]types.AttributeValue{":v": s(value)}}
	}
	cases := []struct {
		name        string
		call        func() error
		read, write float64
		rejected    int
	}{
		{"a put of a small item is one write unit", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item("a", false)})
			return err
		}, 0, 1, 0},
		{"a put that also writes a global index is one more unit", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item("b", true)})
			return err
		}, 0, 2, 0},
		{"an eventually consistent get is half a read unit", func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key})
			return err
		}, 0.5, 0, 0},
		{"a strongly consistent get is one read unit", func() error {
			_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
			return err
		}, 1, 0, 0},
		{"a transaction bills two units per item written", func() error {
			return transact(types.TransactWriteItem{Put: put("c", false)}, types.TransactWriteItem{Put: put("d", false)})
		}, 0, 4, 0},
		{"a transaction doubles the table's units, not its index's", func() error {
			return transact(types.TransactWriteItem{Put: put("e", true)}, types.TransactWriteItem{Put: put("f", true)})
		}, 0, 6, 0},
		{"a transaction bills each item, not its largest twice (DynamoDB Local reports 2 for 4 items)", func() error {
			return transact(types.TransactWriteItem{Put: put("g", false)}, types.TransactWriteItem{Put: put("h", false)},
				types.TransactWriteItem{Put: put("i", false)}, types.TransactWriteItem{Put: put("j", false)})
		}, 0, 8, 0},
		{"a transaction bills each started KB of an item twice", func() error {
			big := item("k", false)
			big["pad"] = s(strings.Repeat("x", 1500))
			return transact(types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: big}}, types.TransactWriteItem{Put: put("l", false)})
		}, 0, 6, 0},
		{"a transaction's update that moves the item to another index key deletes and puts the index entry", func() error {
			return transact(types.TransactWriteItem{Update: update("e", "SET gsi1pk = :v", "moved")})
		}, 0, 4, 0},
		{"a transaction's update of an item in no index writes the table alone", func() error {
			return transact(types.TransactWriteItem{Update: update("c", "SET n = :v", "1")})
		}, 0, 2, 0},
		{"a transaction's condition check is two read units", func() error {
			return transact(types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: key, ConditionExpression: aws.String("attribute_exists(pk)")}},
				types.TransactWriteItem{Put: put("m", false)})
		}, 2, 2, 0},
		{"a rejected conditional write is billed one write unit", func() error {
			_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item("a", false), ConditionExpression: aws.String("attribute_not_exists(pk)")})
			if err == nil {
				t.Error("the conditional put succeeded")
			}
			return nil
		}, 0, 1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c.Reset()
			if err := tc.call(); err != nil {
				t.Fatal(err)
			}
			read, write := c.Units()
			if read != tc.read || write != tc.write || c.Rejected() != tc.rejected {
				t.Errorf("read %v, write %v, rejected %d; want %v, %v, %d", read, write, c.Rejected(), tc.read, tc.write, tc.rejected)
			}
		})
	}
}

// The caller's input is not changed: the counter asks a copy.
func TestCapacityLeavesTheCallersInputAlone(t *testing.T) {
	c := dynamotest.NewCapacity(dynamotest.Client(t))
	db := dynamotest.Client(t, c.Option())
	in := &dynamodb.GetItemInput{TableName: aws.String(dynamotest.Tables(t).Data), Key: map[string]types.AttributeValue{"pk": s("a"), "sk": s("x")}}
	if _, err := db.GetItem(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	if in.ReturnConsumedCapacity != "" {
		t.Errorf("the input now asks for %q", in.ReturnConsumedCapacity)
	}
}
