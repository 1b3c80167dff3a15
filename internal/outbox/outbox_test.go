package outbox_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/outbox"
	"github.com/botix/public-api/internal/webhook"
	"github.com/botix/public-api/internal/webhook/webhooktest"
)

var now = time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)

// brokenFor is the project store whose endpoints of one project cannot be
// read: that project's events fail to dispatch, every other's do not.
type brokenFor struct {
	*webhooktest.Endpoints
	project string
	broken  bool
}

func (b *brokenFor) ForProject(ctx context.Context, project string) ([]webhook.Endpoint, error) {
	if b.broken && project == b.project {
		return nil, errors.New("ValidationException: the project's endpoints cannot be read")
	}
	return b.Endpoints.ForProject(ctx, project)
}

type fixture struct {
	endpoints *brokenFor
	queue     *webhooktest.Queue
	consumer  *outbox.Consumer
	seq       int
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{endpoints: &brokenFor{Endpoints: &webhooktest.Endpoints{}, project: "prj_a", broken: true}, queue: &webhooktest.Queue{}}
	for _, p := range []string{"prj_a", "prj_b"} {
		f.endpoints.Put(p, webhook.Endpoint{ID: "we_" + p, URL: "https://" + p + ".example.com/hooks", Events: []string{webhook.AllEvents}, Enabled: true})
	}
	log := slog.New(slog.DiscardHandler)
	d := &webhook.Dispatcher{Endpoints: f.endpoints, Deliveries: &webhooktest.Deliveries{}, Queue: f.queue, Log: log, Now: func() time.Time { return now }}
	f.consumer = &outbox.Consumer{Dispatcher: d, Queue: f.queue, Log: log}
	return f
}

// record is the stream record of a contact.created event of project.
func (f *fixture) record(project string) events.DynamoDBEventRecord {
	f.seq++
	id := ids.New(ids.Event, now.Add(time.Duration(f.seq)*time.Millisecond))
	s := events.NewStringAttribute
	return events.DynamoDBEventRecord{EventName: "INSERT", Change: events.DynamoDBStreamRecord{
		SequenceNumber: fmt.Sprint(f.seq),
		NewImage: map[string]events.DynamoDBAttributeValue{
			"pk": s("P#" + project + "#EVT"), "sk": s(id), "entity": s("event"), "id": s(id), "project_id": s(project),
			"type": s(domain.EventContactCreated), "created_at": s(ids.Timestamp(now)), "data": s(`{"id":"ct_1"}`),
		},
	}}
}

// sentTo returns the projects of the deliveries the dispatcher queued,
// one per delivery: a dispatch done again queues its deliveries again
// (the deliverer's claim sends each once), never new ones.
func (f *fixture) sentTo() []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range f.queue.Sent() {
		if m.DeliveryID != "" && !seen[m.DeliveryID] {
			seen[m.DeliveryID] = true
			out = append(out, m.ProjectID)
		}
	}
	return out
}

func failures(r events.DynamoDBEventResponse) []string {
	var out []string
	for _, x := range r.BatchItemFailures {
		out = append(out, x.ItemIdentifier)
	}
	return out
}

func TestAFailingRecordIsParkedNotRetriedInPlace(t *testing.T) {
	ctx := context.Background()
	t.Run("a record whose dispatch fails is parked on the delivery queue; the stream moves on to the next project's", func(t *testing.T) {
		f := newFixture(t)
		resp, _ := f.consumer.HandleBatch(ctx, events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{f.record("prj_a"), f.record("prj_b")}})
		if len(resp.BatchItemFailures) != 0 {
			t.Fatalf("reported to the stream: %v; a reported record holds its shard", failures(resp))
		}
		if got := f.sentTo(); !slices.Equal(got, []string{"prj_b"}) {
			t.Fatalf("deliveries queued for %v, want project B's", got)
		}
		parked := f.queue.Deferred()
		if len(parked) != 1 || !outbox.Parked(parked[0].Message) || parked[0].Message.ProjectID != "prj_a" || parked[0].Delay != outbox.ParkDelay {
			t.Fatalf("parked %+v", parked)
		}
	})
	t.Run("a record that cannot be parked either is reported, and the stream retries it: nothing is dropped", func(t *testing.T) {
		f := newFixture(t)
		f.queue.Fail("Defer", nil, 0)
		a, b := f.record("prj_a"), f.record("prj_b")
		resp, _ := f.consumer.HandleBatch(ctx, events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{a, b}})
		if got := failures(resp); !slices.Equal(got, []string{a.Change.SequenceNumber}) {
			t.Fatalf("reported %v, want only project A's record %s", got, a.Change.SequenceNumber)
		}
	})
	t.Run("a record the dispatcher cannot read is parked too, not held in the stream", func(t *testing.T) {
		f := newFixture(t)
		bad := f.record("prj_b")
		delete(bad.Change.NewImage, "id") // an event without its id
		bad.Change.NewImage["created_at"] = events.NewNumberAttribute("1")
		resp, _ := f.consumer.HandleBatch(ctx, events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{bad, f.record("prj_b")}})
		if len(resp.BatchItemFailures) != 0 || len(f.queue.Deferred()) != 1 || len(f.sentTo()) != 1 {
			t.Fatalf("reported %v, parked %d, deliveries %v", failures(resp), len(f.queue.Deferred()), f.sentTo())
		}
	})
	t.Run("a parked record is dispatched again from the queue: failed while its cause lasts, then its deliveries are made, and a second receive makes no others", func(t *testing.T) {
		f := newFixture(t)
		_, _ = f.consumer.HandleBatch(ctx, events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{f.record("prj_a")}})
		parked := f.queue.Deferred()[0].Message
		if d := f.consumer.Redispatch(ctx, parked); d.Done {
			t.Fatalf("redispatched while the project's endpoints cannot be read: %+v", d)
		}
		f.endpoints.broken = false
		for range 2 { // a second receive of the same message (SQS is at least once) adds nothing
			if d := f.consumer.Redispatch(ctx, parked); !d.Done {
				t.Fatalf("not done once the cause is gone: %+v", d)
			}
		}
		if got := f.sentTo(); !slices.Equal(got, []string{"prj_a"}) {
			t.Fatalf("deliveries queued for %v, want project A's one", got)
		}
	})
	t.Run("a parked record survives its own message's body: Parked tells it from a delivery, ParseMessage accepts it", func(t *testing.T) {
		f := newFixture(t)
		_, _ = f.consumer.HandleBatch(ctx, events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{f.record("prj_a")}})
		m, err := webhook.ParseMessage(f.queue.Deferred()[0].Message.String())
		if err != nil || !outbox.Parked(m) || m.DeliveryID != "" {
			t.Fatalf("the parked body read back: %+v, %v", m, err)
		}
		if outbox.Parked(webhook.Message{DeliveryID: "dlv_1", ProjectID: "prj_a"}) {
			t.Fatal("a delivery's message taken for a parked record")
		}
	})
}
