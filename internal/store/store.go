// Package store is the DynamoDB adapter, and only that: every read and
// write of the data, idempotency and deliveries tables goes through it. It
// implements the ports the pillars declare (idempotency.Store,
// webhook.Deliveries, webhook.Endpoints) and maps its items to their types;
// the rules stay with the pillars. It is tested against DynamoDB Local,
// never a mock — conditions, transactions and paging keys are behaviour
// that DynamoDB decides — including the contract suites the pillars'
// in-memory fakes pass too.
package store

import (
	"context"
	"errors"
	"net"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/clock"
)

// Tables names the DynamoDB tables of one deployment.
type Tables struct {
	// Data holds projects, keys, contacts, messages, catalog, outbox events,
	// webhook endpoints, delivery requests and inspectors (single-table
	// design, see keys.go).
	Data string
	// Idempotency holds idempotency records, one per (project, key).
	Idempotency string
	// Deliveries holds webhook deliveries and their attempt logs: high-churn
	// operational data, kept off the data table's stream so that the
	// outbox stream carries business writes only.
	Deliveries string
}

// Store reads and writes the API's data in DynamoDB.
type Store struct {
	DB     *dynamodb.Client
	Tables Tables
	// Now is the clock used for TTLs and leases; nil means time.Now.
	Now func() time.Time
}

// New returns a Store over db and tables.
func New(db *dynamodb.Client, tables Tables) *Store {
	return &Store{DB: db, Tables: tables}
}

func (s *Store) now() time.Time {
	return clock.Or(s.Now)()
}

// ErrNotFound reports that an item does not exist (or belongs to another
// project, which callers must not be able to tell apart).
var ErrNotFound = apierr.New(apierr.NotFound, "not found")

// transientCodes are the DynamoDB errors after which the same request can
// succeed: throttling and the service's own failures. The SDK has already
// retried them when they reach us.
var transientCodes = map[string]bool{
	"ProvisionedThroughputExceededException": true,
	"ThrottlingException":                    true,
	"RequestLimitExceeded":                   true,
	"InternalServerError":                    true,
	"ServiceUnavailable":                     true,
}

// classify turns a DynamoDB failure into the API's vocabulary: throttling,
// the engine's own 5xx, network failures and deadlines become
// SERVICE_UNAVAILABLE (503 with Retry-After: an outage, a retry may
// succeed); anything else — a request DynamoDB refuses — stays an internal
// error (500: our bug, logged), because retrying it can never succeed.
func classify(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := apierr.As(err); ok {
		return err
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		if transientCodes[apiErr.ErrorCode()] {
			return apierr.Unavailable(err)
		}
		return err
	}
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return apierr.Unavailable(err)
	}
	return err
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
