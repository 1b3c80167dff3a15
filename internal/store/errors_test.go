package store_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/ids"
)

// TestFailuresAreClassifiedHonestly: only what a retry can fix becomes
// 503 SERVICE_UNAVAILABLE with Retry-After; a request DynamoDB refuses is
// a 500 (our bug, logged), never an invitation to retry forever.
func TestFailuresAreClassifiedHonestly(t *testing.T) {
	cancelled := func(code string) error {
		return &types.TransactionCanceledException{Message: aws.String("cancelled"), CancellationReasons: []types.CancellationReason{{Code: aws.String("None")}, {Code: aws.String(code)}}}
	}
	refused := &smithy.GenericAPIError{Code: "ValidationException", Message: "One or more parameter values were invalid"}
	cases := []struct {
		name        string
		op          string
		err         error
		unavailable bool
	}{
		{"a throttled read", "GetItem", dynamotest.Throttled(), true},
		{"DynamoDB's own failure", "GetItem", &smithy.GenericAPIError{Code: "InternalServerError", Fault: smithy.FaultServer}, true},
		{"a network failure", "GetItem", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, true},
		{"a read DynamoDB refuses", "GetItem", refused, false},
		{"a throttled transaction", "TransactWriteItems", cancelled("ThrottlingError"), true},
		{"a transaction that keeps conflicting", "TransactWriteItems", cancelled("TransactionConflict"), true},
		{"a transaction DynamoDB refuses as invalid", "TransactWriteItems", cancelled("ValidationError"), false},
		{"a transaction over an item collection's size", "TransactWriteItems", cancelled("ItemCollectionSizeLimitExceeded"), false},
		{"a transaction refused before it started", "TransactWriteItems", refused, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			faults := &dynamotest.Faults{}
			faults.Add(dynamotest.Fault{Op: c.op, Err: c.err})
			s := dynamotest.Store(t, faults.Option())
			var err error
			if c.op == "GetItem" {
				_, err = s.GetContact(context.Background(), "prj_x", ids.New(ids.Contact, time.Now()))
			} else {
				err = createContact(t, s, "prj_x", newContact("+79990000001"))
			}
			e, public := apierr.As(err)
			switch {
			case err == nil:
				t.Fatal("no error")
			case c.unavailable && (!public || e.Code != apierr.ServiceUnavailable || e.RetryAfter == 0):
				t.Fatalf("want 503 SERVICE_UNAVAILABLE with Retry-After, got %v", err)
			case !c.unavailable && public:
				t.Fatalf("want an internal error (500), got public %s: %v", e.Code, err)
			}
		})
	}
}
