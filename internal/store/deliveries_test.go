package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
)

// deliveryLog writes deliveries the way the dispatcher does: one per
// (event, endpoint), with the derived id.
type deliveryLog struct {
	t       *testing.T
	s       *store.Store
	project string
}

func (l deliveryLog) add(eventID, endpointID string, status webhook.Status) string {
	l.t.Helper()
	id, err := webhook.DeliveryID(eventID, endpointID)
	if err != nil {
		l.t.Fatal(err)
	}
	now := ids.Timestamp(time.Now())
	ok, err := l.s.Deliveries().Create(context.Background(), webhook.Delivery{
		ProjectID: l.project, ID: id, EventID: eventID, EventType: "message.delivered", EndpointID: endpointID,
		Status: status, Round: 1, NextAttempt: 1, Payload: `{"pad":"` + strings.Repeat("x", 2000) + `"}`, CreatedAt: now, UpdatedAt: now,
	})
	if err != nil || !ok {
		l.t.Fatalf("create delivery: %v %v", ok, err)
	}
	return id
}

func deliveryIDs(t *testing.T, s *store.Store, project string, f store.DeliveryFilter) []string {
	t.Helper()
	var out []string
	var start map[string]string
	for {
		page, err := store.ReadPage(context.Background(), s, store.DeliveriesQuery(project, f), start, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range page.Items {
			out = append(out, d.ID)
		}
		if !page.HasMore {
			return out
		}
		start = page.Next
	}
}

// TestDeliveriesByEvent: the event_id filter returns exactly the event's
// deliveries, newest first, alone or with the other filters, even when
// another event shares its millisecond.
func TestDeliveriesByEvent(t *testing.T) {
	s := dynamotest.Store(t)
	log := deliveryLog{t: t, s: s, project: "prj_" + ids.NewULID(time.Now()).String()}
	at := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	ep1, ep2 := ids.New(ids.WebhookEndpoint, at), ids.New(ids.WebhookEndpoint, at)
	evA := ids.New(ids.Event, at)
	twin := ids.New(ids.Event, at) // same millisecond as evA
	later := ids.New(ids.Event, at.Add(time.Millisecond))
	a1, a2 := log.add(evA, ep1, webhook.StatusDelivered), log.add(evA, ep2, webhook.StatusDead)
	log.add(twin, ep1, webhook.StatusDelivered)
	log.add(twin, ep2, webhook.StatusDead)
	log.add(later, ep1, webhook.StatusDelivered)
	newestFirst := []string{a1, a2}
	if a2 > a1 {
		newestFirst = []string{a2, a1}
	}

	for _, tc := range []struct {
		name string
		f    store.DeliveryFilter
		want []string
	}{
		{"event_id alone → the event's deliveries to every endpoint, newest first", store.DeliveryFilter{EventID: evA}, newestFirst},
		{"event_id + endpoint_id → the one delivery to that endpoint", store.DeliveryFilter{EventID: evA, EndpointID: ep2}, []string{a2}},
		{"event_id + status → the event's deliveries in that status", store.DeliveryFilter{EventID: evA, Status: webhook.StatusDelivered}, []string{a1}},
		{"event_id + endpoint_id + status that does not match → none", store.DeliveryFilter{EventID: evA, EndpointID: ep1, Status: webhook.StatusDead}, nil},
		{"event_id + event_type of another type → none", store.DeliveryFilter{EventID: evA, EventType: "contact.created"}, nil},
		{"event_id + since before the event → the event's deliveries", store.DeliveryFilter{EventID: evA, Since: at.Add(-time.Millisecond)}, newestFirst},
		{"event_id + since at the event (exclusive) → none", store.DeliveryFilter{EventID: evA, Since: at}, nil},
		{"event_id + until past the event → the event's deliveries", store.DeliveryFilter{EventID: evA, Until: at.Add(time.Millisecond)}, newestFirst},
		{"event_id + until at the event (exclusive) → none", store.DeliveryFilter{EventID: evA, Until: at}, nil},
		{"an event without deliveries → none", store.DeliveryFilter{EventID: ids.New(ids.Event, at)}, nil},
		{"a malformed event id → none", store.DeliveryFilter{EventID: "evt_nope"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := deliveryIDs(t, s, log.project, tc.f)
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestDeliveriesByEventCostDoesNotGrowWithTheLog: the filter reads the
// event's millisecond, not the log: ten times more deliveries of other
// events leave its cost (one Query, the same capacity) unchanged.
func TestDeliveriesByEventCostDoesNotGrowWithTheLog(t *testing.T) {
	var calls dynamotest.Calls
	s := dynamotest.Store(t, calls.Option())
	log := deliveryLog{t: t, s: s, project: "prj_" + ids.NewULID(time.Now()).String()}
	at := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	ep := ids.New(ids.WebhookEndpoint, at)
	ev := ids.New(ids.Event, at)
	log.add(ev, ep, webhook.StatusDelivered)
	others := func(n int) {
		for i := range n {
			log.add(ids.New(ids.Event, at.Add(time.Duration(i+1)*time.Second)), ep, webhook.StatusDelivered)
		}
	}
	cost := func() (int, float64) {
		calls.Reset()
		if got := deliveryIDs(t, s, log.project, store.DeliveryFilter{EventID: ev}); len(got) != 1 {
			t.Fatalf("got %v, want the event's one delivery", got)
		}
		return len(calls.Ops()), calls.Capacity()
	}
	others(10)
	queries, small := cost()
	others(90)
	queriesAfter, large := cost()
	if queries != 1 || queriesAfter != 1 {
		t.Errorf("queries = %d then %d, want 1 each", queries, queriesAfter)
	}
	if small == 0 || large != small {
		t.Errorf("capacity with 11 deliveries = %v, with 101 = %v; want equal and non-zero", small, large)
	}
}
