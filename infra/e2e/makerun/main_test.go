// Package makerun_test is the local runtime as make run serves it to a developer: the README's examples and the runbook run as written, the sample events, the local AWS endpoint's limits, models and refusal of web pages.
//
// Each test starts its own runtime (its own tables, ports and receivers) on
// one DynamoDB Local shared by the package. TestReadmeExamples stays serial: its receivers listen on fixed ports.
package makerun_test

import (
	"testing"

	"github.com/botix/public-api/infra/testkit/dynamotest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }
