package dynamotest

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// DynamoDB Local does not price a transaction as AWS bills it: it reports
// twice the units of the transaction's largest item, for the table and
// for each index alike (four one-item puts: 2 units; AWS bills 8). The
// counter prices a transaction itself from the items it touches, read
// before and after the call through a client without the counter:
//   - each Put, Update and Delete: two write units per KB (rounded up) of
//     the larger of the item before and after, on the table;
//   - each ConditionCheck: two read units per 4 KB of the item checked;
//   - each index the item is in, before or after: a standard write per KB
//     of the index entry (the table's keys, the index's keys, the projected
//     attributes and 100 bytes), two when the entry moves to another index
//     key (a delete and a put), none when the entry does not change.

// txPricer prices transactions; shapes caches each table's keys and
// indexes (DescribeTable).
type txPricer struct {
	lookup *dynamodb.Client
	mu     sync.Mutex
	shapes map[string]tableShape
}

// tableShape is what pricing needs of a table: its key attributes and its
// global indexes.
type tableShape struct {
	keys    []string
	indexes map[string]indexShape
}

// indexShape is one global index: its key attributes and what it
// projects (all, or the keys and include; include is nil for KEYS_ONLY).
type indexShape struct {
	keys    []string
	all     bool
	include map[string]bool
}

func (p *txPricer) shape(ctx context.Context, table string) (tableShape, error) {
	p.mu.Lock()
	s, ok := p.shapes[table]
	p.mu.Unlock()
	if ok {
		return s, nil
	}
	out, err := p.lookup.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return tableShape{}, err
	}
	s = tableShape{keys: keyNames(out.Table.KeySchema), indexes: map[string]indexShape{}}
	for _, gsi := range out.Table.GlobalSecondaryIndexes {
		ix := indexShape{keys: keyNames(gsi.KeySchema)}
		if pr := gsi.Projection; pr != nil {
			switch pr.ProjectionType {
			case types.ProjectionTypeAll:
				ix.all = true
			case types.ProjectionTypeInclude:
				ix.include = map[string]bool{}
				for _, a := range pr.NonKeyAttributes {
					ix.include[a] = true
				}
			}
		}
		s.indexes[aws.ToString(gsi.IndexName)] = ix
	}
	p.mu.Lock()
	if p.shapes == nil {
		p.shapes = map[string]tableShape{}
	}
	p.shapes[table] = s
	p.mu.Unlock()
	return s, nil
}

func keyNames(schema []types.KeySchemaElement) []string {
	var out []string
	for _, k := range schema {
		out = append(out, aws.ToString(k.AttributeName))
	}
	return out
}

// txTarget is one action of a transaction: the item it names.
type txTarget struct {
	table  string
	key    map[string]types.AttributeValue
	check  bool
	before map[string]types.AttributeValue
}

// txBill is what a transaction costs: read and write units, and the
// write units by place ("<table>", "<table>/<index>").
type txBill struct {
	read, write float64
	places      map[string]float64
}

// before reads the items a TransactWriteItems input names, as they are
// before the call.
func (p *txPricer) before(ctx context.Context, in *dynamodb.TransactWriteItemsInput) ([]txTarget, error) {
	var out []txTarget
	for _, it := range in.TransactItems {
		var t txTarget
		switch {
		case it.Put != nil:
			s, err := p.shape(ctx, aws.ToString(it.Put.TableName))
			if err != nil {
				return nil, err
			}
			t = txTarget{table: aws.ToString(it.Put.TableName), key: pick(it.Put.Item, s.keys)}
		case it.Update != nil:
			t = txTarget{table: aws.ToString(it.Update.TableName), key: it.Update.Key}
		case it.Delete != nil:
			t = txTarget{table: aws.ToString(it.Delete.TableName), key: it.Delete.Key}
		case it.ConditionCheck != nil:
			t = txTarget{table: aws.ToString(it.ConditionCheck.TableName), key: it.ConditionCheck.Key, check: true}
		default:
			return nil, fmt.Errorf("dynamotest: a transaction action of no known kind")
		}
		item, err := p.read(ctx, t.table, t.key)
		if err != nil {
			return nil, err
		}
		t.before = item
		out = append(out, t)
	}
	return out, nil
}

func (p *txPricer) read(ctx context.Context, table string, key map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	out, err := p.lookup.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, err
	}
	return out.Item, nil
}

// bill prices a committed transaction from its targets' items before and
// as they are now.
func (p *txPricer) bill(ctx context.Context, targets []txTarget) (txBill, error) {
	b := txBill{places: map[string]float64{}}
	for _, t := range targets {
		if t.check {
			b.read += 2 * units(ItemSize(t.before), 4096)
			continue
		}
		after, err := p.read(ctx, t.table, t.key)
		if err != nil {
			return txBill{}, err
		}
		s, err := p.shape(ctx, t.table)
		if err != nil {
			return txBill{}, err
		}
		table := 2 * units(max(ItemSize(t.before), ItemSize(after)), 1024)
		b.write += table
		b.places[t.table] += table
		for name, ix := range s.indexes {
			if u := ix.writeUnits(s.keys, t.before, after); u > 0 {
				b.write += u
				b.places[t.table+"/"+name] += u
			}
		}
	}
	return b, nil
}

// writeUnits is what an item's change from before to after (either nil
// when there is no item) writes to the index.
func (ix indexShape) writeUnits(tableKeys []string, before, after map[string]types.AttributeValue) float64 {
	old, cur := ix.entry(tableKeys, before), ix.entry(tableKeys, after)
	switch {
	case old == nil && cur == nil:
		return 0
	case old == nil:
		return units(entrySize(cur), 1024)
	case cur == nil:
		return units(entrySize(old), 1024)
	case !reflect.DeepEqual(pick(old, ix.keys), pick(cur, ix.keys)):
		return units(entrySize(old), 1024) + units(entrySize(cur), 1024)
	case reflect.DeepEqual(old, cur):
		return 0
	}
	return units(max(entrySize(old), entrySize(cur)), 1024)
}

// entry is the item's entry in the index (nil when the item lacks one of
// the index's keys: a sparse index leaves it out).
func (ix indexShape) entry(tableKeys []string, item map[string]types.AttributeValue) map[string]types.AttributeValue {
	if item == nil {
		return nil
	}
	for _, k := range ix.keys {
		if _, ok := item[k]; !ok {
			return nil
		}
	}
	if ix.all {
		return item
	}
	out := pick(item, append(append([]string{}, tableKeys...), ix.keys...))
	for name := range ix.include {
		if v, ok := item[name]; ok {
			out[name] = v
		}
	}
	return out
}

// indexEntryOverhead is what DynamoDB adds to each index entry's size.
const indexEntryOverhead = 100

func entrySize(entry map[string]types.AttributeValue) int {
	return ItemSize(entry) + indexEntryOverhead
}

func pick(item map[string]types.AttributeValue, names []string) map[string]types.AttributeValue {
	out := map[string]types.AttributeValue{}
	for _, n := range names {
		if v, ok := item[n]; ok {
			out[n] = v
		}
	}
	return out
}

// units is size in units of per bytes, rounded up, at least one.
func units(size, per int) float64 {
	return max(1, math.Ceil(float64(size)/float64(per)))
}
