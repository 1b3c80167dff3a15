package webhook_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
	"github.com/botix/public-api/internal/webhook/webhooktest"
)

func TestRecoveryPaceDelay(t *testing.T) {
	now := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name        string
		pace        webhook.RecoveryPace
		rate        float64
		pausedUntil time.Time
		step        int
		want        time.Duration
	}{
		{"no rate limit: a full step at the default pace", 0, 0, time.Time{}, 100, 100 * time.Second / webhook.DefaultRecoveryPace},
		{"no rate limit: the deployment's pace", 50, 0, time.Time{}, 100, 2 * time.Second},
		{"the endpoint's rate limit wins over the pace", 50, 4, time.Time{}, 100, 25 * time.Second},
		{"a slow rate limit: longer than the queue can delay", 0, 0.1, time.Time{}, 100, 1000 * time.Second},
		{"a fractional wait is rounded up to the nanosecond, never early", 0, 3, time.Time{}, 1, 333333334 * time.Nanosecond},
		{"a short step waits for itself only", 0, 10, time.Time{}, 7, 700 * time.Millisecond},
		{"a step that queued nothing is followed at once", 0, 10, time.Time{}, 0, 0},
		{"paused: the step's time counts from the end of the pause", 0, 10, now.Add(30 * time.Second), 100, 40 * time.Second},
		{"paused, nothing queued: at the end of the pause", 0, 10, now.Add(time.Minute), 0, time.Minute},
		{"a pause already over changes nothing", 0, 10, now.Add(-time.Minute), 100, 10 * time.Second},
		{"a negative rate is no rate limit", 0, -1, time.Time{}, 100, 10 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.pace.Delay(c.rate, c.pausedUntil, c.step, now); got != c.want {
				t.Fatalf("Delay(%v, %v, %d) = %v, want %v", c.rate, c.pausedUntil, c.step, got, c.want)
			}
		})
	}
}

func TestContinuationNext(t *testing.T) {
	now := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	running := webhook.Recovery{ID: "rcv_1", EndpointID: "we_1", Status: webhook.RecoveryRunning, Version: 3, NextStepAt: now}
	k := *running.Continuation()
	with := func(f func(*webhook.Recovery)) *webhook.Recovery { r := running; f(&r); return &r }
	for _, c := range []struct {
		name     string
		cur      *webhook.Recovery
		paused   time.Time
		now      time.Time
		want     webhook.ContinueVerdict
		wantWait time.Duration
	}{
		{"due, at the version it follows: step", &running, time.Time{}, now, webhook.ContinueStep, 0},
		{"late: step", &running, time.Time{}, now.Add(time.Hour), webhook.ContinueStep, 0},
		{"early: wait until due", &running, time.Time{}, now.Add(-20 * time.Minute), webhook.ContinueWait, 20 * time.Minute},
		{"due but the endpoint paused: wait for the pause", &running, now.Add(time.Minute), now, webhook.ContinueWait, time.Minute},
		{"a pause that ends before the step is due changes nothing", &running, now.Add(-time.Second), now, webhook.ContinueStep, 0},
		{"handled before (the version moved on): stale", with(func(r *webhook.Recovery) { r.Version++ }), time.Time{}, now, webhook.ContinueStale, 0},
		{"the recovery completed: stale", with(func(r *webhook.Recovery) { r.Status = webhook.RecoveryCompleted }), time.Time{}, now, webhook.ContinueStale, 0},
		{"another recovery of the endpoint: stale", with(func(r *webhook.Recovery) { r.ID, r.Version = "rcv_2", 3 }), time.Time{}, now, webhook.ContinueStale, 0},
		{"no recovery: stale", nil, time.Time{}, now, webhook.ContinueStale, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if v, wait := k.Next(c.cur, c.paused, c.now); v != c.want || wait != c.wantWait {
				t.Fatalf("Next = %v %v, want %v %v", v, wait, c.want, c.wantWait)
			}
		})
	}
	if (webhook.Recovery{Status: webhook.RecoveryCompleted}).Continuation() != nil {
		t.Fatal("a completed recovery has a continuation")
	}
}

// recoveryPipeline is a pipeline whose recoveries run as in production:
// each Save's step goes to the dispatcher (the stream), and the delivery
// queue's messages to the Continuer or the deliverer, a continuation only
// once its delay has passed on the clock.
type recoveryPipeline struct {
	*pipeline
	recoveries *webhooktest.Recoveries
	rc         *webhook.Recoverer
	handle     func(context.Context, webhook.Message) webhook.Disposition
	dispatched int // steps of recoveries.Requests dispatched so far
	handled    int // messages of queue.Sent handled so far
}

