package webhooks_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
)

// TestChaos: 2,000 events through a receiver that fails 30% of attempts
// (5xx, too slow, connection reset). Every delivery ends delivered or
// dead (and then in the DLQ); none is lost; no attempt reaches the
// receiver twice unless a deliver invocation ran to its deadline (which
// Lambda would retry too).
func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("chaos run skipped with -short")
	}
	const events = 2000
	// No crash is injected here, so the deliver function gets headroom (a
	// 20 s timeout for attempts of at most a few seconds, 30 s visibility):
	// an attempt that outlives its deadline may legitimately be repeated,
	// and the runtime counts such invocations (Overruns).
	rt, c, s, project := webhookRuntime(t, func(cfg *local.Config) {
		cfg.QueuePollers = 8
		cfg.Timeouts["DeliverFunction"] = 20 * time.Second
		// The events come 50 to a transaction: their webhooks go on the
		// bulk lane, given the delivery queue's pollers and visibility here.
		cfg.MaximumConcurrency = map[string]int{"BulkDeliveryQueue": 8}
		cfg.VisibilityTimeout["DeliveryQueue"] = 30 * time.Second
		cfg.VisibilityTimeout["BulkDeliveryQueue"] = 30 * time.Second
	})
	ctx := context.Background()
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(1, 2))
	modes := map[string]int{}
	rc := apitest.NewReceiver(t, func(n int, r *http.Request, w http.ResponseWriter) {
		mu.Lock()
		x, mode := rng.Float64(), ""
		if x < 0.3 {
			mode = []string{"5xx", "slow", "reset"}[int(x*10)%3]
		} else {
			mode = "ok"
		}
		modes[mode]++
		mu.Unlock()
		switch mode {
		case "5xx":
			w.WriteHeader(503)
		case "slow":
			time.Sleep(1200 * time.Millisecond) // past the 1 s read timeout
			w.WriteHeader(200)
		case "reset":
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
		default:
			w.WriteHeader(200)
		}
	}).Synthetic() // its events are written straight into the store
	ep := c.Endpoint(rc.URL)

	start := time.Now()
	for i := 0; i < events; i += 50 {
		var plan store.Plan
		for j := i; j < i+50; j++ {
			ev := store.NewEvent(project, domain.EventMessageSent, []byte(fmt.Sprintf(`{"id":"msg_%d"}`, j)), time.Now())
			if err := s.AddEvent(&plan, ev, ""); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Commit(ctx, plan); err != nil {
			t.Fatal(err)
		}
	}
	var ds []webhook.Delivery
	apitest.Eventually(t, 8*time.Minute, "every delivery delivered or dead", func() bool {
		ds = allDeliveries(t, s, project, ep.ID)
		if len(ds) < events {
			return false
		}
		for _, d := range ds {
			if d.Status != webhook.StatusDelivered && d.Status != webhook.StatusDead {
				return false
			}
		}
		return true
	})
	elapsed := time.Since(start)
	if len(ds) != events {
		t.Fatalf("%d deliveries for %d events", len(ds), events)
	}
	delivered, dead, attempts := 0, 0, 0
	for _, d := range ds {
		attempts += d.Attempts
		if d.Status == webhook.StatusDelivered {
			delivered++
		} else {
			dead++
		}
	}
	apitest.Eventually(t, 10*time.Second, "dead deliveries in the DLQ", func() bool { n, _ := rt.QueueDepth(ctx, "DeadLetterQueue"); return n == dead })
	seen := map[string]int{}
	for _, r := range rc.Requests() {
		seen[r.Header.Get("Webhook-Id")+"/"+r.Header.Get("X-Delivery-Attempt")]++
	}
	repeats := 0
	for k, n := range seen {
		if n > 1 {
			repeats += n - 1
			t.Logf("attempt %s reached the receiver %d times", k, n)
		}
	}
	// An invocation that runs to its deadline (a starved machine) returns
	// its batch to the queue, and Lambda would repeat its attempts too; the
	// guarantee is that nothing else does.
	if over := rt.Overruns("DeliverFunction"); repeats > 0 && over == 0 {
		t.Fatalf("%d attempts reached the receiver twice, and no deliver invocation ran to its deadline", repeats)
	} else if repeats > 0 {
		t.Logf("%d repeated attempts, after %d deliver invocations ran to their deadline (the machine was starved)", repeats, over)
	}
	if len(seen) != attempts {
		t.Fatalf("receiver saw %d distinct attempts, the log records %d", len(seen), attempts)
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("chaos: %d events -> %d delivered, %d dead (in the DLQ), %d attempts (%.2f per delivery), receiver answers %v, %s",
		events, delivered, dead, attempts, float64(attempts)/events, modes, elapsed.Round(time.Second))
}

// allDeliveries reads every delivery of an endpoint.
func allDeliveries(t *testing.T, s *store.Store, project, endpointID string) []webhook.Delivery {
	t.Helper()
	var out []webhook.Delivery
	var start map[string]string
	for {
		res, err := store.ReadPage(context.Background(), s, store.DeliveriesQuery(project, store.DeliveryFilter{EndpointID: endpointID}), start, 200)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res.Items...)
		if !res.HasMore {
			return out
		}
		start = res.Next
	}
}
