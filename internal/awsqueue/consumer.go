package awsqueue

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/botix/public-api/internal/webhook"
)

// Consumer is the deliver function's SQS event source (with
// ReportBatchItemFailures): the messages of a batch are handled in
// parallel, and the ones not done are reported so that only they return
// to the queue — after the wait the handler asked for, or after the
// queue's visibility timeout.
type Consumer struct {
	// Handle processes one message (webhook.Deliverer.Handle).
	Handle   func(ctx context.Context, m webhook.Message) webhook.Disposition
	SQS      *sqs.Client
	QueueURL string
	Log      *slog.Logger
}

// HandleBatch is the Lambda handler.
func (c *Consumer) HandleBatch(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	results := make([]webhook.Disposition, len(ev.Records))
	var wg sync.WaitGroup
	for i, rec := range ev.Records {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A panic would kill the whole instance (it runs outside the
			// handler's goroutine); contain it to its message, which SQS
			// then redelivers.
			defer func() {
				if p := recover(); p != nil {
					c.Log.ErrorContext(ctx, "delivery crashed; the message returns to the queue", "message_id", rec.MessageId, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
					results[i] = webhook.Disposition{}
				}
			}()
			results[i] = c.one(ctx, rec)
		}()
	}
	wg.Wait()
	var resp events.SQSEventResponse
	for i, rec := range ev.Records {
		if results[i].Done {
			continue
		}
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId})
		if results[i].RetryIn > 0 {
			c.delay(ctx, rec.ReceiptHandle, results[i].RetryIn)
		}
	}
	return resp, nil
}

func (c *Consumer) one(ctx context.Context, rec events.SQSMessage) webhook.Disposition {
	m, err := webhook.ParseMessage(rec.Body)
	if err != nil {
		c.Log.ErrorContext(ctx, "unreadable delivery message dropped", "message_id", rec.MessageId)
		return webhook.Disposition{Done: true}
	}
	return c.Handle(ctx, m)
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
