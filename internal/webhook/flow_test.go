package webhook_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/webhook"
)

var flowNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func ms(d time.Duration) int64 { return flowNow.Add(d).UnixMilli() }

func TestPlanAdmit(t *testing.T) {
	until := flowNow.Add(time.Minute)
	tickets := func(slots ...int64) []webhook.Ticket {
		out := make([]webhook.Ticket, len(slots))
		for i, s := range slots {
			out[i] = webhook.Ticket{Slot: s}
		}
		return out
	}
	type want struct {
		run   int
		waits []time.Duration // of the deferred, in order
		next  int64           // the state's Next after the plan (0: no write)
		take  int
		// spread: the waits are jittered, in [wait, wait+spread).
		spread time.Duration
	}
	for _, tc := range []struct {
		name    string
		ep      webhook.Endpoint
		tickets []webhook.Ticket
		want    want
	}{
		{"no limits: everything runs, nothing is written", webhook.Endpoint{}, tickets(0, 0, 0), want{run: 3}},
		{"rate 2/s from idle: a second's burst runs, the rest is reserved at the pace",
			webhook.Endpoint{RateLimit: 2}, tickets(0, 0, 0, 0, 0),
			want{run: 2, waits: []time.Duration{time.Second, 1500 * time.Millisecond, 2 * time.Second}, next: ms(2500 * time.Millisecond)}},
		{"rate 2/s behind earlier reservations: queue after them",
			webhook.Endpoint{RateLimit: 2, Flow: webhook.Flow{Version: 3, Next: ms(5 * time.Second)}}, tickets(0, 0),
			want{waits: []time.Duration{5 * time.Second, 5500 * time.Millisecond}, next: ms(6 * time.Second)}},
		{"a reservation that is due runs without reserving again",
			webhook.Endpoint{RateLimit: 2, Flow: webhook.Flow{Version: 3, Next: ms(10 * time.Second)}}, tickets(ms(0), ms(-200*time.Millisecond)),
			want{run: 2}},
		{"a reservation not yet due waits for it",
			webhook.Endpoint{RateLimit: 2, Flow: webhook.Flow{Version: 3, Next: ms(10 * time.Second)}}, tickets(ms(5 * time.Second)),
			want{waits: []time.Duration{5 * time.Second}}},
		{"past the farthest start given: look again about then, without a place",
			webhook.Endpoint{RateLimit: 1, Flow: webhook.Flow{Version: 3, Next: ms(webhook.MaxReserve + 10*time.Second)}}, tickets(0),
			want{waits: []time.Duration{10 * time.Second}, spread: webhook.MaxReserve / 2}},
		{"a delivery back long after its start is given a new one",
			webhook.Endpoint{RateLimit: 2, Flow: webhook.Flow{Version: 3, Next: ms(0)}}, tickets(ms(-2*time.Second), ms(-100*time.Millisecond)),
			want{run: 2, next: ms(500 * time.Millisecond)}},
		{"paused by the receiver: everything waits past the pause, at the lowered pace",
			webhook.Endpoint{Flow: webhook.Flow{Version: 1, PausedUntil: ms(30 * time.Second), Rate: 4, DecreasedAt: ms(0)}}, []webhook.Ticket{{}, {Slot: ms(time.Second), Of: ms(0)}, {Slot: ms(40 * time.Second), Of: ms(0)}},
			want{waits: []time.Duration{30 * time.Second, 30250 * time.Millisecond, 40 * time.Second}, next: ms(30500 * time.Millisecond)}},
		{"a slow-down since the start was given voids it: queue again at the lower pace",
			webhook.Endpoint{Flow: webhook.Flow{Version: 2, Next: ms(0), Rate: 2, DecreasedAt: ms(0)}}, []webhook.Ticket{{Slot: ms(200 * time.Millisecond), Of: ms(-time.Hour)}, {Slot: ms(300 * time.Millisecond), Of: ms(-time.Hour)}, {Slot: ms(400 * time.Millisecond), Of: ms(-time.Hour)}},
			want{run: 2, waits: []time.Duration{time.Second}, next: ms(1500 * time.Millisecond)}},
		{"concurrency 3 with two live leases: one lease for the batch",
			webhook.Endpoint{MaxConcurrency: 3, Leases: webhook.Leases{0: ms(time.Minute), 2: ms(time.Minute), 1: ms(-time.Second)}}, tickets(0, 0, 0, 0),
			want{run: 4, take: 1, next: ms(0)}},
		{"concurrency full: the batch tries again in a second or two",
			webhook.Endpoint{MaxConcurrency: 1, Leases: webhook.Leases{0: ms(time.Minute)}}, tickets(0, 0),
			want{waits: []time.Duration{time.Second, time.Second}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan := webhook.PlanAdmit(tc.ep, tc.tickets, flowNow, until, rand.New(rand.NewPCG(1, 2)))
			run := 0
			var waits []time.Duration
			for _, a := range plan.Admissions {
				if a.Run {
					run++
					continue
				}
				waits = append(waits, a.Wait)
			}
			if run != tc.want.run || len(waits) != len(tc.want.waits) {
				t.Fatalf("run %d, waits %v; want %d, %v", run, waits, tc.want.run, tc.want.waits)
			}
			for i, w := range waits {
				spread := tc.want.spread
				if tc.want.waits[i] == time.Second {
					spread = time.Second // a busy batch's retry
				}
				if w < tc.want.waits[i] || (spread > 0 && w >= tc.want.waits[i]+spread) || (spread == 0 && w != tc.want.waits[i]) {
					t.Errorf("wait %d = %s, want %s", i, w, tc.want.waits[i])
				}
			}
			if len(plan.Take) != tc.want.take {
				t.Errorf("leases taken %v, want %d", plan.Take, tc.want.take)
			}
			for slot, end := range plan.Take {
				if exp, held := tc.ep.Leases[slot]; (held && exp >= flowNow.UnixMilli()) || end != until.UnixMilli() {
					t.Errorf("took slot %d (held until %d) until %d", slot, exp, end)
				}
			}
			switch {
			case tc.want.next == 0 && tc.want.take == 0 && plan.Next != nil:
				t.Errorf("wrote %+v, want no write", *plan.Next)
			case (tc.want.next != 0 || tc.want.take != 0) && plan.Next == nil:
				t.Error("no write")
			case plan.Next != nil && (plan.Next.Version != tc.ep.Flow.Version+1 || (tc.want.next != 0 && tc.want.take == 0 && plan.Next.Next != tc.want.next)):
				t.Errorf("wrote %+v, want next %d at version %d", *plan.Next, tc.want.next, tc.ep.Flow.Version+1)
			}
		})
	}
}

