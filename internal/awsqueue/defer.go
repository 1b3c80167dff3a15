package awsqueue

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/botix/public-api/internal/webhook"
)

// Defer implements webhook.Queue: ten messages per SendMessageBatch, each
// with its own DelaySeconds (rounded up to a second, at most SQS's 15
// minutes). A deferred message is a new message: its receive count starts
// again, so waiting for capacity never sends it to the dead-letter queue.
func (q *Queue) Defer(ctx context.Context, msgs []webhook.Deferred) []error {
	errs := make([]error, len(msgs))
	for start := 0; start < len(msgs); start += 10 {
		chunk := msgs[start:min(start+10, len(msgs))]
		entries := make([]sqstypes.SendMessageBatchRequestEntry, len(chunk))
		for k, m := range chunk {
			entries[k] = sqstypes.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(k)), MessageBody: aws.String(m.Message.String()), DelaySeconds: delaySeconds(m.Delay)}
		}
		out, err := q.SQS.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.URL), Entries: entries})
		if err != nil {
			for k := range chunk {
				errs[start+k] = err
			}
			continue
		}
		for _, f := range out.Failed {
			k, _ := strconv.Atoi(aws.ToString(f.Id))
			errs[start+k] = fmt.Errorf("awsqueue: deferred message not sent: %s", aws.ToString(f.Message))
		}
	}
	return errs
}

// delaySeconds is a delay as SQS takes it: whole seconds, rounded up, from
// 0 to 900.
func delaySeconds(d time.Duration) int32 {
	s := (min(max(d, 0), webhook.MaxDefer) + time.Second - 1) / time.Second
	return int32(s)
}
