package webhooks_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/internal/webhook"
)

type recoveryReply struct {
	RecoveryID string `json:"recovery_id"`
	Deliveries int    `json:"deliveries"`
	Queued     int    `json:"queued"`
	Skipped    int    `json:"skipped"`
	HasMore    bool   `json:"has_more"`
	Status     string `json:"status"`
}

// TestRecoveryCannotAmplify reproduces the security review: 20 dead
// deliveries, a receiver still broken (503, so every re-sent delivery
// fails again and stays retrying), and ten recover calls, five of them at
// once. The receiver must get each delivery once from the recoveries: 20
// POSTs, not one per call and delivery.
func TestRecoveryCannotAmplify(t *testing.T) {
	rt, c, s, project := webhookRuntime(t, func(cfg *local.Config) {
		// The fresh rounds' own retries come after the test: every POST the
		// receiver counts below is a recovery's.
		cfg.Parameters["WebhookRetrySchedule"] = "1h,1h,1h,1h"
		// A timeout would be retried an hour later too and leave a delivery
		// in round 1: on a loaded machine the attempts get time to finish.
		cfg.Parameters["WebhookConnectTimeout"], cfg.Parameters["WebhookReadTimeout"] = "10s", "10s"
		cfg.VisibilityTimeout["DeliveryQueue"] = 60 * time.Second
		cfg.VisibilityTimeout["BulkDeliveryQueue"] = 60 * time.Second
		cfg.Timeouts["DeliverFunction"] = 30 * time.Second
	})
	start := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	rc := apitest.NewReceiver(t, status(401))
	ep := c.Endpoint(rc.URL, "contact.created")
	const dead = 20
	for i := range dead {
		c.Contact(fmt.Sprintf("+7999002%04d", i))
	}
	apitest.Eventually(t, 3*time.Minute, "20 dead deliveries", func() bool { return len(deadOf(t, s, project, ep.ID)) == dead })
	before := len(rc.Requests())
	rc.SetRespond(status(503))

	body := `{"since":"` + start + `"}`
	replies := make([]recoveryReply, 10)
	call := func(i int) {
		r := c.Post("/public/v1/webhook-endpoints/"+ep.ID+"/recover", uuid.NewString(), body)
		if r.Status != http.StatusAccepted {
			t.Errorf("recover call %d: %d %s", i, r.Status, r.Body)
			return
		}
		r.JSON(t, &replies[i])
	}
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Add(1)
		go func() { defer wg.Done(); call(i) }()
	}
	wg.Wait()
	for i := 5; i < 10; i++ {
		call(i)
	}
	// Settled: the queue drained, and every delivery out of round 1 and
	// not mid-attempt (what the receiver got is then all it gets).
	var state string
	settled := func() bool {
		depth, _ := rt.QueueDepth(t.Context(), "DeliveryQueue")
		rounds := map[string]int{}
		for _, d := range deliveriesOf(t, s, project, ep.ID) {
			rounds[fmt.Sprintf("round %d %s", d.Round, d.Status)]++
		}
		state = fmt.Sprintf("queue depth %d, %d POSTs, deliveries %v", depth, len(rc.Requests())-before, rounds)
		for k := range rounds {
			if strings.HasPrefix(k, "round 1 ") || strings.HasSuffix(k, " pending") {
				return false
			}
		}
		return depth == 0 && len(rc.Requests())-before >= dead
	}
	for deadline := time.Now().Add(3 * time.Minute); !settled(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not settled within 3 minutes: %s", state)
		}
	}
	perDelivery := map[string]int{}
	for _, r := range rc.Requests()[before:] {
		perDelivery[r.Header.Get("Webhook-Id")]++
	}
	posts := len(rc.Requests()) - before
	t.Logf("ten recover calls over %d dead deliveries: %d POSTs to the receiver", dead, posts)
	if posts != dead || len(perDelivery) != dead {
		t.Fatalf("the receiver got %d POSTs for %d deliveries from ten recover calls, want each delivery once (%d)", posts, len(perDelivery), dead)
	}
	queued := 0
	for i, r := range replies {
		queued += r.Queued
		if r.HasMore || r.Status != "completed" || r.Queued > webhook.MaxRecoveryBatch {
			t.Errorf("call %d answered %+v", i, r)
		}
	}
	if queued < dead {
		t.Errorf("the calls queued %d deliveries in all, fewer than the %d dead", queued, dead)
	}
	for _, d := range deliveriesOf(t, s, project, ep.ID) {
		if d.Round != 2 || d.Status != webhook.StatusRetrying {
			t.Errorf("after the recoveries %+v, want round 2, retrying", d)
		}
	}
	r := c.Post("/public/v1/webhook-endpoints/"+ep.ID+"/recover", uuid.NewString(), body)
	var after recoveryReply
	r.JSON(t, &after)
	if r.Status != http.StatusAccepted || after.Skipped != dead || after.Queued != 0 || after.Status != "completed" {
		t.Errorf("a call once the re-sent deliveries failed again: %d %s, want all %d skipped for the cooldown", r.Status, r.Body, dead)
	}
	if n := len(rc.Requests()) - before; n != dead {
		t.Errorf("the receiver got %d POSTs after an eleventh call", n)
	}
}
