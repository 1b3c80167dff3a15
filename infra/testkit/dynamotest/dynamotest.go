// Package dynamotest gives tests a real DynamoDB engine: DynamoDB Local
// (shared by the packages of one make test run, or started by the test
// process itself) with uniquely named tables created from template.yaml,
// and client middleware that counts calls or injects faults. It does not
// link the local runtime: tests of the DynamoDB adapter and of single
// functions need only the engine.
package dynamotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/botix/public-api/infra/run/ddblocal"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/internal/store"
)

var (
	once     sync.Once
	endpoint string
	started  *ddblocal.Instance
	startErr error
)

// Endpoint returns the URL of DynamoDB Local: the one make test
// started (AWS_ENDPOINT_URL_DYNAMODB), or one this process starts. A test
// that needs DynamoDB never skips: if the engine cannot start, it fails
// with the reason (Java or npm missing).
func Endpoint(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		if endpoint = os.Getenv("AWS_ENDPOINT_URL_DYNAMODB"); endpoint != "" {
			return
		}
		started, startErr = ddblocal.Start(context.Background())
		if startErr == nil {
			endpoint = started.Endpoint
		}
	})
	if startErr != nil {
		t.Fatalf("DynamoDB Local is required by this test and could not start: %v", startErr)
	}
	return endpoint
}

// Main runs the package's tests and stops a DynamoDB Local this process
// started. Use it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if started != nil {
		started.Stop()
	}
	os.Exit(code)
}

// Client returns a client of DynamoDB Local with optional client options
// (call counters, fault injection).
func Client(t testing.TB, opts ...func(*dynamodb.Options)) *dynamodb.Client {
	t.Helper()
	return ddblocal.Client(Endpoint(t), opts...)
}

// UniquePrefix returns a fresh prefix for table names.
func UniquePrefix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "t" + hex.EncodeToString(b) + "-"
}

// Tables creates the template's tables under a unique prefix, deletes them
// when the test ends, and returns their names.
func Tables(t testing.TB) store.Tables {
	t.Helper()
	db := Client(t)
	tpl, err := template.LoadRepo()
	if err != nil {
		t.Fatal(err)
	}
	prefix := UniquePrefix()
	names, err := ddblocal.CreateTables(context.Background(), db, tpl, func(id string) string { return prefix + id })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, n := range names {
			_, _ = db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(n)})
		}
	})
	return TablesOf(names)
}

// TablesOf maps the template's table logical ids to store.Tables.
func TablesOf(names map[string]string) store.Tables {
	return store.Tables{Data: names["DataTable"], Idempotency: names["IdempotencyTable"], Deliveries: names["DeliveriesTable"]}
}

// Store returns a Store over fresh tables.
func Store(t testing.TB, opts ...func(*dynamodb.Options)) *store.Store {
	t.Helper()
	return store.New(Client(t, opts...), Tables(t))
}
