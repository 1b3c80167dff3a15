package awsqueue

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/botix/public-api/internal/clock"
	"github.com/botix/public-api/internal/logs"
	"github.com/botix/public-api/internal/metrics"
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
	Handle func(ctx context.Context, msgs []webhook.Message) []webhook.Disposition
	SQS    *sqs.Client
	// QueueURLs are the queues the function consumes (the delivery queue
	// and its bulk lane); a record's own is the one named as the last part
	// of its eventSourceARN.
	QueueURLs []string
	Log       *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// HandleBatch is the Lambda handler.
func (c *Consumer) HandleBatch(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	ctx = logs.WithLogger(ctx, c.Log)
	var msgs []webhook.Message
	var recs []events.SQSMessage
	for _, rec := range ev.Records {
		m, err := webhook.ParseMessage(rec.Body)
		if err != nil {
			c.Log.ErrorContext(ctx, "unreadable delivery message dropped", "message_id", rec.MessageId)
			continue
		}
		c.timeInQueue(ctx, rec, m)
		msgs, recs = append(msgs, m), append(recs, rec)
	}
	var resp events.SQSEventResponse
	for i, d := range c.Handle(ctx, msgs) {
		if d.Done {
			continue
		}
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: recs[i].MessageId})
		if d.RetryIn > 0 {
			c.delay(ctx, c.queueOf(recs[i]), recs[i].ReceiptHandle, d.RetryIn)
		}
	}
	return resp, nil
}

// timeInQueue writes the TimeInQueue metric of a first attempt's message
// received for the first time, sent without a delay (a delay, or a
// message seen before, would count waits the pipeline chose).
func (c *Consumer) timeInQueue(ctx context.Context, rec events.SQSMessage, m webhook.Message) {
	sent, err := strconv.ParseInt(rec.Attributes["SentTimestamp"], 10, 64)
	if err != nil || rec.Attributes["ApproximateReceiveCount"] != "1" || m.Attempt != 1 || m.Round > 1 || m.NotBefore != 0 || m.Continuation != nil {
		return
	}
	metrics.Duration(ctx, c.Log, metrics.TimeInQueue, c.now().Sub(time.UnixMilli(sent)), metrics.LaneOf(m.Bulk))
}

func (c *Consumer) now() time.Time { return clock.Or(c.Now)() }

// queueOf returns the URL of the queue a record came from.
func (c *Consumer) queueOf(rec events.SQSMessage) string {
	name := rec.EventSourceARN[strings.LastIndex(rec.EventSourceARN, ":")+1:]
	for _, u := range c.QueueURLs {
		if strings.HasSuffix(u, "/"+name) {
			return u
		}
	}
	return c.QueueURLs[0]
}

// delay makes a returned message visible again on its queue after wait
// (at least a second, at most SQS's 12 hours).
func (c *Consumer) delay(ctx context.Context, queueURL, receipt string, wait time.Duration) {
	secs := int32(min(max(wait, time.Second), 12*time.Hour) / time.Second)
	if _, err := c.SQS.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl: aws.String(queueURL), ReceiptHandle: aws.String(receipt), VisibilityTimeout: secs,
	}); err != nil {
		c.Log.WarnContext(ctx, "could not shorten a message's visibility; it returns after the queue's timeout", "error", err.Error())
	}
}
