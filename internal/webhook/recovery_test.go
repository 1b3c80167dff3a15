package webhook_test

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/infra/testkit/docs"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
	"github.com/botix/public-api/internal/webhook/webhooktest"
)

// recoveryBench is an endpoint's deliveries in the fakes, a Recoverer
// over them, and the Continuer that takes the steps after the first.
type recoveryBench struct {
	t          *testing.T
	deliveries *webhooktest.Deliveries
	recoveries *webhooktest.Recoveries
	endpoints  *webhooktest.Endpoints
	rc         *webhook.Recoverer
	cont       *webhook.Continuer
	endpoint   webhook.Endpoint
	start, now time.Time
}

func newRecoveryBench(t *testing.T) *recoveryBench {
	start := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	b := &recoveryBench{t: t, deliveries: &webhooktest.Deliveries{}, recoveries: &webhooktest.Recoveries{}, endpoints: &webhooktest.Endpoints{},
		endpoint: webhooktest.NewEndpoint(start), start: start, now: start.Add(time.Hour)}
	b.endpoints.Put(project, b.endpoint)
	b.rc = &webhook.Recoverer{Deliveries: b.deliveries, Recoveries: b.recoveries, NewID: func(t time.Time) string { return ids.New(ids.Recovery, t) }}
	b.cont = &webhook.Continuer{Recoverer: b.rc, Endpoints: b.endpoints, Log: slog.New(slog.DiscardHandler), Now: func() time.Time { return b.now }}
	return b
}

// add stores n deliveries of the endpoint in status, one a millisecond
// after the last one added.
func (b *recoveryBench) add(n int, status webhook.Status) {
	for range n {
		b.start = b.start.Add(time.Millisecond)
		d := webhooktest.DeliveryTo(project, b.endpoint.ID, b.start)
		d.Status = status
		if _, err := b.deliveries.Create(context.Background(), d); err != nil {
			b.t.Fatal(err)
		}
	}
}

func (b *recoveryBench) recover() webhook.RecoveryCall {
	b.t.Helper()
	call, err := b.rc.Recover(context.Background(), project, b.endpoint, b.start.Add(-time.Hour), b.now)
	if err != nil {
		b.t.Fatal(err)
	}
	return call
}

// continuation is the message of the last step's continuation (nil: the
// last step completed its recovery).
func (b *recoveryBench) continuation() *webhook.Message {
	if len(b.recoveries.Requests) == 0 {
		return nil
	}
	k := b.recoveries.Requests[len(b.recoveries.Requests)-1].Continuation
	if k == nil {
		return nil
	}
	return &webhook.Message{ProjectID: project, Continuation: k}
}

// follow hands each continuation to the Continuer when it is due, as
// the delivery queue does, until the recovery completes, and returns the
// recovery's queued count after each step (the recover call's first).
func (b *recoveryBench) follow() []int {
	b.t.Helper()
	cur, _ := b.recoveries.Current(context.Background(), project, b.endpoint.ID)
	steps := []int{cur.Queued}
	for m := b.continuation(); m != nil; m = b.continuation() {
		if len(steps) > 100 {
			b.t.Fatal("the recovery does not end")
		}
		b.now = m.Continuation.At
		if d := b.cont.Handle(context.Background(), *m); !d.Done {
			b.t.Fatalf("continuation %+v: %+v", m.Continuation, d)
		}
		cur, _ := b.recoveries.Current(context.Background(), project, b.endpoint.ID)
		steps = append(steps, cur.Queued)
	}
	return steps
}

// queuedOnce checks that the steps queued each delivery of ids once.
func (b *recoveryBench) queuedOnce(want int) {
	b.t.Helper()
	seen := map[string]int{}
	for _, step := range b.recoveries.Steps {
		if len(step) > webhook.MaxRecoveryBatch {
			b.t.Fatalf("a step of %d redrives, over the cap of %d", len(step), webhook.MaxRecoveryBatch)
		}
		for _, m := range step {
			if seen[m.DeliveryID]++; seen[m.DeliveryID] > 1 {
				b.t.Fatalf("%s queued twice", m.DeliveryID)
			}
		}
	}
	if len(seen) != want {
		b.t.Fatalf("%d deliveries queued, want %d", len(seen), want)
	}
}

