package webhooks_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/webhook"
)

// TestHealthEventsReachTheOwner: an endpoint that fails past the
// threshold, recovers, then answers 410 makes the deliver function
// announce failing, recovered and disabled, each once (in the events API
// and at the owner's endpoint), while the failing endpoint, subscribed to
// everything, never hears of its own trouble. The deliver function's
// clock is moved past FailingFor, so that the streak is old enough
// without waiting for it.
func TestHealthEventsReachTheOwner(t *testing.T) {
	var ahead atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	_, c, _, _ := webhookRuntime(t, func(cfg *local.Config) {
		cfg.FunctionOptions = map[string][]app.Option{"DeliverFunction": {app.WithClock(clock)}}
	})
	var answer atomic.Int64
	answer.Store(503)
	failingRC := apitest.NewReceiver(t, func(_ int, _ *http.Request, w http.ResponseWriter) { w.WriteHeader(int(answer.Load())) })
	ownerRC := apitest.NewReceiver(t, status(200))
	failing := c.Endpoint(failingRC.URL)
	c.Endpoint(ownerRC.URL, domain.HealthEventTypes...)

	// contacts creates n contacts at once, each one delivery to the
	// failing endpoint.
	sent := 0
	contacts := func(n int) {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { c.Contact(fmt.Sprintf("+7999000%04d", sent+i)) })
		}
		wg.Wait()
		sent += n
	}
	ownerGot := func() []string {
		var out []string
		for _, r := range ownerRC.Requests() {
			out = append(out, r.Header.Get("X-Botix-Event"))
		}
		return out
	}
	waitOwner := func(want ...string) {
		t.Helper()
		apitest.Eventually(t, 30*time.Second, fmt.Sprintf("the owner's endpoint gets %v", want), func() bool { return len(ownerGot()) >= len(want) })
		if got := ownerGot(); !slices.Equal(got, want) {
			t.Fatalf("the owner's endpoint got %v, want %v", got, want)
		}
	}

	contacts(webhook.FailingAttempts)
	apitest.Eventually(t, 30*time.Second, "a streak of failures", func() bool {
		var ep struct {
			ConsecutiveFailures int `json:"consecutive_failures"`
		}
		c.Read("/public/v1/webhook-endpoints/"+failing.ID, &ep)
		return ep.ConsecutiveFailures >= webhook.FailingAttempts
	})
	ahead.Store(int64(webhook.FailingFor + time.Minute))
	// Several failures past the threshold at once, on concurrent
	// invocations: one announcement.
	contacts(4)
	waitOwner(domain.EventEndpointFailing)
	var ev domain.Event
	if err := json.Unmarshal(ownerRC.Requests()[0].Body, &ev); err != nil {
		t.Fatal(err)
	}
	var data webhook.HealthData
	if err := json.Unmarshal(ev.Data, &data); err != nil || data.EndpointID != failing.ID || data.URL != failingRC.URL || data.LastErrorClass != "http_503" ||
		data.ConsecutiveFailures < webhook.FailingAttempts || data.FailingSince == "" {
		t.Fatalf("failing data %s (%v)", ev.Data, err)
	}

	answer.Store(200)
	contacts(2)
	waitOwner(domain.EventEndpointFailing, domain.EventEndpointRecovered)

	answer.Store(410)
	contacts(1)
	waitOwner(domain.EventEndpointFailing, domain.EventEndpointRecovered, domain.EventEndpointDisabled)

	for _, typ := range []string{domain.EventEndpointFailing, domain.EventEndpointRecovered, domain.EventEndpointDisabled} {
		if page := c.List("/public/v1/events?type=" + typ); len(page.Data) != 1 {
			t.Errorf("the events API lists %d %s events, want 1", len(page.Data), typ)
		}
	}
	for _, r := range failingRC.Requests() {
		if typ := r.Header.Get("X-Botix-Event"); slices.Contains(domain.HealthEventTypes, typ) {
			t.Fatalf("the failing endpoint was sent %s about itself", typ)
		}
	}
	var got struct {
		Enabled        bool   `json:"enabled"`
		DisabledReason string `json:"disabled_reason"`
	}
	c.Read("/public/v1/webhook-endpoints/"+failing.ID, &got)
	if got.Enabled || got.DisabledReason != "the endpoint answered 410 Gone" {
		t.Fatalf("failing endpoint %+v", got)
	}
}
