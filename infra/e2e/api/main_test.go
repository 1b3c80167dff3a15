// Package api_test is the public API end to end through the local runtime: idempotent mutations, cursor lists, input rules and hostile input, the HTTP contract, dashboard sessions and files, the public documents.
//
// Each test starts its own runtime (its own tables, ports and receivers) on
// one DynamoDB Local shared by the package. The tests that mostly wait call t.Parallel, so that go test overlaps their waits.
package api_test

import (
	"testing"

	"github.com/botix/public-api/infra/testkit/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }
