package webhook_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
	"github.com/botix/public-api/internal/webhook/webhooktest"
)

// recoveryBench is an endpoint's deliveries in the fakes, and a Recoverer
// over them.
type recoveryBench struct {
	t          *testing.T
	deliveries *webhooktest.Deliveries
	recoveries *webhooktest.Recoveries
	rc         *webhook.Recoverer
	endpoint   string
	start, now time.Time
}

func newRecoveryBench(t *testing.T) *recoveryBench {
	start := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	b := &recoveryBench{t: t, deliveries: &webhooktest.Deliveries{}, recoveries: &webhooktest.Recoveries{},
		endpoint: ids.New(ids.WebhookEndpoint, start), start: start, now: start.Add(time.Hour)}
	b.rc = &webhook.Recoverer{Deliveries: b.deliveries, Recoveries: b.recoveries, NewID: func(t time.Time) string { return ids.New(ids.Recovery, t) }}
	return b
}

// add stores n deliveries of the endpoint in status, one a millisecond
// after the last one added.
func (b *recoveryBench) add(n int, status webhook.Status) {
	for range n {
		b.start = b.start.Add(time.Millisecond)
		d := webhooktest.DeliveryTo(project, b.endpoint, b.start)
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
	t.Run("a call queues at most MaxRecoveryBatch; the next one continues where it stopped, in the same recovery", func(t *testing.T) {
		b := newRecoveryBench(t)
		b.add(120, webhook.StatusDead)
		b.add(30, webhook.StatusDelivered)
		b.add(130, webhook.StatusRetrying)
		var calls []webhook.RecoveryCall
		for range 3 {
			calls = append(calls, b.recover())
		}
		for i, want := range []struct {
			queued, total int
			more          bool
		}{{100, 100, true}, {100, 200, true}, {50, 250, false}} {
			c := calls[i]
			if c.Queued != want.queued || c.Recovery.Queued != want.total || c.HasMore() != want.more {
				t.Fatalf("call %d: queued %d (total %d, more %v), want %+v", i+1, c.Queued, c.Recovery.Queued, c.HasMore(), want)
			}
		}
		if calls[1].ID != calls[0].ID || calls[2].ID != calls[0].ID {
			t.Fatalf("the calls of one recovery changed its id: %s %s %s", calls[0].ID, calls[1].ID, calls[2].ID)
		}
		b.queuedOnce(250)
	})
	t.Run("a second call while a recovery runs returns it, in its own window", func(t *testing.T) {
		b := newRecoveryBench(t)
		b.add(webhook.MaxRecoveryBatch+1, webhook.StatusDead)
		first := b.recover()
		b.now = b.now.Add(time.Minute)
		second, err := b.rc.Recover(context.Background(), project, b.endpoint, b.now.Add(-time.Minute), b.now)
		if err != nil {
			t.Fatal(err)
		}
		if second.ID != first.ID || !second.Since.Equal(first.Since) || !second.Until.Equal(first.Until) || second.Queued != 1 || second.Recovery.Queued != webhook.MaxRecoveryBatch+1 {
			t.Fatalf("first %+v, second %+v", first, second)
		}
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
	t.Run("a call reads at most MaxRecoveryPages pages of RecoveryPageSize, whatever they hold", func(t *testing.T) {
		b := newRecoveryBench(t)
		b.add(webhook.MaxRecoveryPages*webhook.RecoveryPageSize+5, webhook.StatusDelivered)
		b.add(3, webhook.StatusDead)
		first := b.recover()
		if b.deliveries.Pages != webhook.MaxRecoveryPages || first.Queued != 0 || !first.HasMore() {
			t.Fatalf("%d pages read, %+v", b.deliveries.Pages, first)
		}
		second := b.recover()
		if second.ID != first.ID || second.Queued != 3 || second.HasMore() || b.deliveries.Pages != webhook.MaxRecoveryPages+1 {
			t.Fatalf("the continuation read %d pages in all: %+v", b.deliveries.Pages, second)
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
		if cur, _ := b.recoveries.Current(context.Background(), project, b.endpoint); cur != nil || len(b.recoveries.Steps) != 0 {
			t.Fatalf("saved %+v", cur)
		}
		if c := b.recover(); c.Queued != 3 {
			t.Fatalf("after the failure %+v", c)
		}
	})
}

// TestRecoveryBoundsAsDocumented holds the README, the OpenAPI document,
// the Go SDK and the dashboard to the constants they state.
func TestRecoveryBoundsAsDocumented(t *testing.T) {
	batch, page, pages := strconv.Itoa(webhook.MaxRecoveryBatch), strconv.Itoa(webhook.RecoveryPageSize), strconv.Itoa(webhook.MaxRecoveryPages)
	cooldown := strconv.Itoa(int(webhook.RecoveryCooldown.Minutes())) + " minutes"
	for file, wants := range map[string][]string{
		"../../README.md": {"queues at most " + batch + " of them", "**At most " + batch + " deliveries per call** (`MaxRecoveryBatch`)",
			"`Limit` " + page + " (`RecoveryPageSize`)", "at most " + pages + " pages (`MaxRecoveryPages`)", "for " + cooldown + "\n  (`RecoveryCooldown`)",
			"at most once per " + cooldown},
		"../../sdk/openapi.yaml":         {"A call queues at most " + batch + " deliveries", "maximum: " + batch + ",", "for " + cooldown + " (counted in skipped)", "less than " + cooldown + " before"},
		"../../sdk/go/botix/types.go":    {"A call queues at most " + batch + " failed or dead", "less than " + cooldown + " before"},
		"../dashboard/static/app.js":     {"in the last " + cooldown + " were left alone"},
		"../../sdk/go/botix/services.go": {"at most " + batch + " per call"},
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
