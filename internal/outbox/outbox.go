// Package outbox is the dispatch function's event source: the data table's
// DynamoDB stream (inserted events and delivery requests, filtered in the
// template), as Lambda delivers it, handed to pillar 3's dispatcher.
//
// A record whose dispatch fails is parked, not retried in place: a stream
// shard is read in order, so a record retried in place would hold every
// record behind it — every other project's events on that shard — until it
// succeeded or left the stream after 24 hours. Parked, it travels as a
// message of its own on the delivery queue (webhook.Message.Outbox), a
// ParkDelay later, and the deliver function dispatches it again
// (Consumer.Redispatch): on failure the queue returns it after its
// visibility timeout, and after the queue's receive limit it goes to the
// dead-letter queue, from which a redrive sends it back like any dead
// letter. Only a record that cannot even be parked (the queue is down) is
// reported to the stream, which retries it: nothing is dropped.
package outbox

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/internal/logs"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/streamimage"
	"github.com/botix/public-api/internal/webhook"
)

// ParkDelay is how long a parked record waits before its first dispatch
// from the delivery queue.
const ParkDelay = 10 * time.Second

// Consumer feeds stream batches to a dispatcher and parks what fails.
type Consumer struct {
	Dispatcher *webhook.Dispatcher
	// Queue parks failed records (Defer, on the delivery queue).
	Queue webhook.Queue
	Log   *slog.Logger
}

// HandleBatch is the Lambda handler (ReportBatchItemFailures): a record
// that cannot be read or dispatched is parked; one that cannot be parked
// either is reported, and Lambda retries it until it leaves the stream.
// Every step of a dispatch is idempotent.
func (c *Consumer) HandleBatch(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	ctx = logs.WithLogger(ctx, c.Log)
	var items []webhook.Outgoing
	var recs []events.DynamoDBEventRecord
	var failed []events.DynamoDBEventRecord
	for _, rec := range ev.Records {
		item, ok, err := decode(rec.Change.NewImage)
		switch {
		case err != nil:
			c.Log.ErrorContext(ctx, "outbox record not readable; parked", "sequence_number", rec.Change.SequenceNumber, "error", err.Error())
			failed = append(failed, rec)
		case ok:
			items, recs = append(items, item), append(recs, rec)
		}
	}
	if len(items) > 0 {
		for i, err := range c.Dispatcher.Dispatch(ctx, items) {
			if err != nil {
				c.Log.ErrorContext(ctx, "dispatch failed; the record is parked on the delivery queue", "sequence_number", recs[i].Change.SequenceNumber, "error", err.Error())
				failed = append(failed, recs[i])
			}
		}
	}
	var resp events.DynamoDBEventResponse
	for _, rec := range c.park(ctx, failed) {
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: rec.Change.SequenceNumber})
	}
	return resp, nil
}

// park puts recs on the delivery queue, each as a message of its own, and
// returns those it could not put there.
func (c *Consumer) park(ctx context.Context, recs []events.DynamoDBEventRecord) (left []events.DynamoDBEventRecord) {
	if len(recs) == 0 {
		return nil
	}
	msgs := make([]webhook.Deferred, 0, len(recs))
	var at []events.DynamoDBEventRecord
	for _, rec := range recs {
		image, err := json.Marshal(rec.Change.NewImage)
		if err != nil {
			left = append(left, rec)
			continue
		}
		var owner struct {
			ProjectID string `dynamodbav:"project_id"`
		}
		_ = streamimage.Decode(rec.Change.NewImage, &owner)
		project := owner.ProjectID
		if project == "" {
			project = "unknown" // a record this unreadable still parks, in a fair queue group of its own
		}
		msgs, at = append(msgs, webhook.Deferred{Message: webhook.Message{ProjectID: project, Outbox: image}, Delay: ParkDelay}), append(at, rec)
	}
	for i, err := range c.Queue.Defer(ctx, msgs) {
		if err != nil {
			c.Log.ErrorContext(ctx, "record not parked; the stream will retry it", "sequence_number", at[i].Change.SequenceNumber, "error", err.Error())
			left = append(left, at[i])
		}
	}
	return left
}

// Parked reports whether m is a parked outbox record (Redispatch's).
func Parked(m webhook.Message) bool { return len(m.Outbox) > 0 }

// Redispatch dispatches a parked record again: done once its dispatch
// succeeded (or the record is not the dispatcher's), failed otherwise, and
// the queue returns it.
func (c *Consumer) Redispatch(ctx context.Context, m webhook.Message) webhook.Disposition {
	var image map[string]events.DynamoDBAttributeValue
	err := json.Unmarshal(m.Outbox, &image)
	var item webhook.Outgoing
	ok := false
	if err == nil {
		item, ok, err = decode(image)
	}
	if err == nil && ok {
		err = c.Dispatcher.Dispatch(ctx, []webhook.Outgoing{item})[0]
	}
	if err != nil {
		c.Log.ErrorContext(ctx, "parked outbox record not dispatched; the queue will return it", "project_id", m.ProjectID, "error", err.Error())
		return webhook.Disposition{}
	}
	return webhook.Disposition{Done: true}
}

func decode(image map[string]events.DynamoDBAttributeValue) (webhook.Outgoing, bool, error) {
	m, err := streamimage.Convert(image)
	if err != nil {
		return webhook.Outgoing{}, false, err
	}
	return store.DecodeOutgoing(m)
}
