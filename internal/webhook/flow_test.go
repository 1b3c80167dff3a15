package webhook_test

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/webhook"
)

var flowNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func ms(d time.Duration) int64 { return flowNow.Add(d).UnixMilli() }

func TestPlanStarts(t *testing.T) {
	numbered := func(ns ...int64) []webhook.Start {
		out := make([]webhook.Start, len(ns))
		for i, n := range ns {
			out[i] = webhook.Start{Number: n}
		}
		return out
	}
	// A schedule at 2/s from flowNow: number 10 was due then, 11 half a
	// second later, and so on.
	twoPerSecond := webhook.Flow{Version: 3, N0: 10, T0: ms(0), R0: 2, Ceiling: 2}
	type want struct {
		runAt []time.Duration // of the ones that run, in order of the batch
		waits []time.Duration // of the deferred, in order
	}
	for _, tc := range []struct {
		name   string
		ep     webhook.Endpoint
		flow   webhook.Flow
		starts []webhook.Start
		want   want
	}{
		{"no pace: everything runs at once", webhook.Endpoint{MaxConcurrency: 2}, webhook.Flow{}, numbered(0, 0, 0),
			want{runAt: []time.Duration{0, 0, 0}}},
		{"each number at its start: within a second the batch waits for it, later ones go back on the queue, rounded down to whole seconds",
			webhook.Endpoint{RateLimit: 2}, twoPerSecond, numbered(11, 12, 13, 14, 17),
			want{runAt: []time.Duration{500 * time.Millisecond}, waits: []time.Duration{time.Second, time.Second, 2 * time.Second, 3 * time.Second}}},
		{"numbers due together start at the pace, in number order",
			webhook.Endpoint{RateLimit: 2}, webhook.Flow{Version: 3, N0: 10, T0: ms(-10 * time.Second), R0: 2, Ceiling: 2}, numbered(30, 28, 29),
			want{runAt: []time.Duration{0, 500 * time.Millisecond}, waits: []time.Duration{time.Second}}},
		{"paused by the receiver: nothing starts before the pause ends",
			webhook.Endpoint{Flow: webhook.Flow{PausedUntil: ms(30 * time.Second)}}, twoPerSecond, numbered(11),
			want{waits: []time.Duration{30 * time.Second}}},
		{"a start of its own (a deferral rounded down) holds too",
			webhook.Endpoint{RateLimit: 2}, twoPerSecond, []webhook.Start{{Number: 11, NotBefore: ms(700 * time.Millisecond)}},
			want{runAt: []time.Duration{700 * time.Millisecond}}},
		{"far ahead: the longest SQS delay, to look again then",
			webhook.Endpoint{RateLimit: 2}, twoPerSecond, numbered(10 + 2*3600),
			want{waits: []time.Duration{webhook.MaxDefer}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var runAt, waits []time.Duration
			for i, a := range webhook.PlanStarts(tc.ep, tc.flow, tc.starts, flowNow) {
				if a.Run {
					runAt = append(runAt, time.Duration(a.At-ms(0))*time.Millisecond)
					continue
				}
				waits = append(waits, a.Wait)
				if a.Start.Number != tc.starts[i].Number || a.Start.NotBefore < ms(a.Wait) {
					t.Errorf("deferred %+v: keeps its number, and starts no earlier than its wait", a)
				}
			}
			if fmt.Sprint(runAt) != fmt.Sprint(tc.want.runAt) || fmt.Sprint(waits) != fmt.Sprint(tc.want.waits) {
				t.Fatalf("run at %v, deferred %v; want %v, %v", runAt, waits, tc.want.runAt, tc.want.waits)
			}
		})
	}
}

func TestNeedNumbers(t *testing.T) {
	f := webhook.Flow{Version: 3, N0: 10, T0: ms(-5 * time.Second), R0: 2, Ceiling: 2} // 20 due now
	got := webhook.NeedNumbers(f, []webhook.Start{{}, {Number: 20}, {Number: 19}, {Number: 21}, {Number: 5}}, flowNow)
	// none yet; due now; 500 ms late (more than Late); ahead; before the
	// schedule began (a slow-down moved it).
	if fmt.Sprint(got) != "[0 2 4]" {
		t.Fatalf("take new numbers: %v, want [0 2 4]", got)
	}
}

