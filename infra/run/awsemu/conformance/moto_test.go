package conformance_test

import (
	"testing"

	"github.com/botix/public-api/infra/run/awsemu"
	"github.com/botix/public-api/infra/tools/awstools"
)

// The scenario against moto's server (AWS's most used independent
// emulator, pinned in infra/tools/awstools): every step agrees but moto's
// known gaps.
func TestAgreesWithMoto(t *testing.T) {
	srv := awsemu.StartTestServer("us-east-1", "000000000000")
	t.Cleanup(srv.Close)
	m := awstools.StartMoto(t)
	compare(t, "moto", scenario(t, srv.URL), scenario(t, m.URL), motoGaps)
}

// motoGaps are where moto (the version infra/tools/awstools pins) departs from
// AWS's documentation and ours does not.
var motoGaps = []gap{
	{
		theirs: "start move task: no API error but HTTP 500",
		ours:   "start move task: handle given true",
		what:   "moto does not serve StartMessageMoveTask (it answers 500); the runbook's redrive uses it, and awsemu's and infra/run/local's own tests check ours",
		cite:   "SQS API Reference, StartMessageMoveTask: https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_StartMessageMoveTask.html",
	},
	{
		theirs: "list move tasks: no API error but HTTP 500",
		ours:   "list move tasks: 1",
		what:   "moto does not serve ListMessageMoveTasks (it answers 500)",
		cite:   "SQS API Reference, ListMessageMoveTasks: https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_ListMessageMoveTasks.html",
	},
	{
		theirs: "group twice: no API error but <nil>",
		ours:   "group twice: ConflictException",
		what:   "moto creates a schedule group that exists again; Scheduler answers ConflictException (the AWS SDK Code Library's CreateScheduleGroup example: a name that is not unique throws it)",
		cite:   "EventBridge Scheduler API Reference, CreateScheduleGroup, Errors: https://docs.aws.amazon.com/scheduler/latest/APIReference/API_CreateScheduleGroup.html",
	},
	{
		theirs: "schedule in a missing group: no API error but HTTP 500",
		ours:   "schedule in a missing group: ResourceNotFoundException",
		what:   "moto fails with 500 on a schedule in a group that does not exist; Scheduler answers ResourceNotFoundException (404)",
		cite:   "EventBridge Scheduler API Reference, CreateSchedule, Errors: https://docs.aws.amazon.com/scheduler/latest/APIReference/API_CreateSchedule.html",
	},
}
