package store

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/apierr"
)

// ReadBudget is the most items one list request lets DynamoDB evaluate
// when a filter that DynamoDB cannot express as a key condition drops
// items. Past it, the request returns what it found with a cursor that
// resumes after the last evaluated item.
const ReadBudget = 2000

// Query is one list query: newest first over a partition of the table or
// of an index, optionally within a sort key range and filtered.
type Query struct {
	// table selects the table: the data table unless onDeliveries.
	table int
	// Index is "" for the table, or a GSI name.
	Index string
	// PartitionAttr and Partition select the partition.
	PartitionAttr, Partition string
	// SortAttr names the sort key; From and To, when set, bound it
	// (inclusive).
	SortAttr, From, To string
	// Filter is a FilterExpression over Names and Values ("" for none).
	Filter string
	Names  map[string]string
	Values map[string]types.AttributeValue
}

// keyAttrs are the attributes of the query's paging keys: the table's key,
// plus the index's key on a GSI.
func (q Query) keyAttrs() []string {
	if q.Index == "" {
		return []string{attrPK, attrSK}
	}
	return []string{attrPK, attrSK, q.PartitionAttr, q.SortAttr}
}

// Tables a Query can read.
const (
	onData = iota
	onDeliveries
)

func (s *Store) tableOf(q Query) string {
	if q.table == onDeliveries {
		return s.Tables.Deliveries
	}
	return s.Tables.Data
}

// empty reports a sort key range that holds nothing (from past to), which
// DynamoDB would reject as an invalid BETWEEN.
func (q Query) empty() bool { return q.From != "" && q.To != "" && q.From > q.To }

func (q Query) input(start map[string]types.AttributeValue, limit int32) *dynamodb.QueryInput {
	names := map[string]string{"#pk": q.PartitionAttr}
	values := map[string]types.AttributeValue{":pk": str(q.Partition)}
	cond := "#pk = :pk"
	if q.From != "" || q.To != "" {
		from, to := q.From, q.To
		if from == "" {
			from = "0"
		}
		if to == "" {
			to = "~"
		}
		names["#sk"] = q.SortAttr
		values[":from"], values[":to"] = str(from), str(to)
		cond += " AND #sk BETWEEN :from AND :to"
	}
	for k, v := range q.Names {
		names[k] = v
	}
	for k, v := range q.Values {
		values[k] = v
	}
	in := &dynamodb.QueryInput{
		KeyConditionExpression:    aws.String(cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ScanIndexForward:          aws.Bool(false),
		ExclusiveStartKey:         start,
		Limit:                     aws.Int32(limit),
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	}
	if q.Index != "" {
		in.IndexName = aws.String(q.Index)
	}
	if q.Filter != "" {
		in.FilterExpression = aws.String(q.Filter)
	}
	return in
}

// List is a list query whose items read as T.
type List[T any] struct {
	Query
	decode func(map[string]types.AttributeValue) (T, error)
}

// listOf is the list of q's items, stored as I and read as T.
func listOf[I, T any](q Query, read func(I) T) List[T] {
	return List[T]{Query: q, decode: func(av map[string]types.AttributeValue) (T, error) {
		var it I
		if err := attributevalue.UnmarshalMap(av, &it); err != nil {
			var zero T
			return zero, err
		}
		return read(it), nil
	}}
}

// Page is one page of a list.
type Page[T any] struct {
	Items []T
	// Next is where the next page starts; nil when HasMore is false.
	Next map[string]string
	// HasMore is false exactly when the walk is complete. Without a filter
	// it is also exact the other way: true means at least one more item
	// exists. With a filter, a page cut short by ReadBudget says true
	// because unevaluated items remain, which may not match.
	HasMore bool
}

// ReadPage reads up to limit items of l after start (nil: from the top).
func ReadPage[T any](ctx context.Context, s *Store, l List[T], start map[string]string, limit int) (Page[T], error) {
	raw, err := s.queryPage(ctx, l.Query, start, limit)
	if err != nil {
		return Page[T]{}, err
	}
	page := Page[T]{Items: make([]T, 0, len(raw.Items)), Next: raw.Next, HasMore: raw.HasMore}
	for _, av := range raw.Items {
		it, err := l.decode(av)
		if err != nil {
			return Page[T]{}, err
		}
		page.Items = append(page.Items, it)
	}
	return page, nil
}

// queryPage reads up to limit items after start. It fetches limit+1 (and
// keeps reading past DynamoDB's 1 MB pages and filtered-out items) so that
// HasMore is exact; without a filter a page that fills from the first read
// costs exactly one Query.
func (s *Store) queryPage(ctx context.Context, q Query, start map[string]string, limit int) (Page[map[string]types.AttributeValue], error) {
	exclusive, err := s.startKey(q, start)
	if err != nil || q.empty() {
		return Page[map[string]types.AttributeValue]{}, err
	}
	var items []map[string]types.AttributeValue
	budget, scale := ReadBudget, 2
	for {
		need := limit + 1 - len(items)
		n := need
		if q.Filter != "" {
			n = min(budget, max(need*scale, 25))
			scale *= 2
		}
		in := q.input(exclusive, int32(n))
		in.TableName = aws.String(s.tableOf(q))
		out, err := s.DB.Query(ctx, in)
		if err != nil {
			return Page[map[string]types.AttributeValue]{}, classify(err)
		}
		budget -= int(out.ScannedCount)
		for _, it := range out.Items {
			if len(items) == limit {
				return Page[map[string]types.AttributeValue]{Items: items, Next: q.position(items[limit-1]), HasMore: true}, nil
			}
			items = append(items, it)
		}
		if out.LastEvaluatedKey == nil {
			return Page[map[string]types.AttributeValue]{Items: items}, nil
		}
		exclusive = out.LastEvaluatedKey
		if q.Filter != "" && budget <= 0 {
			return Page[map[string]types.AttributeValue]{Items: items, Next: stringKey(exclusive), HasMore: true}, nil
		}
	}
}

// each calls fn with every item of a query, following DynamoDB's pages.
func (s *Store) each(ctx context.Context, in *dynamodb.QueryInput, fn func(map[string]types.AttributeValue) error) error {
	for {
		res, err := s.DB.Query(ctx, in)
		if err != nil {
			return classify(err)
		}
		for _, item := range res.Items {
			if err := fn(item); err != nil {
				return err
			}
		}
		if res.LastEvaluatedKey == nil {
			return nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// SkipOffset walks past offset items the way offset pagination must: it
// reads (and pays for) every skipped item, using Select=COUNT so that
// nothing is transferred. It returns where the page after them starts
// (nil with end=true past the last item). It gives up with
// OFFSET_TOO_LARGE when skipping takes longer than budget or than the
// request has left (minus a second to answer), so offset mode never times
// out a Lambda.
func (s *Store) SkipOffset(ctx context.Context, q Query, offset int, budget time.Duration) (start map[string]string, end bool, err error) {
	if q.empty() {
		return nil, true, nil
	}
	var exclusive map[string]types.AttributeValue
	giveUp := time.Now().Add(budget)
	if d, ok := ctx.Deadline(); ok && d.Add(-time.Second).Before(giveUp) {
		giveUp = d.Add(-time.Second)
	}
	for remaining := offset; remaining > 0; {
		if time.Now().After(giveUp) {
			return nil, false, apierr.New(apierr.OffsetTooLarge, "offset %d could not be reached within the time budget of offset pagination; use cursor pagination (cursor, cursor_limit) to walk this list", offset)
		}
		in := q.input(exclusive, int32(remaining))
		in.TableName = aws.String(s.tableOf(q))
		in.Select = types.SelectCount
		out, err := s.DB.Query(ctx, in)
		if err != nil {
			return nil, false, classify(err)
		}
		remaining -= int(out.Count)
		if out.LastEvaluatedKey == nil {
			return nil, true, nil
		}
		exclusive = out.LastEvaluatedKey
	}
	if exclusive == nil {
		return nil, false, nil // offset 0: the first page
	}
	return stringKey(exclusive), false, nil
}

// startKey checks a cursor position against the query (right attributes,
// this partition) and turns it into an ExclusiveStartKey.
func (s *Store) startKey(q Query, start map[string]string) (map[string]types.AttributeValue, error) {
	if start == nil {
		return nil, nil
	}
	attrs := q.keyAttrs()
	if len(start) != len(attrs) || start[q.PartitionAttr] != q.Partition {
		return nil, apierr.New(apierr.InvalidCursor, "the cursor does not belong to this list")
	}
	for _, a := range attrs {
		if _, ok := start[a]; !ok {
			return nil, apierr.New(apierr.InvalidCursor, "the cursor does not belong to this list")
		}
	}
	return keyAV(start), nil
}

// position is the paging key of an item: where a page ending with it
// resumes.
func (q Query) position(item map[string]types.AttributeValue) map[string]string {
	out := map[string]string{}
	for _, a := range q.keyAttrs() {
		if v, ok := item[a].(*types.AttributeValueMemberS); ok {
			out[a] = v.Value
		}
	}
	return out
}

func stringKey(k map[string]types.AttributeValue) map[string]string {
	out := make(map[string]string, len(k))
	for n, v := range k {
		if s, ok := v.(*types.AttributeValueMemberS); ok {
			out[n] = s.Value
		}
	}
	return out
}
