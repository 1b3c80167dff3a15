package dynamotest

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
)

// Calls records the DynamoDB operations a client makes (one entry per
// logical call, SDK retries excluded).
type Calls struct {
	mu  sync.Mutex
	ops []string
	rcu float64
}

// Option installs the recorder on a DynamoDB client.
func (c *Calls) Option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc("dynamotest.calls", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				c.mu.Lock()
				c.ops = append(c.ops, awsmiddleware.GetOperationName(ctx))
				c.mu.Unlock()
				out, md, err := next.HandleInitialize(ctx, in)
				if cc := consumed(out.Result); cc != nil {
					c.mu.Lock()
					c.rcu += aws.ToFloat64(cc.CapacityUnits)
					c.mu.Unlock()
				}
				return out, md, err
			}), middleware.Before)
		})
	}
}

// Reset forgets the recorded calls.
func (c *Calls) Reset() {
	c.mu.Lock()
	c.ops, c.rcu = nil, 0
	c.mu.Unlock()
}

// Capacity returns the capacity units consumed by the recorded reads that
// asked for it (ReturnConsumedCapacity).
func (c *Calls) Capacity() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rcu
}

func consumed(result any) *types.ConsumedCapacity {
	switch r := result.(type) {
	case *dynamodb.QueryOutput:
		return r.ConsumedCapacity
	case *dynamodb.GetItemOutput:
		return r.ConsumedCapacity
	case *dynamodb.ScanOutput:
		return r.ConsumedCapacity
	}
	return nil
}

// Ops returns the recorded operation names in order.
func (c *Calls) Ops() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.ops...)
}

// Fault makes calls of one operation fail.
type Fault struct {
	// Op is the operation name, e.g. "TransactWriteItems".
	Op string
	// AfterSuccess lets the call reach DynamoDB and succeed, then reports
	// a network error: the write happened, the caller does not know.
	AfterSuccess bool
	// Err is returned before sending (ignored with AfterSuccess);
	// Throttled() by default.
	Err error
	// Times is how many calls fail; 0 means every call.
	Times int
	// When, if set, picks the calls that fail by their input (such as
	// one project's reads); the others pass.
	When func(input any) bool
}

// Faults injects Fault values into a DynamoDB client.
type Faults struct {
	mu     sync.Mutex
	faults []*Fault
	fired  map[*Fault]int
}

// Add arms a fault.
func (f *Faults) Add(x Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, &x)
}

// Fired is how many calls the armed faults have failed.
func (f *Faults) Fired() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, k := range f.fired {
		n += k
	}
	return n
}

// Clear disarms every fault.
func (f *Faults) Clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults, f.fired = nil, nil
}

func (f *Faults) take(op string, input any, after bool) *Fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fired == nil {
		f.fired = map[*Fault]int{}
	}
	for _, x := range f.faults {
		if x.Op == op && x.AfterSuccess == after && (x.Times == 0 || f.fired[x] < x.Times) && (x.When == nil || x.When(input)) {
			f.fired[x]++
			return x
		}
	}
	return nil
}

// Throttled is the error DynamoDB returns when a request is throttled.
func Throttled() error {
	return &smithy.GenericAPIError{Code: "ThrottlingException", Message: "Rate of requests exceeds the allowed throughput.", Fault: smithy.FaultServer}
}

// lostResponse is the network error a caller sees when the connection
// breaks after the server applied the request.
var lostResponse = &net.OpError{Op: "read", Net: "tcp", Err: errors.New("connection reset by peer")}

// Option installs the injector on a DynamoDB client. Faults before sending
// sit outside the SDK's retry loop, so they fail the call every time.
func (f *Faults) Option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			if err := s.Initialize.Add(middleware.InitializeMiddlewareFunc("dynamotest.faults.before", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				if x := f.take(awsmiddleware.GetOperationName(ctx), in.Parameters, false); x != nil {
					err := x.Err
					if err == nil {
						err = Throttled()
					}
					return middleware.InitializeOutput{}, middleware.Metadata{}, err
				}
				return next.HandleInitialize(ctx, in)
			}), middleware.After); err != nil {
				return err
			}
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc("dynamotest.faults.after", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleInitialize(ctx, in)
				if err == nil {
					if x := f.take(awsmiddleware.GetOperationName(ctx), in.Parameters, true); x != nil {
						return out, md, lostResponse
					}
				}
				return out, md, err
			}), middleware.After)
		})
	}
}

// CountItems returns how many items a partition holds.
func CountItems(t testing.TB, db *dynamodb.Client, table, pk string) int {
	t.Helper()
	out, err := db.Query(context.Background(), &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: pk}},
		Select:                    types.SelectCount,
		ConsistentRead:            aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	return int(out.Count)
}