func TestRecovererBounds(t *testing.T) {
	t.Run("a call takes the first step of at most MaxRecoveryBatch; continuations take the rest, in the same recovery", func(t *testing.T) {
		b := newRecoveryBench(t)
		b.add(120, webhook.StatusDead)
		b.add(30, webhook.StatusDelivered)
		b.add(130, webhook.StatusRetrying)
		first := b.recover()
		if first.Queued != webhook.MaxRecoveryBatch || !first.HasMore() || first.NextStepAt.IsZero() {
			t.Fatalf("the call: %+v", first)
		}
		if steps := b.follow(); !slices.Equal(steps, []int{100, 200, 250}) {
			t.Fatalf("queued after each step %v, want [100 200 250]", steps)
		}
		cur, _ := b.recoveries.Current(context.Background(), project, b.endpoint.ID)
		if cur.ID != first.ID || cur.Status != webhook.RecoveryCompleted || !cur.NextStepAt.IsZero() {
			t.Fatalf("after the continuations %+v", cur)
		}
		b.queuedOnce(250)
	})
	t.Run("a second call while a recovery runs returns it as it stands, in its own window", func(t *testing.T) {
		b := newRecoveryBench(t)
		b.add(webhook.MaxRecoveryBatch+1, webhook.StatusDead)
		first := b.recover()
		b.now = b.now.Add(time.Second)
		second, err := b.rc.Recover(context.Background(), project, b.endpoint, b.now.Add(-time.Minute), b.now)
		if err != nil {
			t.Fatal(err)
		}
		if second.ID != first.ID || !second.Since.Equal(first.Since) || !second.Until.Equal(first.Until) || second.Queued != 0 || second.Recovery.Queued != webhook.MaxRecoveryBatch || len(b.recoveries.Requests) != 1 {
			t.Fatalf("first %+v, second %+v", first, second)
		}
		if steps := b.follow(); !slices.Equal(steps, []int{100, 101}) {
			t.Fatalf("steps %v", steps)
		}
	})
	t.Run("a call after the recovery stalled takes its next step; the late continuation then queues nothing", func(t *testing.T) {
		b := newRecoveryBench(t)
		b.add(2*webhook.MaxRecoveryBatch+1, webhook.StatusDead)
		first := b.recover()
		lost := b.continuation()
		b.now = first.NextStepAt.Add(webhook.RecoveryStall + time.Second)
		resumed := b.recover()
		if resumed.ID != first.ID || resumed.Queued != webhook.MaxRecoveryBatch || resumed.Recovery.Queued != 2*webhook.MaxRecoveryBatch {
			t.Fatalf("the resuming call %+v", resumed)
		}
		if d := b.cont.Handle(context.Background(), *lost); !d.Done || len(b.recoveries.Steps) != 2 {
			t.Fatalf("the late continuation: %+v, %d steps", d, len(b.recoveries.Steps))
		}
		if steps := b.follow(); !slices.Equal(steps, []int{200, 201}) {
			t.Fatalf("steps %v", steps)
		}
		b.queuedOnce(2*webhook.MaxRecoveryBatch + 1)
	})
	t.Run("two concurrent calls: the one that saves second queues nothing and answers the winner's recovery", func(t *testing.T) {
		b := newRecoveryBench(t)
		b.add(20, webhook.StatusDead)
		var winner webhook.RecoveryCall
		b.recoveries.BeforeSave = func() { winner = b.recover() } // the other instance, between our read and our write
		loser := b.recover()
		if winner.Queued != 20 || loser.ID != winner.ID || loser.Queued != 0 || loser.Recovery.Queued != 20 {
			t.Fatalf("winner %+v, loser %+v", winner, loser)
		}
		if len(b.recoveries.Steps) != 1 {
			t.Fatalf("%d steps written, want the winner's only", len(b.recoveries.Steps))
		}
		b.queuedOnce(20)
	})
	t.Run("a step reads at most MaxRecoveryPages pages of RecoveryPageSize, whatever they hold", func(t *testing.T) {
		b := newRecoveryBench(t)
		b.add(webhook.MaxRecoveryPages*webhook.RecoveryPageSize+5, webhook.StatusDelivered)
		b.add(3, webhook.StatusDead)
		first := b.recover()
		if b.deliveries.Pages != webhook.MaxRecoveryPages || first.Queued != 0 || !first.HasMore() || !first.NextStepAt.Equal(b.now) {
			t.Fatalf("%d pages read, %+v", b.deliveries.Pages, first)
		}
		if steps := b.follow(); !slices.Equal(steps, []int{0, 3}) || b.deliveries.Pages != webhook.MaxRecoveryPages+1 {
			t.Fatalf("the continuation read %d pages in all: steps %v", b.deliveries.Pages, steps)
		}
		b.queuedOnce(3)
	})
	t.Run("a failing read saves nothing", func(t *testing.T) {
		b := newRecoveryBench(t)
		b.add(3, webhook.StatusDead)
		b.deliveries.Fail("FailedPage", context.DeadlineExceeded, 1)
		if _, err := b.rc.Recover(context.Background(), project, b.endpoint, b.start.Add(-time.Hour), b.now); err == nil {
			t.Fatal("no error")
		}
		if cur, _ := b.recoveries.Current(context.Background(), project, b.endpoint.ID); cur != nil || len(b.recoveries.Steps) != 0 {
			t.Fatalf("saved %+v", cur)
		}
		if c := b.recover(); c.Queued != 3 {
			t.Fatalf("after the failure %+v", c)
		}
	})
}

