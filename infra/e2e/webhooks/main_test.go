// Package webhooks_test is pillar 3 end to end through the local runtime: delivery, retries and dead letters, flow control, fairness between projects, recovery, health events, secret rotation, the receiver kit, tenant isolation of deliveries.
//
// Each test starts its own runtime (its own tables, ports and receivers) on
// one DynamoDB Local shared by the package. The tests that mostly wait — retry rounds, visibility timeouts, receivers that sleep — call t.Parallel, so that go test overlaps their waits (measured alone with go test -run, each kept less than a core busy, the test and DynamoDB Local together). The ones that keep the cores busy stay serial: TestChaos, TestOneRecoverCallRecoversEverything, TestEndpointLimitsHoldAtTheReceiver.
package webhooks_test

import (
	"testing"

	"github.com/botix/public-api/infra/testkit/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }
