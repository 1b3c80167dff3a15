package dynamotest

import (
	"context"
	"errors"
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
// DynamoDB Local reports a transaction's units without the doubling AWS
// bills (two units per item): Capacity doubles the table's units of a
// transaction. Index updates, asynchronous, are counted once.
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
	// or "<table>/<index>", a transaction's table units doubled.
	byPlace map[string]float64
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
	out, md, err := next.HandleInitialize(ctx, in)
	op := awsmiddleware.GetOperationName(ctx)
	units, table := consumedUnits(out.Result)
	if transactions[op] {
		units += table
	}
	places := consumedPlaces(out.Result, transactions[op])
	var conditional *types.ConditionalCheckFailedException
	rejected := errors.As(err, &conditional)
	c.mu.Lock()
	defer c.mu.Unlock()
	if rejected {
		c.rejected++
		units = 1
	}
	if c.byOp == nil {
		c.byOp = map[string]float64{}
	}
	c.byOp[op] += units
	if writes[op] {
		c.write += units
		if c.byPlace == nil {
			c.byPlace = map[string]float64{}
		}
		for place, u := range places {
			c.byPlace[place] += u
		}
	} else {
		c.read += units
	}
	return out, md, err
}

// writes names the operations billed in write request units.
var writes = map[string]bool{"PutItem": true, "UpdateItem": true, "DeleteItem": true, "BatchWriteItem": true, "TransactWriteItems": true}

// transactions are billed two units per item unit on the table; DynamoDB
// Local reports them as plain writes and reads (its test pins this).
var transactions = map[string]bool{"TransactWriteItems": true, "TransactGetItems": true}

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

// consumedPlaces splits an output's units by table and index (named
// "<table>" and "<table>/<index>"), a transaction's table units doubled.
func consumedPlaces(result any, transaction bool) map[string]float64 {
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
		if transaction {
			table *= 2
		}
		out[name] += table
	}
	return out
}

// ByPlace returns the write units spent on each table ("<table>") and
// index ("<table>/<index>"), a transaction's table units doubled; a
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
