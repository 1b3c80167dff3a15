package webhooks_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
)

// allDelivered waits until n deliveries of the endpoint are delivered and
// returns them.
func allDelivered(t *testing.T, s *store.Store, project, endpointID string, n int) []webhook.Delivery {
	t.Helper()
	var got []webhook.Delivery
	apitest.Eventually(t, 60*time.Second, fmt.Sprintf("%d deliveries delivered", n), func() bool {
		page, err := store.ReadPage(context.Background(), s, store.DeliveriesQuery(project, store.DeliveryFilter{EndpointID: endpointID}), nil, 100)
		if err != nil {
			return false
		}
		got = page.Items
		done := 0
		for _, d := range got {
			if d.Status == webhook.StatusDelivered {
				done++
			}
		}
		return done == n
	})
	return got
}

func TestEndpointLimitsHoldAtTheReceiver(t *testing.T) {
	_, c, s, project := webhookRuntime(t, nil)
	var inFlight, most atomic.Int64
	rc := apitest.NewReceiver(t, func(_ int, _ *http.Request, w http.ResponseWriter) {
		n := inFlight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(150 * time.Millisecond)
		inFlight.Add(-1)
		w.WriteHeader(http.StatusNoContent)
	})
	ep := c.LimitedEndpoint(rc.URL, `"max_concurrency":2,"rate_limit":20`)
	var shown struct {
		RateLimit      int `json:"rate_limit"`
		MaxConcurrency int `json:"max_concurrency"`
	}
	c.Get("/public/v1/webhook-endpoints/"+ep.ID).JSON(t, &shown)
	if shown.RateLimit != 20 || shown.MaxConcurrency != 2 {
		t.Fatalf("endpoint shows %+v", shown)
	}
	const n = 24
	for i := range n {
		c.Contact(fmt.Sprintf("+7999001%04d", i))
	}
	for _, d := range allDelivered(t, s, project, ep.ID, n) {
		if d.Attempts != 1 {
			t.Fatalf("delivery %s took %d attempts: waiting for capacity counted as one", d.ID, d.Attempts)
		}
	}
	if got := most.Load(); got > 2 {
		t.Fatalf("%d requests in flight at the receiver; max_concurrency is 2", got)
	}
	if len(rc.Requests()) != n {
		t.Fatalf("receiver got %d requests for %d deliveries", len(rc.Requests()), n)
	}
}

func TestReceiverSlowDownPausesTheEndpoint(t *testing.T) {
	t.Parallel() // its own runtime, and mostly waiting (see main_test.go)
	_, c, s, project := webhookRuntime(t, nil)
	rc := apitest.NewReceiver(t, slowDownOnce("3"))
	ep := c.LimitedEndpoint(rc.URL, `"description":"slow"`)
	c.Contact("+79990020001")
	var shown struct {
		Throttle *webhook.FlowView `json:"throttle"`
	}
	apitest.Eventually(t, 20*time.Second, "the endpoint shows the pause", func() bool {
		c.Get("/public/v1/webhook-endpoints/"+ep.ID).JSON(t, &shown)
		return shown.Throttle != nil
	})
	if shown.Throttle.PausedUntil == "" || shown.Throttle.ThrottledBy != "http_429" || shown.Throttle.EffectiveRate <= 0 {
		t.Fatalf("throttle %+v", *shown.Throttle)
	}
	for i := range 4 {
		c.Contact(fmt.Sprintf("+7999002%04d", i+2))
	}
	paused, _ := time.Parse(time.RFC3339Nano, shown.Throttle.PausedUntil)
	got := allDelivered(t, s, project, ep.ID, 5)
	reqs := rc.Requests()
	for _, r := range reqs[1:] {
		if r.At.Before(paused.Add(-50 * time.Millisecond)) {
			t.Fatalf("a request at %s, during the receiver's pause until %s", r.At.Format(time.RFC3339Nano), paused.Format(time.RFC3339Nano))
		}
	}
	if len(reqs) != 6 {
		t.Fatalf("receiver got %d requests, want 6 (one 429, then five deliveries)", len(reqs))
	}
	var epNow struct {
		ConsecutiveFailures int `json:"consecutive_failures"`
	}
	c.Get("/public/v1/webhook-endpoints/"+ep.ID).JSON(t, &epNow)
	if epNow.ConsecutiveFailures != 0 {
		t.Fatalf("a 429 counted as a failure of the endpoint: %+v", epNow)
	}
	for _, d := range got {
		if d.LastErrorClass == "http_429" && d.Attempts != 2 {
			t.Fatalf("the throttled delivery: %+v", d)
		}
	}
}

func TestEndpointLimitsAreValidated(t *testing.T) {
	_, c, _, _ := webhookRuntime(t, nil)
	rc := apitest.NewReceiver(t, nil)
	ep := c.LimitedEndpoint(rc.URL, `"rate_limit":5`)
	path := "/public/v1/webhook-endpoints/" + ep.ID
	for _, tc := range []struct {
		name, body, field string
	}{
		{"zero", `{"rate_limit":0}`, "rate_limit"},
		{"past the bound", fmt.Sprintf(`{"max_concurrency":%d}`, webhook.MaxMaxConcurrency+1), "max_concurrency"},
		{"a fraction", `{"rate_limit":2.5}`, "rate_limit"},
		{"a string", `{"max_concurrency":"4"}`, "max_concurrency"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.Patch(path, tc.body)
			var e struct {
				Error struct{ Code, Field string }
			}
			r.JSON(t, &e)
			if r.Status != 422 || e.Error.Code != "VALIDATION_FAILED" || e.Error.Field != tc.field {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		})
	}
	if r := c.Post("/public/v1/webhook-endpoints", uuid.NewString(), `{"url":"`+rc.URL+`","events":["*"],"rate_limit":null}`); r.Status != 422 {
		t.Fatalf("null in a creation (nothing to remove): %d %s", r.Status, r.Body)
	}
	r := c.Patch(path, `{"rate_limit":null,"max_concurrency":3}`)
	var got map[string]any
	r.JSON(t, &got)
	if _, has := got["rate_limit"]; r.Status != 200 || has || got["max_concurrency"] != float64(3) {
		t.Fatalf("null removes, a number sets: %d %s", r.Status, r.Body)
	}
	c.Get(path).JSON(t, &got)
	if _, has := got["rate_limit"]; has || got["max_concurrency"] != float64(3) {
		t.Fatalf("stored %v", got)
	}
}