func newRecoveryPipeline(t *testing.T) *recoveryPipeline {
	p := &recoveryPipeline{pipeline: newPipeline(t), recoveries: &webhooktest.Recoveries{}}
	p.rc = &webhook.Recoverer{Deliveries: p.deliveries, Recoveries: p.recoveries, NewID: func(t time.Time) string { return ids.New(ids.Recovery, t) }}
	cont := &webhook.Continuer{Recoverer: p.rc, Endpoints: p.endpoints, Log: slog.New(slog.DiscardHandler), Now: p.clock}
	route := cont.Route(p.deliverer.HandleBatch)
	p.handle = func(ctx context.Context, m webhook.Message) webhook.Disposition {
		return route(ctx, []webhook.Message{m})[0]
	}
	return p
}

// fail dispatches n contact.created events, a millisecond apart, and
// delivers each to a receiver that answers 401; then the receiver answers
// 200 again, and what the queue holds so far counts as handled.
func (p *recoveryPipeline) fail(n int) {
	p.t.Helper()
	p.poster.Answer = answer(401, "")
	for range n {
		sent := len(p.queue.Sent())
		p.dispatch(p.event(domain.EventContactCreated))
		p.deliverFrom(sent)
		p.advance(time.Millisecond)
	}
	p.handled = len(p.queue.Sent())
	p.poster.Answer = nil
}

// run dispatches the steps saved so far and handles the queue's messages,
// moving the clock to each continuation's due time, until nothing is
// left; it returns the delays the continuations were sent with.
func (p *recoveryPipeline) run() []time.Duration {
	p.t.Helper()
	var delays []time.Duration
	for rounds := 0; ; rounds++ {
		if rounds > 1000 {
			p.t.Fatal("the recovery does not end")
		}
		if steps := p.recoveries.Requests[p.dispatched:]; len(steps) > 0 {
			p.dispatched += len(steps)
			for _, r := range steps {
				p.dispatch(webhook.Outgoing{Request: &r})
			}
			continue
		}
		sent := p.queue.Sent()
		if p.handled == len(sent) {
			return delays
		}
		m := sent[p.handled]
		p.handled++
		if m.Continuation != nil {
			d := p.queue.Deferred()[len(delays)]
			delays = append(delays, d.Delay)
			p.advance(d.Delay)
		}
		if d := p.handle(context.Background(), m); !d.Done {
			p.t.Fatalf("message %s: %+v", m, d)
		}
	}
}

// TestRecoveryContinuesByItself: one recover call over 350 failed
// deliveries; the recovery completes by itself in 4 steps of at most
// MaxRecoveryBatch, each continued no sooner than the endpoint can take
// the step before it, and every delivery is re-sent once.
func TestRecoveryContinuesByItself(t *testing.T) {
	p := newRecoveryPipeline(t)
	ep := p.endpoint(domain.EventContactCreated)
	since := p.clock()
	const failed = 350
	p.fail(failed)
	posted := len(p.poster.Posted())

	call, err := p.rc.Recover(context.Background(), project, ep, since, p.clock())
	if err != nil {
		t.Fatal(err)
	}
	if call.Queued != webhook.MaxRecoveryBatch || !call.HasMore() {
		t.Fatalf("the call: %+v", call)
	}
	delays := p.run()

	var sizes []int
	for _, step := range p.recoveries.Steps {
		sizes = append(sizes, len(step))
	}
	if len(sizes) != 4 || sizes[0] != 100 || sizes[1] != 100 || sizes[2] != 100 || sizes[3] != 50 {
		t.Fatalf("steps of %v, want [100 100 100 50]", sizes)
	}
	full := webhook.RecoveryPace(0).Delay(0, time.Time{}, webhook.MaxRecoveryBatch, p.clock())
	if len(delays) != 3 || delays[0] != full || delays[1] != full || delays[2] != full {
		t.Fatalf("continuations delayed %v, want 3 of %v (a step of %d at the default pace)", delays, full, webhook.MaxRecoveryBatch)
	}
	cur, _ := p.recoveries.Current(context.Background(), project, ep.ID)
	if cur.ID != call.ID || cur.Status != webhook.RecoveryCompleted || cur.Queued != failed {
		t.Fatalf("the recovery after its continuations: %+v", cur)
	}
	perDelivery := map[string]int{}
	for _, r := range p.poster.Posted()[posted:] {
		perDelivery[r.Headers[webhook.HeaderID]]++
	}
	if got := len(p.poster.Posted()) - posted; got != failed || len(perDelivery) != failed {
		t.Fatalf("%d POSTs to %d deliveries, want each of the %d once", got, len(perDelivery), failed)
	}
	for _, d := range p.deliveries.All() {
		if d.Status != webhook.StatusDelivered || d.Round != 2 {
			t.Fatalf("after the recovery %+v", d)
		}
	}
}

