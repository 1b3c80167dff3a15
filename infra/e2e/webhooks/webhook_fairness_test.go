package webhooks_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/store"
)

// One project's flood does not hold back another project's webhooks.
// Project A's 300 events reach the dispatcher in batches of more than
// webhook.BulkAfter, so their webhooks go on the bulk lane, whose
// consumers are capped (the deliver function's BulkQueue event); A's
// receiver holds every request it gets. Project B's 5 webhooks, on the
// delivery queue, arrive meanwhile: A's flood held the bulk lane's
// consumers (at most their batches' worth of requests), none of the
// delivery queue's, and A's deliveries were stored only as those
// consumers took them (webhook.Message.Pending). Within a lane, the fair
// queue orders tenants (infra/run/awsemu's fair-queue tests, and the project
// as MessageGroupId on every send: internal/awsqueue).
func TestOneProjectsFloodDoesNotHoldBackAnother(t *testing.T) {
	const flood, quiet = 300, 5
	ctx := context.Background()
	// A's held requests must outlast the dispatch of every event on a
	// busy machine: no read timeout (and retry) meanwhile.
	rt := localtest.Runtime(t, local.Config{
		Env:        map[string]string{"WEBHOOK_ALLOW_LOOPBACK": "true"},
		Parameters: map[string]string{"WebhookReadTimeout": "4m"},
		Timeouts:   map[string]time.Duration{"DeliverFunction": 5 * time.Minute},
	})
	s := store.New(rt.DynamoDB(), dynamotest.TablesOf(rt.Tables()))
	projectA, keyA := localtest.Project(t, rt, "")
	projectB, keyB := localtest.Project(t, rt, "")

	gate := make(chan struct{})
	var floodSeen atomic.Int64
	slow := apitest.NewReceiver(t, func(n int, r *http.Request, w http.ResponseWriter) {
		floodSeen.Add(1)
		<-gate
		w.WriteHeader(http.StatusNoContent)
	}).Synthetic()
	fast := apitest.NewReceiver(t, func(n int, r *http.Request, w http.ResponseWriter) {
		w.WriteHeader(http.StatusNoContent)
	}).Synthetic()
	t.Cleanup(func() {
		select {
		case <-gate:
		default:
			close(gate)
		}
	})
	clientA := localtest.Client{T: t, Base: rt.URL, Key: keyA, RT: rt}
	clientA.Endpoint(slow.URL)
	localtest.Client{T: t, Base: rt.URL, Key: keyB, RT: rt}.Endpoint(fast.URL)

	writeTestEvents(t, s, projectA, flood)
	apitest.Eventually(t, 2*time.Minute, "A's webhooks queued on the bulk lane", func() bool {
		depth, err := rt.QueueDepth(ctx, "BulkDeliveryQueue")
		return err == nil && depth == flood
	})
	writeTestEvents(t, s, projectB, quiet)
	apitest.Eventually(t, 2*time.Minute, "B's webhooks delivered while A's receiver holds A's", func() bool {
		return len(fast.Requests()) == quiet
	})
	// The bulk lane's consumers hold at most a batch each, and A's flood
	// stored only the deliveries they hold: the rest travel in their
	// messages until their turn.
	held, consumers := floodSeen.Load(), bulkConsumers(t)
	if held > int64(consumers*10) {
		t.Fatalf("A's receiver holds %d requests, more than the bulk lane's %d consumers' batches of 10 (%d)", held, consumers, consumers*10)
	}
	if stored := len(clientA.List("/public/v1/webhook-deliveries?cursor_limit=100").Data); stored > consumers*10 {
		t.Fatalf("%d of A's deliveries stored while its consumers hold %d: a flood's deliveries are stored as their turn comes", stored, held)
	}
	t.Logf("A's receiver held %d requests while B's %d webhooks arrived", held, quiet)
}

// bulkConsumers is the template's cap on the bulk lane's consumers (the
// runtime's pollers of BulkDeliveryQueue: below its default of 4).
func bulkConsumers(t *testing.T) int {
	t.Helper()
	tpl, err := template.LoadRepo()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tpl.Functions()["DeliverFunction"].Events() {
		if e.Name == "BulkQueue" {
			n, _ := e.Properties["ScalingConfig"].(map[string]any)["MaximumConcurrency"].(int)
			return n
		}
	}
	t.Fatal("DeliverFunction has no BulkQueue event")
	return 0
}

// writeTestEvents writes n events of a project straight into the store,
// 50 to a transaction (the receivers of such events are Synthetic).
func writeTestEvents(t *testing.T, s *store.Store, project string, n int) {
	t.Helper()
	for start := 0; start < n; start += 50 {
		var plan store.Plan
		for i := start; i < min(start+50, n); i++ {
			if err := s.AddEvent(&plan, store.NewEvent(project, domain.EventMessageSent, fmt.Appendf(nil, `{"id":"msg_%d"}`, i), time.Now()), ""); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Commit(context.Background(), plan); err != nil {
			t.Fatal(err)
		}
	}
}
