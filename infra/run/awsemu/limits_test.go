package awsemu_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/botix/public-api/infra/run/awsemu"
)

// TestSQSLimitsAtTheEdge: each limit of SQS the emulator plays takes
// what is exactly at it and refuses one more (byte, entry) with SQS's
// error code, as the SDK reports it (SQS's query-protocol code).
func TestSQSLimitsAtTheEdge(t *testing.T) {
	c, _, _ := emulator(t)
	ctx := context.Background()
	url := createQueue(t, c, "edge", nil)
	small := createQueue(t, c, "edge-small", map[string]string{"MaximumMessageSize": "1024"})

	sendOf := func(queue string, bodyBytes int, attrs map[string]types.MessageAttributeValue) func() error {
		return func() error {
			_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(queue), MessageBody: aws.String(strings.Repeat("x", bodyBytes)), MessageAttributes: attrs})
			return err
		}
	}
	delayOf := func(d time.Duration) func() error {
		return func() error {
			_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("x"), DelaySeconds: int32(d / time.Second)})
			return err
		}
	}
	// An attribute counts its name, data type and value.
	attr := map[string]types.MessageAttributeValue{"name": {DataType: aws.String("String"), StringValue: aws.String("value")}}
	attrBytes := len("name") + len("String") + len("value")
	batchOf := func(bodies ...int) func() error {
		return func() error {
			entries := make([]types.SendMessageBatchRequestEntry, len(bodies))
			for i, n := range bodies {
				entries[i] = types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(strings.Repeat("x", n))}
			}
			out, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
			if err == nil && len(out.Failed) > 0 {
				t.Errorf("batch entries failed: %+v", out.Failed)
			}
			return err
		}
	}
	ones := func(n int) []int { return slices.Repeat([]int{1}, n) }
	deleteBatchOf := func(n int) func() error {
		return func() error {
			entries := make([]types.DeleteMessageBatchRequestEntry, n)
			for i := range entries {
				entries[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: aws.String("junk")}
			}
			_, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
			return err
		}
	}
	half := awsemu.MaxBatchSize / 2
	for _, tc := range []struct {
		name string
		call func() error
		want string // "" for accepted
	}{
		{"a message of exactly MaxMessageSize bytes is sent", sendOf(url, awsemu.MaxMessageSize, nil), ""},
		{"one byte more → InvalidParameterValue", sendOf(url, awsemu.MaxMessageSize+1, nil), "InvalidParameterValue"},
		{"body and attributes of exactly MaxMessageSize bytes are sent", sendOf(url, awsemu.MaxMessageSize-attrBytes, attr), ""},
		{"attributes count: one byte more → InvalidParameterValue", sendOf(url, awsemu.MaxMessageSize-attrBytes+1, attr), "InvalidParameterValue"},
		{"a delay of exactly MaxDelay is taken", delayOf(awsemu.MaxDelay), ""},
		{"one second more → InvalidParameterValue", delayOf(awsemu.MaxDelay + time.Second), "InvalidParameterValue"},
		{"a queue's own MaximumMessageSize is reached", sendOf(small, 1024, nil), ""},
		{"and one byte past it refused", sendOf(small, 1025, nil), "InvalidParameterValue"},
		{"ten entries are sent", batchOf(ones(awsemu.MaxBatchEntries)...), ""},
		{"eleven → TooManyEntriesInBatchRequest", batchOf(ones(awsemu.MaxBatchEntries + 1)...), "AWS.SimpleQueueService.TooManyEntriesInBatchRequest"},
		{"a batch of exactly MaxBatchSize bytes is sent", batchOf(half, awsemu.MaxBatchSize-half), ""},
		{"one byte more → BatchRequestTooLong", batchOf(half, awsemu.MaxBatchSize-half+1), "AWS.SimpleQueueService.BatchRequestTooLong"},
		{"no entries → EmptyBatchRequest", batchOf(), "AWS.SimpleQueueService.EmptyBatchRequest"},
		{"DeleteMessageBatch takes ten entries", deleteBatchOf(awsemu.MaxBatchEntries), ""},
		{"and refuses eleven", deleteBatchOf(awsemu.MaxBatchEntries + 1), "AWS.SimpleQueueService.TooManyEntriesInBatchRequest"},
		{"MaximumMessageSize of a queue may be MaxMessageSize", func() error {
			_, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("edge-max"), Attributes: map[string]string{"MaximumMessageSize": strconv.Itoa(awsemu.MaxMessageSize)}})
			return err
		}, ""},
		{"not one byte more", func() error {
			_, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("edge-over"), Attributes: map[string]string{"MaximumMessageSize": strconv.Itoa(awsemu.MaxMessageSize + 1)}})
			return err
		}, "InvalidAttributeValue"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := code(tc.call()); got != tc.want {
				t.Errorf("error code %q, want %q", got, tc.want)
			}
		})
	}
	// A queue made without one has SQS's default: the largest.
	attrs, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameMaximumMessageSize}})
	if err != nil || attrs.Attributes["MaximumMessageSize"] != strconv.Itoa(awsemu.MaxMessageSize) {
		t.Errorf("default MaximumMessageSize %v (%v), want %d", attrs, err, awsemu.MaxMessageSize)
	}
}
