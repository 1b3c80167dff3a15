// Package outbox is the dispatch function's event source: the data table's
// DynamoDB stream (inserted events and delivery requests, filtered in the
// template), as Lambda delivers it, handed to pillar 3's dispatcher with a
// failure reported per record.
package outbox

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/internal/logs"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/streamimage"
	"github.com/botix/public-api/internal/webhook"
)

// Consumer feeds stream batches to a dispatcher.
type Consumer struct {
	Dispatcher *webhook.Dispatcher
	Log        *slog.Logger
}

// HandleBatch is the Lambda handler (ReportBatchItemFailures). A record
// that cannot be read or dispatched is reported, and Lambda retries it
// until it leaves the stream; every step of a dispatch is idempotent.
func (c *Consumer) HandleBatch(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	ctx = logs.WithLogger(ctx, c.Log)
	var items []webhook.Outgoing
	var seqs []string
	var resp events.DynamoDBEventResponse
	fail := func(seq string, err error) {
		c.Log.ErrorContext(ctx, "dispatch failed; the stream will retry", "sequence_number", seq, "error", err.Error())
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: seq})
	}
	for _, rec := range ev.Records {
		image, err := streamimage.Convert(rec.Change.NewImage)
		if err != nil {
			fail(rec.Change.SequenceNumber, err)
			continue
		}
		item, ok, err := store.DecodeOutgoing(image)
		switch {
		case err != nil:
			fail(rec.Change.SequenceNumber, err)
		case ok:
			items, seqs = append(items, item), append(seqs, rec.Change.SequenceNumber)
		}
	}
	if len(items) == 0 {
		return resp, nil
	}
	for i, err := range c.Dispatcher.Dispatch(ctx, items) {
		if err != nil {
			fail(seqs[i], err)
		}
	}
	return resp, nil
}
