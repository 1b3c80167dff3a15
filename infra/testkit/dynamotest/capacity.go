package dynamotest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// Capacity sums the request units a client's calls consume, as DynamoDB
// bills a PAY_PER_REQUEST table: it asks every call for its consumed
// capacity (ReturnConsumedCapacity INDEXES: the table's units and its
// indexes') and adds the answers, reads and writes apart. Only the
// response changes; what the call does stays the same.
// DynamoDB Local misprices a write transaction, so Capacity prices it
// from the items it touches (see txPricer): a counter made by NewCapacity
// reads them through a client without the counter. Index updates,
// asynchronous, are standard writes.
//
// A conditional write that DynamoDB rejects answers no capacity but is
// billed all the same, for the existing item's size and at least one
// unit: each is counted as one write unit, the minimum, and in Rejected.
type Capacity struct {
	mu          sync.Mutex
	read, write float64
	rejected    int
	byOp        map[string]float64
	// byPlace holds the write units by where they were spent: "<table>"
	// or "<table>/<index>".
	byPlace map[string]float64
	tx      *txPricer
}

// NewCapacity returns a counter that prices write transactions from the
// items they touch, read through lookup (a client of the same DynamoDB
// without the counter). The zero Capacity refuses them.
func NewCapacity(lookup *dynamodb.Client) *Capacity {
	return &Capacity{tx: &txPricer{lookup: lookup}}
}

// Option installs the counter on a DynamoDB client.
func (c *Capacity) Option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc("dynamotest.capacity", c.handle), middleware.Before)
		})
	}
}

func (c *Capacity) handle(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	params, ok := askCapacity(in.Parameters)
	if !ok {
		return next.HandleInitialize(ctx, in)
	}
	in.Parameters = params
	op := awsmiddleware.GetOperationName(ctx)
	if tx, ok := params.(*dynamodb.TransactWriteItemsInput); ok {
		return c.transaction(ctx, tx, in, next)
	}
	out, md, err := next.HandleInitialize(ctx, in)
	units, table := consumedUnits(out.Result)
	if transactions[op] {
		units += table
	}
	places := consumedPlaces(out.Result)
	var conditional *types.ConditionalCheckFailedException
	if errors.As(err, &conditional) {
		c.mu.Lock()
		c.rejected++
		c.mu.Unlock()
		units = 1
	}
	if writes[op] {
		c.add(op, 0, units, places)
	} else {
		c.add(op, units, 0, nil)
	}
	return out, md, err
}

// add counts an operation's read and write units, and its write units by
// place.
func (c *Capacity) add(op string, read, write float64, places map[string]float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byOp == nil {
		c.byOp, c.byPlace = map[string]float64{}, map[string]float64{}
	}
	c.read += read
	c.write += write
	c.byOp[op] += read + write
	for place, u := range places {
		c.byPlace[place] += u
	}
}

// transaction runs a TransactWriteItems call and counts what AWS bills for
// it (a cancelled transaction is counted as DynamoDB Local reports it).
func (c *Capacity) transaction(ctx context.Context, tx *dynamodb.TransactWriteItemsInput, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	if c.tx == nil {
		return middleware.InitializeOutput{}, middleware.Metadata{}, errors.New("dynamotest: a Capacity that prices transactions is made by NewCapacity")
	}
	targets, err := c.tx.before(ctx, tx)
	if err != nil {
		return middleware.InitializeOutput{}, middleware.Metadata{}, fmt.Errorf("dynamotest: reading a transaction's items: %w", err)
	}
	out, md, err := next.HandleInitialize(ctx, in)
	if err != nil {
		units, _ := consumedUnits(out.Result)
		c.add("TransactWriteItems", 0, units, nil)
		return out, md, err
	}
	bill, berr := c.tx.bill(ctx, targets)
	if berr != nil {
		return out, md, fmt.Errorf("dynamotest: pricing a transaction: %w", berr)
	}
	c.add("TransactWriteItems", 0, bill.write, bill.places)
	if bill.read > 0 {
		c.add("ConditionCheck", bill.read, 0, nil)
	}
	return out, md, nil
}

