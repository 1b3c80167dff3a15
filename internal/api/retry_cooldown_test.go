package api_test

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
)

// TestManualRetriesAreBounded: one manual retry per delivery per
// webhook.ManualRetryCooldown; the 429 in between carries Retry-After and
// leaves the Idempotency-Key to the same request sent after it.
func TestManualRetriesAreBounded(t *testing.T) {
	h := newHarness(t)
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }
	retry := h.fn(app.RetryDelivery, app.WithClock(clock))
	add := func() string {
		at := clock()
		id, err := webhook.DeliveryID(ids.New(ids.Event, at), ids.New(ids.WebhookEndpoint, at))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.store.Deliveries().Create(context.Background(), webhook.Delivery{
			ProjectID: h.project, ID: id, EventID: "evt_x", EventType: "contact.created", EndpointID: "we_x",
			Status: webhook.StatusDead, Round: 1, NextAttempt: 2, Payload: `{}`, CreatedAt: ids.Timestamp(at), UpdatedAt: ids.Timestamp(at),
		}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	post := func(id, key string) (int, string, string) {
		r := call(t, retry, h.post("POST /public/v1/webhook-deliveries/{id}/retry", "/public/v1/webhook-deliveries/"+id+"/retry", key, `{}`, map[string]string{"id": id}))
		return r.StatusCode, code(r), r.Headers["Retry-After"]
	}
	d1, d2 := add(), add()
	requests := h.count("DREQ")
	if s, _, _ := post(d1, newKey()); s != http.StatusAccepted {
		t.Fatalf("first retry: %d", s)
	}
	advance(20 * time.Second)
	again := newKey()
	s, c, after := post(d1, again)
	left := int((webhook.ManualRetryCooldown - 20*time.Second).Seconds())
	if s != http.StatusTooManyRequests || c != "RETRY_COOLDOWN" || after != strconv.Itoa(left) {
		t.Fatalf("a second retry within the cooldown: %d %s Retry-After %q, want 429 RETRY_COOLDOWN %d", s, c, after, left)
	}
	if s, _, _ := post(d2, newKey()); s != http.StatusAccepted {
		t.Fatalf("another delivery's retry meanwhile: %d", s)
	}
	advance(time.Duration(left) * time.Second)
	if s, c, _ := post(d1, again); s != http.StatusAccepted {
		t.Fatalf("the refused request again after Retry-After, same key: %d %s", s, c)
	}
	if n := h.count("DREQ") - requests; n != 3 {
		t.Fatalf("%d retries queued, want 3", n)
	}
}
