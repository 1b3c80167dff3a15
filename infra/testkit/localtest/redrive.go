package localtest

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
)

// MoveDeadLetters runs the console's "Start DLQ redrive" through the local
// AWS endpoint, as the runbook does — StartMessageMoveTask from the
// dead-letter queue to the delivery queue — and waits for the task to end.
// It returns how many messages the task moved.
func MoveDeadLetters(t testing.TB, rt *local.Runtime) int {
	t.Helper()
	ctx := context.Background()
	client := sqs.NewFromConfig(AWSConfig(t, rt))
	_, dlq := rt.Queue("DeadLetterQueue")
	_, source := rt.Queue("DeliveryQueue")
	if _, err := client.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlq), DestinationArn: aws.String(source)}); err != nil {
		t.Fatal(err)
	}
	var task sqstypes.ListMessageMoveTasksResultEntry
	apitest.Eventually(t, 30*time.Second, "the move task to end", func() bool {
		out, err := client.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(dlq)})
		if err != nil || len(out.Results) == 0 {
			return false
		}
		task = out.Results[0]
		return aws.ToString(task.Status) != "RUNNING"
	})
	if aws.ToString(task.Status) != "COMPLETED" {
		t.Fatalf("move task %s: %s", aws.ToString(task.Status), aws.ToString(task.FailureReason))
	}
	return int(task.ApproximateNumberOfMessagesMoved)
}