func TestThrottleLowersPausesAndGrowsBack(t *testing.T) {
	ep := webhook.Endpoint{RateLimit: 40}
	f, write := webhook.PlanThrottle(ep, "http_429", 2*time.Second, flowNow)
	if !write || f.Rate != 20 || f.PausedUntil != ms(2*time.Second) || f.Next != ms(2*time.Second) || f.Cause != "http_429" || f.Version != 1 {
		t.Fatalf("after a 429: %+v", f)
	}
	ep.Flow = f
	if again, write := webhook.PlanThrottle(ep, "http_429", time.Second, flowNow.Add(500*time.Millisecond)); write || again.Rate != 20 {
		t.Fatalf("a second 429 of the same burst, within its pause, wrote %v: %+v", write, again)
	}
	if longer, write := webhook.PlanThrottle(ep, "http_429", time.Minute, flowNow.Add(500*time.Millisecond)); !write || longer.Rate != 20 || longer.PausedUntil != ms(60500*time.Millisecond) {
		t.Fatalf("a longer Retry-After of the same burst: %v %+v", write, longer)
	}
	if later, _ := webhook.PlanThrottle(ep, "http_503", 0, flowNow.Add(time.Second)); // grown to 22 in that second, halved
	later.Rate != 11 || later.Cause != "http_503" {
		t.Fatalf("a 503 a second later: %+v", later)
	}
	for _, tc := range []struct {
		after time.Duration
		pace  float64
	}{{0, 20}, {time.Second, 22}, {5 * time.Second, 20 * 1.61051}, {8 * time.Second, 0}} {
		got := ep.Pace(flowNow.Add(tc.after))
		if tc.pace == 0 {
			if got != 40 {
				t.Errorf("after %s: pace %.2f, want back at the limit 40", tc.after, got)
			}
			continue
		}
		if got < tc.pace-0.01 || got > tc.pace+0.01 {
			t.Errorf("after %s: pace %.2f, want %.2f", tc.after, got, tc.pace)
		}
	}
	if v := ep.View(flowNow.Add(time.Second)); v == nil || v.EffectiveRate != 22 || v.PausedUntil == "" || v.ThrottledBy != "http_429" {
		t.Fatalf("view %+v", v)
	}
	if v := ep.View(flowNow.Add(time.Minute)); v != nil {
		t.Fatalf("view after the rate grew back %+v", v)
	}
	unlimited, _ := webhook.PlanThrottle(webhook.Endpoint{}, "http_429", 0, flowNow)
	if unlimited.Rate != webhook.AdaptiveStartRate {
		t.Fatalf("an endpoint without a limit starts at %.1f/s after a 429: %+v", webhook.AdaptiveStartRate, unlimited)
	}
}

// blockingPoster holds every request until released and records the most
// in flight at once.
type blockingPoster struct {
	inFlight, most atomic.Int64
	release        chan struct{}
	posted         atomic.Int64
}