// writes names the operations billed in write request units.
var writes = map[string]bool{"PutItem": true, "UpdateItem": true, "DeleteItem": true, "BatchWriteItem": true, "TransactWriteItems": true}

// transactions are billed two units per item unit on the table; DynamoDB
// Local reports a read transaction as plain reads (a write transaction is
// priced by Capacity.transaction).
var transactions = map[string]bool{"TransactGetItems": true}

// askCapacity returns a copy of an input that asks for its consumed
// capacity (the caller's input stays as it was); ok is false for calls
// that consume no request units (DescribeTable, ...).
func askCapacity(input any) (params any, ok bool) {
	v := reflect.ValueOf(input)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct || !v.Elem().FieldByName("ReturnConsumedCapacity").IsValid() {
		return input, false
	}
	x := reflect.New(v.Elem().Type())
	x.Elem().Set(v.Elem())
	x.Elem().FieldByName("ReturnConsumedCapacity").Set(reflect.ValueOf(types.ReturnConsumedCapacityIndexes))
	return x.Interface(), true
}

// consumedUnits adds the capacity units of an output (one
// ConsumedCapacity, or one per table for batches and transactions): all
// of them, and those of the tables themselves (indexes excluded).
func consumedUnits(result any) (units, table float64) {
	all := capacities(result)
	for _, c := range all {
		units += aws.ToFloat64(c.CapacityUnits)
		if c.Table != nil {
			table += aws.ToFloat64(c.Table.CapacityUnits)
		} else {
			table += aws.ToFloat64(c.CapacityUnits)
		}
	}
	return units, table
}

// capacities returns an output's ConsumedCapacity (one, or one per table
// for batches and transactions).
func capacities(result any) []types.ConsumedCapacity {
	v := reflect.ValueOf(result)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return nil
	}
	switch cc := v.Elem().FieldByName("ConsumedCapacity"); {
	case !cc.IsValid():
	case cc.Type() == reflect.TypeOf(&types.ConsumedCapacity{}):
		if c, _ := cc.Interface().(*types.ConsumedCapacity); c != nil {
			return []types.ConsumedCapacity{*c}
		}
	case cc.Type() == reflect.TypeOf([]types.ConsumedCapacity{}):
		return cc.Interface().([]types.ConsumedCapacity)
	}
	return nil
}

// consumedPlaces splits a single write's units by table and index (named
// "<table>" and "<table>/<index>").
func consumedPlaces(result any) map[string]float64 {
	all := capacities(result)
	out := map[string]float64{}
	for _, c := range all {
		name := aws.ToString(c.TableName)
		table := aws.ToFloat64(c.CapacityUnits)
		if c.Table != nil {
			table = aws.ToFloat64(c.Table.CapacityUnits)
		}
		for index, ic := range c.GlobalSecondaryIndexes {
			out[name+"/"+index] += aws.ToFloat64(ic.CapacityUnits)
		}
		out[name] += table
	}
	return out
}

// ByPlace returns the write units spent on each table ("<table>") and
// index ("<table>/<index>"); a
// rejected conditional write is in Rejected, not here.
func (c *Capacity) ByPlace() map[string]float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]float64, len(c.byPlace))
	for k, v := range c.byPlace {
		out[k] = v
	}
	return out
}

// Units returns the read and write request units consumed so far.
func (c *Capacity) Units() (read, write float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.read, c.write
}

// Rejected is how many conditional writes DynamoDB rejected (each counted
// as one write unit).
func (c *Capacity) Rejected() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rejected
}

// ByOperation returns the units consumed by each operation (read and
// write units together: an operation is billed in one kind).
func (c *Capacity) ByOperation() map[string]float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]float64, len(c.byOp))
	for k, v := range c.byOp {
		out[k] = v
	}
	return out
}

// Reset forgets what was counted.
func (c *Capacity) Reset() {
	c.mu.Lock()
	c.read, c.write, c.rejected, c.byOp, c.byPlace = 0, 0, 0, nil, nil
	c.mu.Unlock()
}
