package awsqueue

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/infra/run/awsemu"
	"github.com/botix/public-api/internal/webhook"
)

// A message the deliverer asks back later is delayed on the queue it came
// from: the delivery queue's on the delivery queue, the bulk lane's on the
// bulk lane.
func TestAMessageReturnsOnItsOwnQueue(t *testing.T) {
	ctx := context.Background()
	clock := awsemu.NewManualClock(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	srv := awsemu.StartTestServerOn(clock, "us-east-1", "000000000000")
	t.Cleanup(srv.Close)
	sqsc, _ := clients(srv.URL)
	for _, tc := range []struct{ name, from string }{
		{"the delivery queue's", "deliveries"},
		{"the bulk lane's", "bulk-deliveries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work, _ := srv.SQS.CreateQueue("deliveries", nil)
			bulk, _ := srv.SQS.CreateQueue("bulk-deliveries", nil)
			from := map[string]*awsemu.Queue{"deliveries": work, "bulk-deliveries": bulk}[tc.from]
			m := webhook.Message{DeliveryID: "dlv_1", ProjectID: "prj_1"}
			if _, err := from.Send(m.String(), awsemu.SendOptions{}); err != nil {
				t.Fatal(err)
			}
			hold := 10 * time.Minute
			got, err := from.Receive(ctx, awsemu.ReceiveOptions{Max: 1, Visibility: &hold})
			if err != nil || len(got) != 1 {
				t.Fatalf("received %v, %v", got, err)
			}
			c := &Consumer{SQS: sqsc, QueueURLs: []string{work.URL(), bulk.URL()}, Log: slog.New(slog.DiscardHandler),
				Handle: func(context.Context, []webhook.Message) []webhook.Disposition {
					return []webhook.Disposition{{RetryIn: 5 * time.Second}}
				}}
			ev := events.SQSEvent{Records: []events.SQSMessage{{MessageId: got[0].ID, ReceiptHandle: got[0].ReceiptHandle, Body: got[0].Body, EventSourceARN: from.ARN()}}}
			resp, err := c.HandleBatch(ctx, ev)
			if err != nil || len(resp.BatchItemFailures) != 1 {
				t.Fatalf("batch answer %+v, %v", resp, err)
			}
			clock.Advance(5 * time.Second)
			if visible, _, _ := from.Depth(); visible != 1 {
				t.Fatalf("%s holds %d visible messages 5 s later, want the one returned (its 10-minute visibility was not shortened)", tc.from, visible)
			}
			srv.SQS.DeleteQueue(work)
			srv.SQS.DeleteQueue(bulk)
		})
	}
}