func (b *blockingPoster) Post(context.Context, string, []byte, map[string]string) webhook.Response {
	n := b.inFlight.Add(1)
	for {
		m := b.most.Load()
		if n <= m || b.most.CompareAndSwap(m, n) {
			break
		}
	}
	b.posted.Add(1)
	<-b.release
	b.inFlight.Add(-1)
	return webhook.Response{Status: 200}
}

func TestHandleBatchHoldsTheEndpointsLimits(t *testing.T) {
	ctx := context.Background()
	t.Run("max_concurrency 3: never more than 3 in flight across two batches; the rest deferred, no attempt counted", func(t *testing.T) {
		p := newPipeline(t)
		ep := p.endpoint(webhook.AllEvents)
		ep.MaxConcurrency = 3
		p.endpoints.Put(project, ep)
		for range 16 {
			p.dispatch(p.event(domain.EventContactCreated))
		}
		poster := &blockingPoster{release: make(chan struct{})}
		p.deliverer.Poster = poster
		sent := p.queue.Sent()
		var wg sync.WaitGroup
		results := make([][]webhook.Disposition, 2)
		for b := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[b] = p.deliverer.HandleBatch(ctx, sent[b*8:(b+1)*8])
			}()
		}
		// Let every admitted request reach the receiver, then release them.
		for poster.inFlight.Load() < 3 && poster.posted.Load() < 16 {
			time.Sleep(time.Millisecond)
		}
		close(poster.release)
		wg.Wait()
		if poster.most.Load() > 3 {
			t.Fatalf("%d requests in flight at once, limit 3", poster.most.Load())
		}
		deferred := p.queue.Deferred()
		if int(poster.posted.Load())+len(deferred) != 16 || len(deferred) < 8 {
			t.Fatalf("posted %d, deferred %d, of 16", poster.posted.Load(), len(deferred))
		}
		for _, d := range p.deliveries.All() {
			if d.Attempts > 1 {
				t.Fatalf("delivery %+v", d)
			}
		}
		for _, r := range results {
			for _, d := range r {
				if !d.Done {
					t.Fatalf("dispositions %+v", r)
				}
			}
		}
		if got, _ := p.endpoints.Get(ctx, project, ep.ID); len(got.Leases) != 0 {
			t.Fatalf("leases left behind: %v", got.Leases)
		}
	})
	t.Run("rate_limit 5/s: a second's worth now, the rest deferred to their places, which they keep", func(t *testing.T) {
		p := newPipeline(t)
		ep := p.endpoint(webhook.AllEvents)
		ep.RateLimit = 5
		p.endpoints.Put(project, ep)
		for range 10 {
			p.dispatch(p.event(domain.EventContactCreated))
		}
		p.deliverer.HandleBatch(ctx, p.queue.Sent())
		deferred := p.queue.Deferred()
		if len(p.poster.Posted()) != 5 || len(deferred) != 5 {
			t.Fatalf("posted %d, deferred %d", len(p.poster.Posted()), len(deferred))
		}
		for i, d := range deferred {
			if want := time.Second + time.Duration(i)*200*time.Millisecond; d.Delay != want || d.Message.Slot != p.clock().Add(want).UnixMilli() {
				t.Fatalf("deferral %d: %s slot %d, want %s", i, d.Delay, d.Message.Slot, want)
			}
		}
		p.advance(2 * time.Second)
		var back []webhook.Message
		for _, d := range deferred {
			back = append(back, d.Message)
		}
		p.deliverer.HandleBatch(ctx, back)
		if len(p.poster.Posted()) != 10 || len(p.queue.Deferred()) != 5 {
			t.Fatalf("posted %d, deferred %d after the places came", len(p.poster.Posted()), len(p.queue.Deferred()))
		}
	})
	t.Run("a paused endpoint is not sent to by any batch until the pause ends", func(t *testing.T) {
		p := newPipeline(t)
		ep := p.endpoint(webhook.AllEvents)
		p.poster.Answer = answer(429, "30")
		p.dispatch(p.event(domain.EventContactCreated))
		p.deliverer.HandleBatch(ctx, p.queue.Sent())
		p.poster.Answer = nil
		for range 5 {
			p.dispatch(p.event(domain.EventContactCreated))
		}
		p.advance(time.Second)
		p.deliverer.HandleBatch(ctx, p.queue.Sent()[1:])
		if len(p.poster.Posted()) != 1 {
			t.Fatalf("%d requests during the pause", len(p.poster.Posted()))
		}
		got, _ := p.endpoints.Get(ctx, project, ep.ID)
		for _, d := range p.queue.Deferred()[1:] {
			if d.Delay < 29*time.Second || d.Message.Slot < got.Flow.PausedUntil {
				t.Fatalf("deferred %+v before the pause ends at %d", d, got.Flow.PausedUntil)
			}
		}
	})
}
