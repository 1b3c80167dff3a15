package awsqueue

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/botix/public-api/internal/webhook"
)

// EnqueueAfter implements webhook.Queue: one SendMessage with
// DelaySeconds, the delay rounded up to a whole second (never early) and
// cut to SQS's 15 minutes.
func (q *Queue) EnqueueAfter(ctx context.Context, m webhook.Message, delay time.Duration) error {
	delay = min(max(delay, 0), webhook.MaxQueueDelay)
	secs := int32((delay + time.Second - 1) / time.Second)
	_, err := q.SQS.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String(m.String()), DelaySeconds: secs})
	return err
}
