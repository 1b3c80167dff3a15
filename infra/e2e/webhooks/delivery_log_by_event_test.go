package webhooks_test

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/internal/webhook"
)

// TestDeliveryLogByEventEndToEnd: two events delivered to two endpoints;
// the event_id filter returns exactly one event's deliveries, newest
// first, page by page, and its cursor is refused with another event_id;
// the request id a receiver logged finds its delivery (request_id).
func TestDeliveryLogByEventEndToEnd(t *testing.T) {
	_, c, _, _ := webhookRuntime(t, nil)
	one, two := apitest.NewReceiver(t, status(200)), apitest.NewReceiver(t, status(200))
	ep1, ep2 := c.Endpoint(one.URL, "contact.created"), c.Endpoint(two.URL, "contact.created")
	c.Contact("+79990007001")
	c.Contact("+79990007002")
	apitest.Eventually(t, 30*time.Second, "both events at both endpoints", func() bool {
		return len(one.Requests()) == 2 && len(two.Requests()) == 2
	})
	var events []string
	for _, r := range one.Requests() {
		events = append(events, r.Header.Get("Webhook-Id"))
	}
	ev, other := events[0], events[1]
	want := []string{}
	for _, ep := range []string{ep1.ID, ep2.ID} {
		id, err := webhook.DeliveryID(ev, ep)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
	}
	slices.Sort(want)
	slices.Reverse(want) // newest first: ids sort by their event's time

	type delivery struct {
		ID      string `json:"id"`
		EventID string `json:"event_id"`
	}
	ids := func(p localtest.Page) []string {
		var out []string
		for _, raw := range p.Data {
			var d delivery
			if err := json.Unmarshal(raw, &d); err != nil {
				t.Fatal(err)
			}
			out = append(out, d.ID)
		}
		return out
	}

	t.Run("event_id → exactly that event's deliveries to both endpoints, newest first", func(t *testing.T) {
		if got := ids(c.List("/public/v1/webhook-deliveries?event_id=" + ev)); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("got %v, want %v", got, want)
		}
	})
	t.Run("cursor pages of one delivery stay on the event", func(t *testing.T) {
		first := c.List("/public/v1/webhook-deliveries?cursor_limit=1&event_id=" + ev)
		if got := ids(first); len(got) != 1 || got[0] != want[0] || !first.HasMore || first.NextCursor == nil {
			t.Fatalf("first page %v has_more=%v", got, first.HasMore)
		}
		second := c.List("/public/v1/webhook-deliveries?cursor_limit=1&event_id=" + ev + "&cursor=" + url.QueryEscape(*first.NextCursor))
		got := ids(second)
		if len(got) != 1 || got[0] != want[1] {
			t.Fatalf("second page %v, want [%s]", got, want[1])
		}
		if second.HasMore {
			third := c.List("/public/v1/webhook-deliveries?cursor_limit=1&event_id=" + ev + "&cursor=" + url.QueryEscape(*second.NextCursor))
			if len(third.Data) != 0 || third.HasMore {
				t.Fatalf("past the event's deliveries: %v", ids(third))
			}
		}
	})
	t.Run("the cursor with another event_id → 400 INVALID_CURSOR", func(t *testing.T) {
		first := c.List("/public/v1/webhook-deliveries?cursor_limit=1&event_id=" + ev)
		r := c.Get("/public/v1/webhook-deliveries?cursor_limit=1&event_id=" + other + "&cursor=" + url.QueryEscape(*first.NextCursor))
		if r.Status != 400 || r.ErrorCode() != "INVALID_CURSOR" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("event_id + endpoint_id → the one delivery", func(t *testing.T) {
		got := ids(c.List("/public/v1/webhook-deliveries?event_id=" + ev + "&endpoint_id=" + ep2.ID))
		id, _ := webhook.DeliveryID(ev, ep2.ID)
		if len(got) != 1 || got[0] != id {
			t.Fatalf("got %v, want [%s]", got, id)
		}
	})
	t.Run("request_id a receiver logged → the delivery whose attempt sent it", func(t *testing.T) {
		for _, r := range two.Requests() {
			rid := r.Header.Get(webhook.HeaderRequestID)
			id, err := webhook.DeliveryID(r.Header.Get("Webhook-Id"), ep2.ID)
			if err != nil || rid == "" {
				t.Fatalf("request %q: %v", rid, err)
			}
			if got := ids(c.List("/public/v1/webhook-deliveries?request_id=" + rid)); len(got) != 1 || got[0] != id {
				t.Fatalf("request_id %s: got %v, want [%s]", rid, got, id)
			}
			if got := ids(c.List("/public/v1/webhook-deliveries?request_id=" + rid + "&endpoint_id=" + ep1.ID)); len(got) != 0 {
				t.Fatalf("request_id %s at the other endpoint: got %v", rid, got)
			}
		}
		r := c.Get("/public/v1/webhook-deliveries?request_id=req_123")
		if r.Status != 400 || r.ErrorCode() != "INVALID_PARAMETER" || !strings.Contains(string(r.Body), "request_id") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("a malformed event_id → 400 INVALID_PARAMETER", func(t *testing.T) {
		r := c.Get("/public/v1/webhook-deliveries?event_id=evt_123")
		if r.Status != 400 || r.ErrorCode() != "INVALID_PARAMETER" || !strings.Contains(string(r.Body), "event_id") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}
