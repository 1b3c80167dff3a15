package awsqueue

import (
	"context"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/botix/public-api/internal/webhook"
)

// Consumer is the deliver function's SQS event source (with
// ReportBatchItemFailures): a batch is handed to the deliverer whole (it
// runs the attempts in parallel and admits those to flow-controlled
// endpoints together), and the messages not done are reported so that only
// they return to the queue — after the wait the handler asked for, or after
// the queue's visibility timeout.
type Consumer struct {
	// Handle processes a batch (webhook.Deliverer.HandleBatch), one
	// disposition per message.
	Handle   func(ctx context.Context, msgs []webhook.Message) []webhook.Disposition
	SQS      *sqs.Client
	QueueURL string
	Log      *slog.Logger
}

// HandleBatch is the Lambda handler.
func (c *Consumer) HandleBatch(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	var msgs []webhook.Message
	var recs []events.SQSMessage
	for _, rec := range ev.Records {
		m, err := webhook.ParseMessage(rec.Body)
		if err != nil {
			c.Log.ErrorContext(ctx, "unreadable delivery message dropped", "message_id", rec.MessageId)
			continue
		}
		msgs, recs = append(msgs, m), append(recs, rec)
	}
	var resp events.SQSEventResponse
	for i, d := range c.Handle(ctx, msgs) {
		if d.Done {
			continue
		}
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: recs[i].MessageId})
		if d.RetryIn > 0 {
			c.delay(ctx, recs[i].ReceiptHandle, d.RetryIn)
		}
	}
	return resp, nil
}

// delay makes a returned message visible again after wait (at least a
// second, at most SQS's 12 hours).
func (c *Consumer) delay(ctx context.Context, receipt string, wait time.Duration) {
	secs := int32(min(max(wait, time.Second), 12*time.Hour) / time.Second)
	if _, err := c.SQS.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl: aws.String(c.QueueURL), ReceiptHandle: aws.String(receipt), VisibilityTimeout: secs,
	}); err != nil {
		c.Log.WarnContext(ctx, "could not shorten a message's visibility; it returns after the queue's timeout", "error", err.Error())
	}
}
