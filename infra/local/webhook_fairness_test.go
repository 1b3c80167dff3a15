package local_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botix/public-api/infra/apitest"
	"github.com/botix/public-api/infra/dynamotest"
	"github.com/botix/public-api/infra/local"
	"github.com/botix/public-api/infra/localtest"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/store"
)

// One project's backlog does not hold back another project's webhooks:
// the delivery queue's messages carry their project as MessageGroupId
// and the local SQS serves groups as SQS fair queues do. Project A's 300
// webhooks fill the queue while its receiver holds every request it gets
// (all the deliver pollers' batches) until project B's 5 are queued
// behind them too; once A's receiver answers, B's webhooks are the next
// ones delivered, not the last: when B's fifth arrives, A's receiver has
// seen a few pollers' batches, far from all of A's 300 (send order would
// put B after all of them).
func TestOneProjectsBacklogDoesNotHoldBackAnother(t *testing.T) {
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
	floodSeenAtLastQuiet := make(chan int64, 1)
	fast := apitest.NewReceiver(t, func(n int, r *http.Request, w http.ResponseWriter) {
		if n == quiet-1 {
			floodSeenAtLastQuiet <- floodSeen.Load()
		}
		w.WriteHeader(http.StatusNoContent)
	}).Synthetic()
	t.Cleanup(func() {
		select {
		case <-gate:
		default:
			close(gate)
		}
	})
	client{t: t, base: rt.URL, key: keyA, rt: rt}.endpoint(slow.URL)
	client{t: t, base: rt.URL, key: keyB, rt: rt}.endpoint(fast.URL)

	writeTestEvents(t, s, projectA, flood)
	writeTestEvents(t, s, projectB, quiet)
	apitest.Eventually(t, 2*time.Minute, "every webhook queued", func() bool {
		depth, err := rt.QueueDepth(ctx, "DeliveryQueue")
		return err == nil && depth == flood+quiet
	})
	held := floodSeen.Load()
	if len(fast.Requests()) != 0 {
		t.Fatalf("B's webhooks arrived while every poller was held by A's receiver")
	}
	close(gate)

	var seen int64
	select {
	case seen = <-floodSeenAtLastQuiet:
	case <-time.After(2 * time.Minute):
		t.Fatalf("B's %d webhooks did not all arrive", quiet)
	}
	// The pollers' held batches, and at most one more batch per poller
	// taken alongside B's: far below the whole flood.
	if limit := 3 * held; seen > limit || seen >= flood/2 {
		t.Fatalf("A's receiver had seen %d of A's %d webhooks when B's last arrived (%d were held when the gate opened); want B served before A's backlog", seen, flood, held)
	}
	t.Logf("A's receiver held %d requests; had seen %d of %d when B's last webhook arrived", held, seen, flood)
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
