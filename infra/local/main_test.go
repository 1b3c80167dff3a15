package local_test

import (
	"testing"

	"github.com/botix/public-api/infra/dynamotest"
)

// TestMain runs the package's tests against one DynamoDB Local.
//
// Each test starts its own runtime (its own tables, ports and receivers).
// The tests that mostly wait — retry rounds, visibility timeouts,
// receivers that sleep — call t.Parallel, so that go test overlaps their
// waits (two at a time on 2 cores, once the serial tests are done):
// measured alone with go test -run, each kept less than a core busy, the
// test and DynamoDB Local together. The ones that keep the cores busy stay
// serial (TestChaos, TestOneRecoverCallRecoversEverything,
// TestEndpointLimitsHoldAtTheReceiver), and so does TestReadmeExamples,
// whose receivers listen on fixed ports.
func TestMain(m *testing.M) { dynamotest.Main(m) }
