package local_test

import (
	"testing"

	"github.com/botix/public-api/infra/testkit/dynamotest"
)

// TestMain runs the runtime's own tests (its call meter against tables in
// DynamoDB Local) on one DynamoDB Local. The end-to-end tests that go
// through the runtime are in infra/e2e.
func TestMain(m *testing.M) { dynamotest.Main(m) }