// TestRecoveryReplays: the crashes and duplicates a queue and a stream
// produce — a continuation handled twice, a step dispatched twice (so its
// continuation sent twice), a continuation that fails and is retried —
// queue no delivery twice and keep one chain of steps.
func TestRecoveryReplays(t *testing.T) {
	setup := func(t *testing.T) (*recoveryPipeline, webhook.Endpoint) {
		p := newRecoveryPipeline(t)
		ep := p.endpoint(domain.EventContactCreated)
		since := p.clock()
		p.fail(2*webhook.MaxRecoveryBatch + 10)
		if _, err := p.rc.Recover(context.Background(), project, ep, since, p.clock()); err != nil {
			t.Fatal(err)
		}
		return p, ep
	}
	check := func(t *testing.T, p *recoveryPipeline, ep webhook.Endpoint) {
		t.Helper()
		seen := map[string]bool{}
		for _, step := range p.recoveries.Steps {
			for _, m := range step {
				if seen[m.DeliveryID] {
					t.Fatalf("%s queued twice", m.DeliveryID)
				}
				seen[m.DeliveryID] = true
			}
		}
		cur, _ := p.recoveries.Current(context.Background(), project, ep.ID)
		if len(seen) != 2*webhook.MaxRecoveryBatch+10 || cur.Status != webhook.RecoveryCompleted || len(p.recoveries.Steps) != 3 {
			t.Fatalf("%d queued in %d steps, %+v", len(seen), len(p.recoveries.Steps), cur)
		}
		for _, d := range p.deliveries.All() {
			if d.Round != 2 {
				t.Fatalf("a delivery in round %d: %+v", d.Round, d)
			}
		}
	}
	t.Run("a continuation handled twice takes one step", func(t *testing.T) {
		p, ep := setup(t)
		p.dispatch(webhook.Outgoing{Request: &p.recoveries.Requests[0]})
		p.dispatched = 1
		k := p.queue.Sent()[len(p.queue.Sent())-1]
		p.advance(k.Continuation.At.Sub(p.clock()))
		for range 2 {
			if d := p.handle(context.Background(), k); !d.Done {
				t.Fatalf("%+v", d)
			}
		}
		if len(p.recoveries.Steps) != 2 {
			t.Fatalf("%d steps after the continuation twice, want 2", len(p.recoveries.Steps))
		}
		p.run()
		check(t, p, ep)
	})
	t.Run("a step dispatched twice sends its continuation twice; the second is stale", func(t *testing.T) {
		p, ep := setup(t)
		p.dispatch(webhook.Outgoing{Request: &p.recoveries.Requests[0]})
		p.run()
		check(t, p, ep)
	})
	t.Run("an early continuation waits, a failing step is retried by the queue", func(t *testing.T) {
		p, ep := setup(t)
		p.dispatch(webhook.Outgoing{Request: &p.recoveries.Requests[0]})
		p.dispatched = 1
		k := p.queue.Sent()[len(p.queue.Sent())-1]
		if d := p.handle(context.Background(), k); d.Done || d.RetryIn != k.Continuation.At.Sub(p.clock()) {
			t.Fatalf("early: %+v", d)
		}
		p.advance(k.Continuation.At.Sub(p.clock()))
		p.recoveries.Fail("Save", context.DeadlineExceeded, 1)
		if d := p.handle(context.Background(), k); d.Done {
			t.Fatalf("a failed save was done with: %+v", d)
		}
		if d := p.handle(context.Background(), k); !d.Done {
			t.Fatalf("the retry: %+v", d)
		}
		p.run()
		check(t, p, ep)
	})
	t.Run("a disabled endpoint stops the chain; a recover call once it is enabled resumes it", func(t *testing.T) {
		p, ep := setup(t)
		off := ep
		off.Enabled = false
		p.endpoints.Put(project, off)
		p.run()
		cur, _ := p.recoveries.Current(context.Background(), project, ep.ID)
		if cur.Status != webhook.RecoveryRunning || len(p.recoveries.Steps) != 1 {
			t.Fatalf("while disabled: %+v, %d steps", cur, len(p.recoveries.Steps))
		}
		p.endpoints.Put(project, ep)
		p.advance(webhook.RecoveryStall + time.Minute)
		if _, err := p.rc.Recover(context.Background(), project, ep, cur.Since, p.clock()); err != nil {
			t.Fatal(err)
		}
		p.run()
		check(t, p, ep)
	})
}
