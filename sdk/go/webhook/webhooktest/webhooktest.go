// Package webhooktest holds the contract every webhook.Deduplicator must
// meet, as a test helper: run it against your own store (SQL, Redis, ...)
// to know it de-duplicates as the receiver kit expects.
package webhooktest

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botix/public-api/sdk/go/webhook"
)

// Clock is a settable clock for a deduplicator under test: pass its Now
// as the deduplicator's clock and the Clock to WithLease, and the contract
// moves it past the lease instead of waiting. Safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a Clock that reads start until advanced.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Option configures DeduplicatorContract.
type Option func(*config)

type config struct {
	clock *Clock
	lease time.Duration
}

// WithLease tells the contract that the deduplicator reads clock and
// holds a processing claim for lease, which enables the lease cases
// (takeover after a crash). Without it they are skipped.
func WithLease(clock *Clock, lease time.Duration) Option {
	return func(c *config) { c.clock, c.lease = clock, lease }
}

// DeduplicatorContract checks d against what webhook.Handler relies on:
//
//   - of concurrent Begin calls with one id exactly one gets StateUnseen,
//     the others StateProcessing (50 rounds of 4 goroutines);
//   - a copy arriving while the event is processing gets StateProcessing
//     (to be told to retry);
//   - once completed, a copy gets StateDone (to be acknowledged), also
//     after the lease;
//   - after a failure (Forget) a redelivery gets StateUnseen;
//   - with WithLease: after the lease a copy takes the event over
//     (StateUnseen) and holds a new lease, and a late Forget from the
//     processor it replaced does not undo a completion.
//
// d is shared by the cases; each uses fresh ids.
func DeduplicatorContract(t *testing.T, d webhook.Deduplicator, opts ...Option) {
	t.Helper()
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	ctx := context.Background()
	t.Run("concurrent first copies: exactly one processes, the others are told it is processing", func(t *testing.T) { concurrentFirst(t, d) })
	t.Run("a copy while processing is told to retry", func(t *testing.T) {
		id := freshID("processing")
		expect(t, d, id, webhook.StateUnseen, "first copy")
		expect(t, d, id, webhook.StateProcessing, "copy during processing")
		expect(t, d, id, webhook.StateProcessing, "another copy during processing")
	})
	t.Run("a copy after completion is acknowledged and not processed", func(t *testing.T) {
		id := freshID("done")
		expect(t, d, id, webhook.StateUnseen, "first copy")
		must(t, d.Complete(ctx, id))
		expect(t, d, id, webhook.StateDone, "copy after completion")
		if cfg.clock != nil {
			cfg.clock.Advance(cfg.lease + time.Second)
			expect(t, d, id, webhook.StateDone, "copy after completion, past the lease")
		}
	})
	t.Run("after a failure the redelivery is processed", func(t *testing.T) {
		id := freshID("forget")
		expect(t, d, id, webhook.StateUnseen, "first copy")
		must(t, d.Forget(ctx, id))
		expect(t, d, id, webhook.StateUnseen, "redelivery after the failure")
		expect(t, d, id, webhook.StateProcessing, "copy while the redelivery is processing")
		must(t, d.Complete(ctx, id))
		expect(t, d, id, webhook.StateDone, "copy after the redelivery completed")
	})
	t.Run("forgetting an unknown id is no error", func(t *testing.T) {
		must(t, d.Forget(ctx, freshID("unknown")))
	})
	t.Run("after the lease a copy takes a crashed processing over", func(t *testing.T) {
		if cfg.clock == nil {
			t.Skip("pass webhooktest.WithLease(clock, lease) to check the lease")
		}
		id := freshID("lease")
		expect(t, d, id, webhook.StateUnseen, "first copy (its processor then crashes)")
		cfg.clock.Advance(cfg.lease - time.Second)
		expect(t, d, id, webhook.StateProcessing, "copy within the lease")
		cfg.clock.Advance(2 * time.Second)
		expect(t, d, id, webhook.StateUnseen, "copy past the lease takes over")
		expect(t, d, id, webhook.StateProcessing, "copy while the takeover holds its new lease")
	})
	t.Run("a replaced processor's late failure does not undo the completion", func(t *testing.T) {
		if cfg.clock == nil {
			t.Skip("pass webhooktest.WithLease(clock, lease) to check the lease")
		}
		id := freshID("late")
		expect(t, d, id, webhook.StateUnseen, "first copy (its processor stalls)")
		cfg.clock.Advance(cfg.lease + time.Second)
		expect(t, d, id, webhook.StateUnseen, "copy past the lease takes over")
		must(t, d.Complete(ctx, id))
		must(t, d.Forget(ctx, id)) // the stalled first processor fails at last
		expect(t, d, id, webhook.StateDone, "copy after the takeover completed")
	})
}

func expect(t *testing.T, d webhook.Deduplicator, id string, want webhook.State, what string) {
	t.Helper()
	got, err := d.Begin(context.Background(), id)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if got != want {
		t.Fatalf("%s: Begin = %v, want %v", what, got, want)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func concurrentFirst(t *testing.T, d webhook.Deduplicator) {
	const copies = 4
	for round := 0; round < 50; round++ {
		id := freshID(strconv.Itoa(round))
		var unseen, processing atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for g := 0; g < copies; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				state, err := d.Begin(context.Background(), id)
				if err != nil {
					t.Error(err)
				}
				switch state {
				case webhook.StateUnseen:
					unseen.Add(1)
				case webhook.StateProcessing:
					processing.Add(1)
				}
			}()
		}
		close(start)
		wg.Wait()
		if unseen.Load() != 1 || processing.Load() != copies-1 {
			t.Fatalf("round %d: %d copies would process the event, %d were told it is processing (want 1 and %d)", round, unseen.Load(), processing.Load(), copies-1)
		}
	}
}

var seq atomic.Int64

func freshID(tag string) string {
	return "evt_" + tag + strconv.FormatInt(time.Now().UnixNano(), 36) + "_" + strconv.FormatInt(seq.Add(1), 10)
}