func TestSchedule(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ep    webhook.Endpoint
		write bool
		r0    float64
		n0    float64
	}{
		{"a rate limit's first schedule: from now, at the limit, after the numbers given", webhook.Endpoint{RateLimit: 5, Taken: 40}, true, 5, 40},
		{"the same limit: as written", webhook.Endpoint{RateLimit: 5, Flow: webhook.Flow{Version: 2, N0: 3, T0: ms(-time.Hour), R0: 5, Ceiling: 5}}, false, 5, 3},
		{"the limit changed: a new schedule from the number due now", webhook.Endpoint{RateLimit: 50, Flow: webhook.Flow{Version: 2, N0: 3, T0: ms(-time.Second), R0: 5, Ceiling: 5}}, true, 50, 3 + 5},
		{"the limit changed while climbing back: it goes on from where it is", webhook.Endpoint{RateLimit: 50, Flow: webhook.Flow{Version: 2, N0: 3, T0: ms(-time.Second), R0: 2, Ceiling: 5, DecreasedAt: ms(-2 * time.Second)}}, true, 2.2, 3 + 2*0.1/math.Log(1.1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, write := tc.ep.Schedule(flowNow)
			if write != tc.write || math.Abs(f.R0-tc.r0) > 0.001 || math.Abs(f.N0-tc.n0) > 0.001 || f.Ceiling != float64(tc.ep.RateLimit) {
				t.Fatalf("schedule %+v (write %v); want r0 %.2f from number %.3f, write %v", f, write, tc.r0, tc.n0, tc.write)
			}
			if write && (f.Version != tc.ep.Flow.Version+1 || f.T0 != ms(0)) {
				t.Fatalf("schedule %+v: a version up, from now", f)
			}
		})
	}
	idle := webhook.Endpoint{RateLimit: 2, Taken: 4, Flow: webhook.Flow{Version: 1, N0: 4, T0: ms(-time.Minute), R0: 2, Ceiling: 2}}
	if got := idle.CatchUp(idle.Flow, flowNow); got != 124 {
		t.Fatalf("an endpoint idle for a minute at 2/s: the next numbers after %d, want after 124", got)
	}
	busy := webhook.Endpoint{RateLimit: 2, Taken: 500, Flow: idle.Flow}
	if got := busy.CatchUp(busy.Flow, flowNow); got != 0 {
		t.Fatalf("an endpoint with numbers ahead: catch up to %d, want none", got)
	}
}

