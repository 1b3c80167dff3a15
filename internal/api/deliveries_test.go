package api_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
)

// TestDeliveryLogByEvent: GET /public/v1/webhook-deliveries?event_id= finds
// the deliveries of one event (the webhook-id a support ticket starts
// from), with the other filters, through cursor pages bound to it.
func TestDeliveryLogByEvent(t *testing.T) {
	h := newHarness(t)
	list := h.fn(app.ListDeliveries)
	at := time.Now().Add(-time.Hour)
	ep1, ep2 := ids.New(ids.WebhookEndpoint, at), ids.New(ids.WebhookEndpoint, at)
	ev, other := ids.New(ids.Event, at), ids.New(ids.Event, at.Add(time.Second))
	add := func(event, endpoint string) string {
		id, err := webhook.DeliveryID(event, endpoint)
		if err != nil {
			t.Fatal(err)
		}
		now := ids.Timestamp(time.Now())
		if _, err := h.store.Deliveries().Create(context.Background(), webhook.Delivery{
			ProjectID: h.project, ID: id, EventID: event, EventType: "contact.created", EndpointID: endpoint,
			Status: webhook.StatusPending, Round: 1, NextAttempt: 1, Payload: `{}`, CreatedAt: now, UpdatedAt: now,
		}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	d1, d2 := add(ev, ep1), add(ev, ep2)
	add(other, ep1)
	add(other, ep2)
	newestFirst := []string{d1, d2}
	if d2 > d1 {
		newestFirst = []string{d2, d1}
	}
	type page struct {
		Data []struct {
			ID      string `json:"id"`
			EventID string `json:"event_id"`
		} `json:"data"`
		NextCursor *string `json:"next_cursor"`
		HasMore    bool    `json:"has_more"`
	}
	get := func(t *testing.T, query string) (int, string, page) {
		t.Helper()
		r := call(t, list, h.get("GET /public/v1/webhook-deliveries", "/public/v1/webhook-deliveries", query))
		var p page
		if r.StatusCode == 200 {
			apitest.Reply{Body: []byte(r.Body)}.JSON(t, &p)
		}
		return r.StatusCode, r.Body, p
	}

	t.Run("event_id → exactly that event's deliveries, newest first", func(t *testing.T) {
		_, body, p := get(t, "event_id="+ev)
		var got []string
		for _, d := range p.Data {
			got = append(got, d.ID)
		}
		if strings.Join(got, ",") != strings.Join(newestFirst, ",") || p.HasMore {
			t.Fatalf("got %v, want %v: %s", got, newestFirst, body)
		}
	})
	t.Run("event_id + endpoint_id → the event's delivery to that endpoint", func(t *testing.T) {
		_, body, p := get(t, "event_id="+ev+"&endpoint_id="+ep2)
		if len(p.Data) != 1 || p.Data[0].ID != d2 {
			t.Fatalf("%s", body)
		}
	})
	t.Run("event_id + status + event_type + since/until → combined", func(t *testing.T) {
		q := url.Values{"event_id": {ev}, "status": {"pending"}, "event_type": {"contact.created"},
			"since": {at.Add(-time.Minute).Format(time.RFC3339Nano)}, "until": {at.Add(time.Minute).Format(time.RFC3339Nano)}}
		if _, body, p := get(t, q.Encode()); len(p.Data) != 2 {
			t.Fatalf("%s", body)
		}
		q.Set("status", "dead")
		if _, body, p := get(t, q.Encode()); len(p.Data) != 0 {
			t.Fatalf("%s", body)
		}
	})
	t.Run("cursor pages stay on the event; the cursor with another event_id → 400 INVALID_CURSOR", func(t *testing.T) {
		_, body, first := get(t, "event_id="+ev+"&cursor_limit=1")
		if len(first.Data) != 1 || first.Data[0].ID != newestFirst[0] || first.NextCursor == nil {
			t.Fatalf("%s", body)
		}
		_, body, second := get(t, "event_id="+ev+"&cursor_limit=1&cursor="+url.QueryEscape(*first.NextCursor))
		if len(second.Data) != 1 || second.Data[0].ID != newestFirst[1] {
			t.Fatalf("%s", body)
		}
		status, body, _ := get(t, "event_id="+other+"&cursor_limit=1&cursor="+url.QueryEscape(*first.NextCursor))
		if status != 400 || code400(body) != "INVALID_CURSOR" {
			t.Fatalf("%d %s", status, body)
		}
	})
	t.Run("delivery_id → that delivery alone, with the other filters, or nothing", func(t *testing.T) {
		for q, want := range map[string]string{
			"delivery_id=" + d1:                         d1,
			"delivery_id=" + d2 + "&endpoint_id=" + ep2: d2,
			"delivery_id=" + d2 + "&endpoint_id=" + ep1: "",
			"delivery_id=" + d1 + "&event_id=" + other:  "",
			"delivery_id=" + d1 + "&status=pending":     d1,
			"delivery_id=" + d1 + "&status=dead":        "",
			"delivery_id=" + d1 + "&since=" + url.QueryEscape(at.Add(time.Minute).Format(time.RFC3339Nano)): "",
		} {
			status, body, p := get(t, q)
			var got []string
			for _, d := range p.Data {
				got = append(got, d.ID)
			}
			if status != 200 || strings.Join(got, ",") != want || p.HasMore {
				t.Errorf("%s: %d %v, want %q: %s", q, status, got, want, body)
			}
		}
		status, body, _ := get(t, "delivery_id=evt_01ARZ3NDEKTSV4RRFFQ69G5FAV")
		if status != 400 || code400(body) != "INVALID_PARAMETER" || !strings.Contains(body, "delivery_id") {
			t.Fatalf("%d %s", status, body)
		}
	})
	for _, bad := range []string{"evt_nope", "we_01ARZ3NDEKTSV4RRFFQ69G5FAV", "evt_01ARZ3NDEKTSV4RRFFQ69G5FAVX"} {
		t.Run("event_id "+bad+" → 400 INVALID_PARAMETER naming event_id", func(t *testing.T) {
			status, body, _ := get(t, "event_id="+url.QueryEscape(bad))
			if status != 400 || code400(body) != "INVALID_PARAMETER" || !strings.Contains(body, "event_id") {
				t.Fatalf("%d %s", status, body)
			}
		})
	}
}

func code400(body string) string { return apitest.Reply{Body: []byte(body)}.ErrorCode() }

// TestDeliveryLogByRequest: request_id (the X-Botix-Request-Id a receiver
// logged, of any attempt) finds the delivery whose attempt sent it, with
// the other filters; the list route reads gsi3 once and the list once.
func TestDeliveryLogByRequest(t *testing.T) {
	h := newHarness(t)
	list := h.fn(app.ListDeliveries)
	ctx := context.Background()
	at := time.Now().Add(-time.Hour)
	ep1, ep2 := ids.New(ids.WebhookEndpoint, at), ids.New(ids.WebhookEndpoint, at)
	ev := ids.New(ids.Event, at)
	add := func(endpoint string, requests ...string) string {
		id, err := webhook.DeliveryID(ev, endpoint)
		if err != nil {
			t.Fatal(err)
		}
		now := ids.Timestamp(time.Now())
		d := webhook.Delivery{
			ProjectID: h.project, ID: id, EventID: ev, EventType: "contact.created", EndpointID: endpoint,
			Status: webhook.StatusPending, Round: 1, NextAttempt: 1, Payload: `{}`, CreatedAt: now, UpdatedAt: now,
		}
		if _, err := h.store.Deliveries().Create(ctx, d); err != nil {
			t.Fatal(err)
		}
		for i, rid := range requests {
			if err := h.store.Deliveries().RecordExtra(ctx, d, false, webhook.Attempt{
				DeliveryID: id, Attempt: i + 1, Round: 1, Kind: webhook.KindManual, URL: "https://example.com/hook",
				RequestID: rid, StatusCode: 503, StartedAt: now,
			}); err != nil {
				t.Fatal(err)
			}
		}
		return id
	}
	r1a, r1b, r2 := ids.New(ids.Request, at), ids.New(ids.Request, at.Add(time.Second)), ids.New(ids.Request, at)
	d1, d2 := add(ep1, r1a, r1b), add(ep2, r2, "")
	get := func(t *testing.T, query string) (int, string, []string) {
		t.Helper()
		r := call(t, list, h.get("GET /public/v1/webhook-deliveries", "/public/v1/webhook-deliveries", query))
		var p struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
			HasMore bool `json:"has_more"`
		}
		var got []string
		if r.StatusCode == 200 {
			apitest.Reply{Body: []byte(r.Body)}.JSON(t, &p)
			for _, d := range p.Data {
				got = append(got, d.ID)
			}
			if p.HasMore {
				t.Errorf("%s: has_more", query)
			}
		}
		return r.StatusCode, r.Body, got
	}
	for q, want := range map[string]string{
		"request_id=" + r1a:                                d1,
		"request_id=" + r1b:                                d1,
		"request_id=" + r2:                                 d2,
		"request_id=" + r2 + "&endpoint_id=" + ep2:         d2,
		"request_id=" + r2 + "&endpoint_id=" + ep1:         "",
		"request_id=" + r1a + "&status=pending":            d1,
		"request_id=" + r1a + "&status=dead":               "",
		"request_id=" + r1a + "&delivery_id=" + d1:         d1,
		"request_id=" + r1a + "&delivery_id=" + d2:         "",
		"request_id=" + r1a + "&event_id=" + ev:            d1,
		"request_id=" + ids.New(ids.Request, at):           "",
		"request_id=" + r2 + "&event_type=contact.created": d2,
	} {
		status, body, got := get(t, q)
		if status != 200 || strings.Join(got, ",") != want {
			t.Errorf("%s: %d %v, want %q: %s", q, status, got, want, body)
		}
	}
	t.Run("one Query of gsi3, one of the list", func(t *testing.T) {
		h.calls.Reset()
		if _, body, got := get(t, "request_id="+r1b); strings.Join(got, ",") != d1 {
			t.Fatal(body)
		}
		var queries int
		for _, op := range h.calls.Ops() {
			if op == "Query" {
				queries++
			}
		}
		if queries != 2 {
			t.Fatalf("calls %v: want 2 Queries (gsi3, the list)", h.calls.Ops())
		}
	})
	t.Run("another project's request id finds nothing", func(t *testing.T) {
		other := newHarness(t)
		r := call(t, other.fn(app.ListDeliveries), other.get("GET /public/v1/webhook-deliveries", "/public/v1/webhook-deliveries", "request_id="+r1a))
		if r.StatusCode != 200 || strings.Contains(r.Body, d1) {
			t.Fatalf("%d %s", r.StatusCode, r.Body)
		}
	})
	for _, bad := range []string{"req_nope", d1, "req_01ARZ3NDEKTSV4RRFFQ69G5FAVX"} {
		t.Run("request_id "+bad+" → 400 INVALID_PARAMETER naming request_id", func(t *testing.T) {
			status, body, _ := get(t, "request_id="+url.QueryEscape(bad))
			if status != 400 || code400(body) != "INVALID_PARAMETER" || !strings.Contains(body, "request_id") {
				t.Fatalf("%d %s", status, body)
			}
		})
	}
}