// TestRecoveryBoundsAsDocumented holds the guides, the OpenAPI document,
// the Go SDK and the dashboard to the constants they state.
func TestRecoveryBoundsAsDocumented(t *testing.T) {
	batch, page, pages := strconv.Itoa(webhook.MaxRecoveryBatch), strconv.Itoa(webhook.RecoveryPageSize), strconv.Itoa(webhook.MaxRecoveryPages)
	cooldown := strconv.Itoa(int(webhook.RecoveryCooldown.Minutes())) + " minutes"
	pace, stall := strconv.Itoa(webhook.DefaultRecoveryPace), strconv.Itoa(int(webhook.RecoveryStall.Minutes()))+" minutes"
	for file, wants := range map[string][]string{
		"../../" + docs.Integrators: {"queues at most " + batch + " of them", "**At most " + batch + " deliveries per step** (`MaxRecoveryBatch`)",
			pace + " deliveries per second (`DefaultRecoveryPace`", "more than " + stall + " late\n  (`RecoveryStall`)",
			"`Limit` " + page + " (`RecoveryPageSize`)", "at most " + pages + " pages (`MaxRecoveryPages`)", "for " + cooldown + "\n  (`RecoveryCooldown`)",
			"at most once per " + cooldown},
		"../../" + docs.Operators:            {"parameter `WebhookRecoveryPace`, " + pace + ")", "| `WEBHOOK_RECOVERY_PACE` | `" + pace + "` |"},
		"../../sdk/openapi.yaml":             {"A call queues at most " + batch + " deliveries", "maximum: " + batch + ",", "for " + cooldown + " (counted in skipped)", "less than " + cooldown + " before"},
		"../../sdk/go/botix/types.go":        {"A call queues at most " + batch + " failed or dead", "less than " + cooldown + " before"},
		"../dashboard/static/dead-letter.js": {"in the last " + cooldown + " were left alone"},
		"../../sdk/go/botix/services.go":     {"at most " + batch + " per call"},
	} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range wants {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s does not say %q", file, w)
			}
		}
	}
}