func TestThrottleLowersPausesAndGrowsBack(t *testing.T) {
	ep := webhook.Endpoint{RateLimit: 40, Taken: 7}
	f, write := webhook.PlanThrottle(ep, "http_429", 2*time.Second, flowNow)
	if !write || f.R0 != 20 || f.PausedUntil != ms(2*time.Second) || f.T0 != ms(2*time.Second) || f.N0 != 7 || f.Cause != "http_429" || f.Version != 1 {
		t.Fatalf("after a 429: %+v", f)
	}
	ep.Flow = f
	if again, write := webhook.PlanThrottle(ep, "http_429", time.Second, flowNow.Add(500*time.Millisecond)); write || again.R0 != 20 {
		t.Fatalf("a second 429 of the same burst, within its pause, wrote %v: %+v", write, again)
	}
	if longer, write := webhook.PlanThrottle(ep, "http_429", time.Minute, flowNow.Add(500*time.Millisecond)); !write || longer.R0 != 20 || longer.PausedUntil != ms(60500*time.Millisecond) || longer.T0 != longer.PausedUntil {
		t.Fatalf("a longer Retry-After of the same burst: %v %+v", write, longer)
	}
	if later, _ := webhook.PlanThrottle(ep, "http_503", 0, flowNow.Add(time.Second)); // still paused: 20, halved
	later.R0 != 10 || later.Cause != "http_503" {
		t.Fatalf("a 503 a second later: %+v", later)
	}
	if later, _ := webhook.PlanThrottle(ep, "http_503", 0, flowNow.Add(3*time.Second)); // grown to 22 in the second after the pause, halved
	math.Abs(later.R0-11) > 0.001 || math.Abs(later.N0-(7+20*0.1/math.Log(1.1))) > 0.001 {
		t.Fatalf("a 503 a second after the pause: %+v", later)
	}
	for _, tc := range []struct {
		after time.Duration
		pace  float64
	}{{0, 20}, {2 * time.Second, 20}, {3 * time.Second, 22}, {7 * time.Second, 20 * 1.61051}, {10 * time.Second, 0}} {
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
	if v := ep.View(flowNow.Add(time.Second)); v == nil || v.EffectiveRate != 20 || v.PausedUntil == "" || v.ThrottledBy != "http_429" {
		t.Fatalf("view %+v", v)
	}
	if v := ep.View(flowNow.Add(time.Minute)); v != nil {
		t.Fatalf("view after the rate grew back %+v", v)
	}
	unlimited, _ := webhook.PlanThrottle(webhook.Endpoint{}, "http_429", 0, flowNow)
	if unlimited.R0 != webhook.AdaptiveStartRate || unlimited.Ceiling != webhook.AdaptiveCeiling {
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

// pacedPipeline is a pipeline whose endpoint has a rate limit, with n
// events dispatched to it.
func pacedPipeline(t *testing.T, rate, n int) (*pipeline, webhook.Endpoint) {
	p := newPipeline(t)
	ep := p.endpoint(webhook.AllEvents)
	ep.RateLimit = rate
	p.endpoints.Put(project, ep)
	for range n {
		p.dispatch(p.event(domain.EventContactCreated))
	}
	return p, ep
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
		// Hold the three admitted requests until the other batch, finding
		// every slot held, has deferred its eight; then release them.
		deadline := time.Now().Add(10 * time.Second)
		for (poster.inFlight.Load() < 3 || len(p.queue.Deferred()) < 8) && poster.posted.Load() < 16 && time.Now().Before(deadline) {
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
	t.Run("rate_limit 5/s: the numbers due within a second now, the rest deferred with theirs, which they keep", func(t *testing.T) {
		p, ep := pacedPipeline(t, 5, 10)
		start := p.clock()
		p.deliverer.HandleBatch(ctx, p.queue.Sent())
		deferred := p.queue.Deferred()
		// Numbers 1..10 fall due 200 ms apart: 1 to 4 within the second.
		if len(p.poster.Posted()) != 4 || len(deferred) != 6 {
			t.Fatalf("posted %d, deferred %d", len(p.poster.Posted()), len(deferred))
		}
		for i, d := range deferred {
			at := start.Add(time.Second + time.Duration(i)*200*time.Millisecond)
			if d.Message.Number != int64(5+i) || d.Message.NotBefore != at.UnixMilli() || d.Delay != at.Sub(p.clock()).Truncate(time.Second) {
				t.Fatalf("deferral %d: number %d, delay %s, not before %d; want %d, %s", i, d.Message.Number, d.Delay, d.Message.NotBefore, 5+i, at)
			}
		}
		// Back early (the delays were rounded down): each waits for its
		// start, number 10 goes back once more; no number is taken again.
		p.advance(time.Second)
		var back []webhook.Message
		for _, d := range deferred {
			back = append(back, d.Message)
		}
		p.deliverer.HandleBatch(ctx, back)
		if len(p.poster.Posted()) != 9 || len(p.queue.Deferred()) != 7 {
			t.Fatalf("posted %d, deferred %d after the places came", len(p.poster.Posted()), len(p.queue.Deferred()))
		}
		if got, _ := p.endpoints.Get(ctx, project, ep.ID); got.Taken != 10 {
			t.Fatalf("numbers taken %d, want 10", got.Taken)
		}
		if again := p.queue.Deferred()[6].Message; again.Number != 10 {
			t.Fatalf("number 10 deferred again as %+v", again)
		}
	})
	t.Run("a slow-down moves the numbers not yet due behind the pause, at the lower rate, without taking them again", func(t *testing.T) {
		p, ep := pacedPipeline(t, 5, 10)
		p.poster.Answer = answer(429, "5")
		p.deliverer.HandleBatch(ctx, p.queue.Sent())
		p.poster.Answer = nil
		got, _ := p.endpoints.Get(ctx, project, ep.ID)
		if got.Flow.R0 != 2.5 || got.Flow.T0 != got.Flow.PausedUntil || got.Taken != 10 {
			t.Fatalf("after the 429s: flow %+v, taken %d", got.Flow, got.Taken)
		}
		var back []webhook.Message
		for _, d := range p.queue.Deferred() {
			if d.Message.Number != 0 {
				back = append(back, d.Message)
			}
		}
		p.advance(time.Second)
		before, posted := len(p.queue.Deferred()), len(p.poster.Posted())
		p.deliverer.HandleBatch(ctx, back)
		again := p.queue.Deferred()[before:]
		if len(back) != 6 || len(again) != 6 || len(p.poster.Posted()) != posted {
			t.Fatalf("back %d, deferred again %d, posted during the pause %d", len(back), len(again), len(p.poster.Posted())-posted)
		}
		for _, d := range again {
			// From 2.5/s after the pause, growing by AdaptiveGrowth a second.
			lg := math.Log(webhook.AdaptiveGrowth)
			want := got.Flow.T0 + int64(math.Ceil(math.Log1p((float64(d.Message.Number)-got.Flow.N0)*lg/2.5)/lg*1000))
			if d.Message.NotBefore != want {
				t.Fatalf("number %d starts at %d, want %d: after the pause, at 2.5/s growing", d.Message.Number, d.Message.NotBefore, want)
			}
		}
		if now, _ := p.endpoints.Get(ctx, project, ep.ID); now.Taken != 10 {
			t.Fatalf("numbers taken again: %d", now.Taken)
		}
	})
	t.Run("a delivery back late for its number takes a new one, behind the others", func(t *testing.T) {
		p, ep := pacedPipeline(t, 5, 6)
		p.deliverer.HandleBatch(ctx, p.queue.Sent())
		late := p.queue.Deferred()[0].Message // number 5, due at 1 s
		p.advance(3 * time.Second)
		p.deliverer.HandleBatch(ctx, []webhook.Message{late})
		got, _ := p.endpoints.Get(ctx, project, ep.ID)
		if got.Taken <= 6 || len(p.poster.Posted()) != 5 {
			t.Fatalf("numbers taken %d, posted %d: the late one should take a new number and run", got.Taken, len(p.poster.Posted()))
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
			if d.Delay < 29*time.Second || d.Message.NotBefore < got.Flow.PausedUntil {
				t.Fatalf("deferred %+v before the pause ends at %d", d, got.Flow.PausedUntil)
			}
		}
		// Held by the pause: the five new deliveries and the throttled one's
		// retry, back from the queue in the same batch.
		if m := p.tel.Totals(); m["EndpointPauses"] != 6 || m["Throttles"] != 1 {
			t.Fatalf("metrics %v: want 1 throttle and 6 attempts held by its pause", m)
		}
	})
}

// TestFlowControlGuards pins the guards that keep deliveries behind a
// receiver's pause whichever way they come.
func TestFlowControlGuards(t *testing.T) {
	ctx := context.Background()
	t.Run("a manual retry to an endpoint its receiver paused waits out the pause on the queue, then goes", func(t *testing.T) {
		p, _ := firstAttempt(t, answer(429, "120"))
		paused := p.queue.Deferred()
		n := len(p.queue.Sent())
		p.dispatch(webhook.Outgoing{Request: &webhook.DeliveryRequest{ID: "dreq_1", ProjectID: project, DeliveryID: p.only().ID, EndpointID: p.only().EndpointID, Kind: webhook.RequestRetry}})
		manual := p.queue.Sent()[n:]
		p.poster.Answer = nil
		if d := p.deliverer.HandleBatch(ctx, manual); len(d) != 1 || !d[0].Done {
			t.Fatalf("dispositions %+v", d)
		}
		later := p.queue.Deferred()[len(paused):]
		if len(p.poster.Posted()) != 1 || len(later) != 1 || later[0].Message.Request == nil || later[0].Delay < time.Minute {
			t.Fatalf("posted %d during the 120 s pause, deferred %+v", len(p.poster.Posted()), later)
		}
		p.advance(121 * time.Second)
		p.deliverer.HandleBatch(ctx, []webhook.Message{later[0].Message})
		if log := p.attempts(p.only()); len(p.poster.Posted()) != 2 || log[len(log)-1].Kind != webhook.KindManual {
			t.Fatalf("after the pause: posted %d, log %+v", len(p.poster.Posted()), log)
		}
	})
	t.Run("a delivery waiting for its paced start when the receiver pauses the endpoint (Retry-After 120) is deferred for the whole pause", func(t *testing.T) {
		p, ep := pacedPipeline(t, 5, 2)
		p.poster.Answer = answer(429, "120")
		var sleeps atomic.Int64
		p.deliverer.Sleep = func(time.Duration) {
			if sleeps.Add(1) == 1 {
				return
			}
			// The other delivery's 429 lands while this one waits.
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
				for _, d := range p.deliveries.All() {
					if d.Status == webhook.StatusRetrying {
						return
					}
				}
			}
		}
		p.deliverer.HandleBatch(ctx, p.queue.Sent())
		got, _ := p.endpoints.Get(ctx, project, ep.ID)
		var held []webhook.Deferred
		for _, d := range p.queue.Deferred() {
			if d.Message.Attempt == 1 {
				held = append(held, d)
			}
		}
		if len(p.poster.Posted()) != 1 || len(held) != 1 || held[0].Delay < time.Minute || held[0].Message.NotBefore != got.Flow.PausedUntil {
			t.Fatalf("posted %d, held %+v; the pause ends at %d", len(p.poster.Posted()), held, got.Flow.PausedUntil)
		}
	})
}
