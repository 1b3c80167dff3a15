package botix_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/botix/public-api/sdk/go/botix"
)

// bodies is an API that answers every request with answer and records the
// JSON bodies it got.
func bodies(t *testing.T, answer string) (*botix.Client, *[]string) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, string(b))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return botix.NewClient("bx_test", botix.WithBaseURL(srv.URL)), &got
}

// TestEndpointLimitsSent: create sends the limits it is given; an update
// leaves a nil limit out, sends LimitTo's number and NoLimit's null.
func TestEndpointLimitsSent(t *testing.T) {
	ctx := context.Background()
	c, got := bodies(t, `{"id":"we_1"}`)
	if _, err := c.WebhookEndpoints.Create(ctx, botix.WebhookEndpointCreate{URL: "https://example.com/h", Events: []string{"*"}, RateLimit: 20, MaxConcurrency: 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WebhookEndpoints.Create(ctx, botix.WebhookEndpointCreate{URL: "https://example.com/h", Events: []string{"*"}}); err != nil {
		t.Fatal(err)
	}
	desc := "d"
	for _, u := range []botix.WebhookEndpointUpdate{
		{Description: &desc},
		{RateLimit: botix.LimitTo(50)},
		{RateLimit: botix.NoLimit(), MaxConcurrency: botix.LimitTo(2)},
		{MaxConcurrency: botix.NoLimit()},
	} {
		if _, err := c.WebhookEndpoints.Update(ctx, "we_1", u); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		`{"url":"https://example.com/h","events":["*"],"rate_limit":20,"max_concurrency":4}`,
		`{"url":"https://example.com/h","events":["*"]}`,
		`{"description":"d"}`,
		`{"rate_limit":50}`,
		`{"rate_limit":null,"max_concurrency":2}`,
		`{"max_concurrency":null}`,
	}
	for i, w := range want {
		t.Run(w, func(t *testing.T) {
			if i >= len(*got) || (*got)[i] != w {
				t.Fatalf("sent %q", *got)
			}
		})
	}
}

// TestEndpointLimitsRead: the limits and the receiver's throttle decode;
// an endpoint without them has zero limits and no throttle.
func TestEndpointLimitsRead(t *testing.T) {
	cases := []struct {
		name, answer   string
		rate, inFlight int
		throttle       *botix.EndpointThrottle
	}{
		{"no limits, no throttle", `{"id":"we_1"}`, 0, 0, nil},
		{"limits", `{"id":"we_1","rate_limit":20,"max_concurrency":4}`, 20, 4, nil},
		{"paused by a 429", `{"id":"we_1","rate_limit":20,"throttle":{"paused_until":"2026-12-01T10:00:30Z","throttled_by":"http_429"}}`, 20, 0,
			&botix.EndpointThrottle{PausedUntil: "2026-12-01T10:00:30Z", ThrottledBy: "http_429"}},
		{"slowed by a 503", `{"id":"we_1","throttle":{"effective_rate":5.2,"throttled_by":"http_503"}}`, 0, 0,
			&botix.EndpointThrottle{EffectiveRate: 5.2, ThrottledBy: "http_503"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := bodies(t, tc.answer)
			e, err := c.WebhookEndpoints.Get(context.Background(), "we_1")
			if err != nil {
				t.Fatal(err)
			}
			if e.RateLimit != tc.rate || e.MaxConcurrency != tc.inFlight {
				t.Fatalf("limits %d/s, %d in flight", e.RateLimit, e.MaxConcurrency)
			}
			if (e.Throttle == nil) != (tc.throttle == nil) || e.Throttle != nil && *e.Throttle != *tc.throttle {
				t.Fatalf("throttle %+v", e.Throttle)
			}
		})
	}
}

// TestEndpointHealthRead: the health object decodes; an answer without it
// (a creation's) has none.
func TestEndpointHealthRead(t *testing.T) {
	c, _ := bodies(t, `{"id":"we_1","health":{"state":"failing","cause":"http_403","since":"2026-12-01T09:00:41.907Z","failed_attempts":4}}`)
	e, err := c.WebhookEndpoints.Get(context.Background(), "we_1")
	if err != nil {
		t.Fatal(err)
	}
	want := botix.EndpointHealth{State: "failing", Cause: "http_403", Since: "2026-12-01T09:00:41.907Z", FailedAttempts: 4}
	if e.Health == nil || *e.Health != want {
		t.Fatalf("health %+v", e.Health)
	}
	c, _ = bodies(t, `{"id":"we_1"}`)
	if e, err = c.WebhookEndpoints.Get(context.Background(), "we_1"); err != nil || e.Health != nil {
		t.Fatalf("health %+v, %v", e.Health, err)
	}
}

// TestRecoveryProgressRead: an endpoint's recovery decodes with how its
// rounds ended.
func TestRecoveryProgressRead(t *testing.T) {
	c, _ := bodies(t, `{"id":"we_1","recovery":{"id":"rcv_1","status":"running","since":"s","until":"u","queued":100,"skipped":2,"delivered":61,"failed":3,"created_at":"c","updated_at":"u"}}`)
	e, err := c.WebhookEndpoints.Get(context.Background(), "we_1")
	if err != nil {
		t.Fatal(err)
	}
	if r := e.Recovery; r == nil || r.Queued != 100 || r.Delivered != 61 || r.Failed != 3 || r.Skipped != 2 {
		t.Fatalf("recovery %+v", r)
	}
}

// TestLimitMarshal: a Limit on its own is its number or null.
func TestLimitMarshal(t *testing.T) {
	for _, tc := range []struct {
		l    *botix.Limit
		want string
	}{{botix.LimitTo(1), "1"}, {botix.LimitTo(1000), "1000"}, {botix.NoLimit(), "null"}, {botix.LimitTo(0), "null"}} {
		b, err := json.Marshal(tc.l)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s, %v; want %s", b, err, tc.want)
		}
	}
}

// TestDeliveryListFilters: the id filters reach the query.
func TestDeliveryListFilters(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.RawQuery
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"data":[],"next_cursor":null,"has_more":false}`)
	}))
	t.Cleanup(srv.Close)
	c := botix.NewClient("bx_test", botix.WithBaseURL(srv.URL))
	if _, err := c.Deliveries.List(context.Background(), botix.DeliveryListParams{EventID: "evt_1", DeliveryID: "dlv_1", RequestID: "req_1"}); err != nil {
		t.Fatal(err)
	}
	if got != "delivery_id=dlv_1&event_id=evt_1&request_id=req_1" {
		t.Fatalf("query %q", got)
	}
}
