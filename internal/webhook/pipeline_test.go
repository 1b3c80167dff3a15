package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	kit "github.com/botix/public-api/sdk/go/webhook"
	kittest "github.com/botix/public-api/sdk/go/webhook/webhooktest"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/logs"
	"github.com/botix/public-api/internal/metrics/collect"
	"github.com/botix/public-api/internal/webhook"
	"github.com/botix/public-api/internal/webhook/webhooktest"
)

func TestFakesMeetTheContracts(t *testing.T) {
	t.Run("deliveries", func(t *testing.T) {
		webhooktest.TestDeliveries(t, func(*testing.T) webhook.Deliveries { return &webhooktest.Deliveries{} })
	})
	t.Run("endpoints", func(t *testing.T) { webhooktest.TestEndpoints(t, webhooktest.NewEndpointsHarness) })
	t.Run("health events", func(t *testing.T) { webhooktest.TestHealthEvents(t, webhooktest.NewHealthHarness) })
}

const project = "prj_01JDQ7X3ZV8N5W2K4R6T9Y1B3C"

// pipeline is the dispatcher, deliverer and redriver over in-memory ports,
// with a clock that only moves when told.
type pipeline struct {
	t          *testing.T
	deliveries *webhooktest.Deliveries
	endpoints  *webhooktest.Endpoints
	queue      *webhooktest.Queue
	scheduler  *webhooktest.Scheduler
	poster     *webhooktest.Poster
	dlq        *webhooktest.DeadLetterQueue
	dispatcher *webhook.Dispatcher
	deliverer  *webhook.Deliverer
	redriver   *webhook.Redriver
	clk        *kittest.Clock
	// tel reads the metrics every part of the pipeline logged.
	tel *collect.Telemetry
}

func newPipeline(t *testing.T) *pipeline {
	p := &pipeline{t: t, deliveries: &webhooktest.Deliveries{}, endpoints: &webhooktest.Endpoints{}, queue: &webhooktest.Queue{},
		scheduler: &webhooktest.Scheduler{}, poster: &webhooktest.Poster{}, dlq: &webhooktest.DeadLetterQueue{},
		clk: kittest.NewClock(time.Date(2026, 11, 29, 8, 0, 0, 250e6, time.UTC)), tel: &collect.Telemetry{}}
	log := p.tel.Logger("DeliverFunction")
	p.deliveries.Now = p.clock
	p.dispatcher = &webhook.Dispatcher{Endpoints: p.endpoints, Deliveries: p.deliveries, Queue: p.queue, Log: log, Now: p.clock}
	p.deliverer = &webhook.Deliverer{Deliveries: p.deliveries, Endpoints: p.endpoints, Queue: p.queue, Scheduler: p.scheduler, Poster: p.poster,
		Config: webhook.Config{Schedule: webhook.DefaultSchedule, AutoDisableAfter: webhook.DefaultAutoDisableAfter}, Log: log, Now: p.clock,
		Sleep: func(time.Duration) {}}
	p.redriver = &webhook.Redriver{DeadLetters: p.dlq, Deliveries: p.deliveries, Log: log}
	return p
}

func (p *pipeline) clock() time.Time { return p.clk.Now() }

func (p *pipeline) advance(d time.Duration) { p.clk.Advance(d) }

// endpoint registers an enabled endpoint subscribed to types.
func (p *pipeline) endpoint(types ...string) webhook.Endpoint {
	ep := webhooktest.NewEndpoint(p.clock())
	ep.Secrets = ep.Secrets[:1]
	ep.Events = types
	p.endpoints.Put(project, ep)
	return ep
}

func (p *pipeline) event(typ string) webhook.Outgoing {
	now := p.clock()
	return webhook.Outgoing{Event: &domain.Event{ID: ids.New(ids.Event, now), Type: typ, CreatedAt: ids.Timestamp(now), ProjectID: project, Data: json.RawMessage(`{"id":"ct_1"}`)}}
}

// dispatch dispatches items and fails the test on any error.
func (p *pipeline) dispatch(items ...webhook.Outgoing) {
	p.t.Helper()
	for i, err := range p.dispatcher.Dispatch(context.Background(), items) {
		if err != nil {
			p.t.Fatalf("item %d: %v", i, err)
		}
	}
}

// deliverAll hands every message enqueued so far (from the n-th on) to
// the deliverer and returns the dispositions.
func (p *pipeline) deliverFrom(n int) []webhook.Disposition {
	var out []webhook.Disposition
	for _, m := range p.queue.Sent()[n:] {
		out = append(out, p.deliverer.Handle(context.Background(), m))
	}
	return out
}

func (p *pipeline) only() webhook.Delivery {
	p.t.Helper()
	all := p.deliveries.All()
	if len(all) != 1 {
		p.t.Fatalf("%d deliveries, want 1", len(all))
	}
	return all[0]
}

func (p *pipeline) attempts(d webhook.Delivery) []webhook.Attempt {
	log, _ := p.deliveries.Attempts(context.Background(), d.ProjectID, d.ID)
	return log
}

// firstAttempt is a pipeline with one endpoint subscribed to every event,
// one event dispatched, and its first attempt made against answer (200
// when nil).
func firstAttempt(t *testing.T, answer func(int, webhooktest.Posted) webhook.Response) (*pipeline, webhook.Endpoint) {
	p := newPipeline(t)
	ep := p.endpoint(webhook.AllEvents)
	p.poster.Answer = answer
	p.dispatch(p.event(domain.EventContactCreated))
	p.deliverFrom(0)
	return p, ep
}

func answer(status int, retryAfter string) func(int, webhooktest.Posted) webhook.Response {
	return func(int, webhooktest.Posted) webhook.Response {
		return webhook.Response{Status: status, RetryAfter: retryAfter, Body: "answer " + strconv.Itoa(status), Duration: 5 * time.Millisecond}
	}
}

// TestDelivererTransitions drives one delivery through each transition the
// deliverer knows, on in-memory ports.
func TestDelivererTransitions(t *testing.T) {
	t.Run("2xx: delivered, signed both ways, logged", func(t *testing.T) {
		p := newPipeline(t)
		ep := p.endpoint(domain.EventContactCreated)
		p.dispatch(p.event(domain.EventContactCreated))
		if d := p.deliverFrom(0); len(d) != 1 || !d[0].Done {
			t.Fatalf("dispositions %+v", d)
		}
		got := p.only()
		if got.Status != webhook.StatusDelivered || got.Attempts != 1 || got.DeliveredAt == "" || len(p.scheduler.All()) != 0 || len(p.queue.Dead()) != 0 {
			t.Fatalf("delivery %+v, schedules %v, dead %v", got, p.scheduler.All(), p.queue.Dead())
		}
		posted := p.poster.Posted()[0]
		ts, _ := strconv.ParseInt(posted.Headers[webhook.HeaderTimestamp], 10, 64)
		want, err := kit.Sign([]string{ep.Secrets[0].Value}, got.EventID, ts, posted.Body)
		if err != nil {
			t.Fatal(err)
		}
		if posted.Headers[webhook.HeaderSignature] != want.Get(webhook.HeaderSignature) {
			t.Fatalf("X-Botix-Signature %q, want %q", posted.Headers[webhook.HeaderSignature], want.Get(webhook.HeaderSignature))
		}
		if posted.Headers[webhook.HeaderStdSig] != want.Get(webhook.HeaderStdSig) || posted.Headers[webhook.HeaderID] != got.EventID {
			t.Fatalf("webhook-signature %q of %s, want %q of %s", posted.Headers[webhook.HeaderStdSig], posted.Headers[webhook.HeaderID], want.Get(webhook.HeaderStdSig), got.EventID)
		}
		if posted.Headers[webhook.HeaderAttempt] != "1" || posted.Headers[webhook.HeaderEvent] != domain.EventContactCreated || !strings.HasPrefix(posted.Headers[webhook.HeaderRequestID], "req_") {
			t.Fatalf("headers %v", posted.Headers)
		}
		log := p.attempts(got)
		if len(log) != 1 || log[0].StatusCode != 200 || log[0].RequestID != posted.Headers[webhook.HeaderRequestID] || log[0].Kind != webhook.KindScheduled || log[0].URL != ep.URL {
			t.Fatalf("attempt log %+v", log)
		}
	})
	t.Run("5xx: retrying, the next attempt scheduled after the table's wait, on a whole second", func(t *testing.T) {
		p, _ := firstAttempt(t, answer(503, ""))
		got := p.only()
		sched := p.scheduler.All()
		want := p.clock().Add(time.Minute).Truncate(time.Second).Add(time.Second)
		if got.Status != webhook.StatusRetrying || len(sched) != 1 || !sched[0].At.Equal(want) || sched[0].Message.Attempt != 2 || sched[0].Message.Round != 1 {
			t.Fatalf("delivery %+v, schedules %+v (want at %s)", got, sched, want)
		}
		if got.NextAttemptAt != ids.Timestamp(want) || got.LastStatusCode != 503 || got.LastErrorClass != "http_503" {
			t.Fatalf("delivery %+v", got)
		}
		if ep, _ := p.endpoints.Get(context.Background(), project, got.EndpointID); ep.ConsecutiveFailures != 1 || ep.FailingSince == "" {
			t.Fatalf("endpoint health %+v", ep)
		}
	})
	t.Run("429 with Retry-After: the same place in the schedule after the receiver's wait, on the queue; the endpoint paused and slowed, not failing", func(t *testing.T) {
		p, _ := firstAttempt(t, answer(429, "120"))
		got := p.only()
		later := p.queue.Deferred()
		if len(p.scheduler.All()) != 0 || len(later) != 1 || later[0].Message.Attempt != 2 || later[0].Delay != p.clock().Add(2*time.Minute).Truncate(time.Second).Add(time.Second).Sub(p.clock()) {
			t.Fatalf("schedules %+v, deferred %+v", p.scheduler.All(), later)
		}
		if got.Status != webhook.StatusRetrying || got.Throttles != 1 || got.LastErrorClass != "http_429" {
			t.Fatalf("delivery %+v", got)
		}
		ep, _ := p.endpoints.Get(context.Background(), project, got.EndpointID)
		if ep.ConsecutiveFailures != 0 || ep.Flow.PausedUntil != p.clock().Add(2*time.Minute).UnixMilli() || ep.Flow.R0 != webhook.AdaptiveStartRate || ep.Flow.Cause != "http_429" {
			t.Fatalf("endpoint %+v (flow %+v)", ep, ep.Flow)
		}
		// The next answer, a plain failure, waits the schedule's first step:
		// the 429 did not use it up.
		p.poster.Answer = answer(500, "")
		p.advance(3 * time.Minute)
		if d := p.deliverer.Handle(context.Background(), later[0].Message); !d.Done {
			t.Fatalf("second attempt: %+v", d)
		}
		if sched := p.scheduler.All(); len(sched) != 1 || !sched[0].At.Equal(p.clock().Add(time.Minute).Truncate(time.Second).Add(time.Second)) {
			t.Fatalf("schedules %+v", sched)
		}
	})
	t.Run("503 with Retry-After slows down like 429; a Retry-After past 15 minutes is scheduled", func(t *testing.T) {
		p, _ := firstAttempt(t, answer(503, "3600"))
		got := p.only()
		if sched := p.scheduler.All(); len(sched) != 1 || !sched[0].At.Equal(p.clock().Add(time.Hour).Truncate(time.Second).Add(time.Second)) || len(p.queue.Deferred()) != 0 {
			t.Fatalf("schedules %+v, deferred %+v", sched, p.queue.Deferred())
		}
		if got.Throttles != 1 {
			t.Fatalf("delivery %+v", got)
		}
	})
	t.Run("429 without Retry-After: again in a second, at the lowered pace", func(t *testing.T) {
		p, _ := firstAttempt(t, answer(429, ""))
		if later := p.queue.Deferred(); len(later) != 1 || later[0].Delay > 2*time.Second {
			t.Fatalf("deferred %+v", later)
		}
	})
	t.Run("a receiver that answers 429 MaxThrottles times in a round is failing", func(t *testing.T) {
		p, _ := firstAttempt(t, answer(429, "1"))
		for range webhook.MaxThrottles - 1 {
			later := p.queue.Deferred()
			p.advance(2 * time.Second)
			p.deliverer.Handle(context.Background(), later[len(later)-1].Message)
		}
		got := p.only()
		if got.Throttles != webhook.MaxThrottles-1 || len(p.scheduler.All()) != 1 || got.Attempts != webhook.MaxThrottles {
			t.Fatalf("delivery %+v, schedules %d", got, len(p.scheduler.All()))
		}
	})
	t.Run("5 failed attempts: dead, with a dead letter that a redrive can start again", func(t *testing.T) {
		p, _ := firstAttempt(t, answer(500, ""))
		for i := range 4 {
			next := p.scheduler.All()[i]
			p.advance(next.At.Sub(p.clock()))
			if d := p.deliverer.Handle(context.Background(), next.Message); !d.Done {
				t.Fatalf("attempt %d: %+v", i+2, d)
			}
		}
		got := p.only()
		dead := p.queue.Dead()
		if got.Status != webhook.StatusDead || got.Attempts != 5 || len(dead) != 1 || dead[0].RedriveOfRound != 1 || dead[0].Reason != "5 attempts failed; the last: HTTP 500" || dead[0].EndpointID != got.EndpointID {
			t.Fatalf("delivery %+v, dead letters %+v", got, dead)
		}
		if len(p.scheduler.All()) != 4 {
			t.Fatalf("%d schedules, want 4", len(p.scheduler.All()))
		}
	})
	t.Run("401: dead at once, to the dead-letter queue", func(t *testing.T) {
		p, _ := firstAttempt(t, answer(401, ""))
		if got := p.only(); got.Status != webhook.StatusDead || got.DeadReason == "" || len(p.queue.Dead()) != 1 || len(p.scheduler.All()) != 0 {
			t.Fatalf("delivery %+v", got)
		}
	})
	t.Run("410: dead, and the endpoint is disabled", func(t *testing.T) {
		p, ep := firstAttempt(t, answer(410, ""))
		got, _ := p.endpoints.Get(context.Background(), project, ep.ID)
		if p.only().Status != webhook.StatusDead || got.Enabled || got.DisabledReason != "the endpoint answered 410 Gone" || len(p.queue.Dead()) != 1 {
			t.Fatalf("endpoint %+v", got)
		}
	})
	t.Run("a deleted endpoint: dead without a request and without a dead letter", func(t *testing.T) {
		p := newPipeline(t)
		ep := p.endpoint(webhook.AllEvents)
		p.dispatch(p.event(domain.EventContactCreated))
		p.endpoints.Delete(project, ep.ID)
		p.deliverFrom(0)
		got := p.only()
		if got.Status != webhook.StatusDead || got.LastErrorClass != webhook.ClassEndpointDeleted || len(p.poster.Posted()) != 0 || len(p.queue.Dead()) != 0 {
			t.Fatalf("delivery %+v, posted %d, dead %d", got, len(p.poster.Posted()), len(p.queue.Dead()))
		}
	})
	t.Run("an endpoint deleted after this instance last read it: its queued deliveries are not sent", func(t *testing.T) {
		p, ep := firstAttempt(t, nil)
		p.dispatch(p.event(domain.EventContactCreated))
		p.endpoints.Delete(project, ep.ID)
		p.deliverer.HandleBatch(context.Background(), p.queue.Sent()[1:])
		var gone int
		for _, d := range p.deliveries.All() {
			if d.Status == webhook.StatusDead && d.LastErrorClass == webhook.ClassEndpointDeleted {
				gone++
			}
		}
		if len(p.poster.Posted()) != 1 || gone != 1 {
			t.Fatalf("posted %d (1 before the delete), dead for the deleted endpoint %d", len(p.poster.Posted()), gone)
		}
	})
	t.Run("a disabled endpoint: dead without a request, with a dead letter to redrive once it is enabled", func(t *testing.T) {
		p := newPipeline(t)
		ep := p.endpoint(webhook.AllEvents)
		p.dispatch(p.event(domain.EventContactCreated))
		ep.Enabled, ep.DisabledReason = false, "disabled by its owner"
		p.endpoints.Put(project, ep)
		p.deliverFrom(0)
		got := p.only()
		if got.Status != webhook.StatusDead || got.LastErrorClass != webhook.ClassEndpointDisabled || len(p.poster.Posted()) != 0 || len(p.queue.Dead()) != 1 {
			t.Fatalf("delivery %+v", got)
		}
	})
	t.Run("early: a message ahead of its delivery comes back shortly, without a request", func(t *testing.T) {
		p := newPipeline(t)
		p.endpoint(webhook.AllEvents)
		p.dispatch(p.event(domain.EventContactCreated))
		m := p.queue.Sent()[0]
		m.Attempt = 2
		if d := p.deliverer.Handle(context.Background(), m); d.Done || d.RetryIn != 2*time.Second || len(p.poster.Posted()) != 0 {
			t.Fatalf("disposition %+v", d)
		}
	})
	t.Run("busy: a message whose attempt another worker holds returns when the claim ends", func(t *testing.T) {
		p := newPipeline(t)
		p.endpoint(webhook.AllEvents)
		p.dispatch(p.event(domain.EventContactCreated))
		m := p.queue.Sent()[0]
		if _, claimed, _ := p.deliveries.Claim(context.Background(), webhook.Claim{Project: project, ID: m.DeliveryID, Round: 1, Attempt: 1, Token: "other", Now: p.clock(), Until: p.clock().Add(40 * time.Second)}); !claimed {
			t.Fatal("setup claim failed")
		}
		if d := p.deliverer.Handle(context.Background(), m); d.Done || d.RetryIn != 41*time.Second || len(p.poster.Posted()) != 0 {
			t.Fatalf("disposition %+v", d)
		}
	})
	t.Run("stale: a duplicate message of a recorded attempt is dropped without a request", func(t *testing.T) {
		p := newPipeline(t)
		p.endpoint(webhook.AllEvents)
		p.dispatch(p.event(domain.EventContactCreated))
		p.deliverFrom(0)
		if d := p.deliverFrom(0); !d[0].Done || len(p.poster.Posted()) != 1 || p.only().Attempts != 1 {
			t.Fatalf("duplicate: %+v, posted %d", d, len(p.poster.Posted()))
		}
	})
	t.Run("a stale claim cannot record: the worker that took the attempt over stands", func(t *testing.T) {
		p := newPipeline(t)
		p.endpoint(webhook.AllEvents)
		p.dispatch(p.event(domain.EventContactCreated))
		m := p.queue.Sent()[0]
		// The first worker stalls after its POST, past its claim; a second
		// worker takes the attempt over and records it.
		p.deliverer.Hooks.AfterPost = func(ctx context.Context, id string) error {
			p.deliverer.Hooks.AfterPost = nil
			p.advance(2 * time.Minute)
			if d := p.deliverer.Handle(ctx, m); !d.Done {
				t.Errorf("taker: %+v", d)
			}
			return nil
		}
		ctx, cancel := context.WithDeadline(context.Background(), p.clock().Add(time.Minute))
		defer cancel()
		if d := p.deliverer.Handle(ctx, m); !d.Done {
			t.Fatalf("stalled worker: %+v", d)
		}
		if got := p.only(); got.Attempts != 1 || len(p.attempts(got)) != 1 || len(p.poster.Posted()) != 2 {
			t.Fatalf("delivery %+v, log %d, posted %d", got, len(p.attempts(got)), len(p.poster.Posted()))
		}
	})
	t.Run("a crash between the request and its record: the message returns and the attempt runs again", func(t *testing.T) {
		p := newPipeline(t)
		p.endpoint(webhook.AllEvents)
		p.dispatch(p.event(domain.EventContactCreated))
		p.deliverer.Hooks.AfterPost = func(context.Context, string) error { return errors.New("crash") }
		ctx, cancel := context.WithDeadline(context.Background(), p.clock().Add(time.Minute))
		defer cancel()
		if d := p.deliverer.Handle(ctx, p.queue.Sent()[0]); d.Done || d.RetryIn != 0 {
			t.Fatalf("crashed: %+v", d)
		}
		p.deliverer.Hooks.AfterPost = nil
		p.advance(6 * time.Minute) // the queue's visibility timeout; the claim is over
		if d := p.deliverFrom(0); !d[0].Done {
			t.Fatalf("retry: %+v", d)
		}
		if got := p.only(); got.Status != webhook.StatusDelivered || got.Attempts != 1 || len(p.poster.Posted()) != 2 {
			t.Fatalf("delivery %+v, posted %d", got, len(p.poster.Posted()))
		}
	})
	t.Run("a failure to schedule or record leaves the message to the queue", func(t *testing.T) {
		for _, op := range []string{"Schedule", "Finish", "Claim"} {
			t.Run(op, func(t *testing.T) {
				p := newPipeline(t)
				p.endpoint(webhook.AllEvents)
				p.poster.Answer = answer(503, "")
				p.scheduler.Fail(op, nil, 1)
				p.deliveries.Fail(op, nil, 1)
				p.dispatch(p.event(domain.EventContactCreated))
				if d := p.deliverFrom(0); d[0].Done {
					t.Fatalf("%s failed, yet the message is done", op)
				}
				p.advance(6 * time.Minute)
				p.deliverFrom(0)
				if got := p.only(); got.Status != webhook.StatusRetrying || got.Attempts != 1 || len(p.scheduler.All()) != 1 {
					t.Fatalf("delivery %+v, schedules %d", got, len(p.scheduler.All()))
				}
			})
		}
	})
	t.Run("an endpoint that failed every delivery for 5 days is disabled", func(t *testing.T) {
		p := newPipeline(t)
		ep := p.endpoint(webhook.AllEvents)
		p.poster.Answer = answer(500, "")
		for i := range 7 {
			p.dispatch(p.event(domain.EventContactCreated))
			p.deliverFrom(i)
			p.advance(24 * time.Hour)
		}
		got, _ := p.endpoints.Get(context.Background(), project, ep.ID)
		if got.Enabled || !strings.HasPrefix(got.DisabledReason, "every delivery failed for 120h0m0s") {
			t.Fatalf("endpoint %+v", got)
		}
	})
}

func TestExtraAttemptsAndRedrive(t *testing.T) {
	request := func(d webhook.Delivery, kind webhook.RequestKind, target string) webhook.Outgoing {
		return webhook.Outgoing{Request: &webhook.DeliveryRequest{ID: "dreq_1", ProjectID: project, DeliveryID: d.ID, Kind: kind, TargetURL: target}}
	}
	t.Run("a manual retry of a dead delivery is logged; its success delivers it and the round stops", func(t *testing.T) {
		p, _ := firstAttempt(t, answer(503, ""))
		p.poster.Answer = nil
		n := len(p.queue.Sent())
		p.dispatch(request(p.only(), webhook.RequestRetry, ""))
		if d := p.deliverFrom(n); !d[0].Done {
			t.Fatalf("manual: %+v", d)
		}
		got := p.only()
		log := p.attempts(got)
		if got.Status != webhook.StatusDelivered || got.Attempts != 2 || got.Round != 1 || len(log) != 2 || log[1].Kind != webhook.KindManual || log[1].StatusCode != 200 {
			t.Fatalf("delivery %+v, log %+v", got, log)
		}
		if d := p.deliverer.Handle(context.Background(), p.scheduler.All()[0].Message); !d.Done || len(p.poster.Posted()) != 2 {
			t.Fatalf("the scheduled attempt after the manual success: %+v, posted %d", d, len(p.poster.Posted()))
		}
	})
	t.Run("a redirect goes to the inspector and leaves the delivery's status alone", func(t *testing.T) {
		p, _ := firstAttempt(t, answer(401, ""))
		p.poster.Answer = nil
		n := len(p.queue.Sent())
		p.dispatch(request(p.only(), webhook.RequestRedirect, "https://api.example.com/inspect/insp_x"))
		p.deliverFrom(n)
		got := p.only()
		log := p.attempts(got)
		if got.Status != webhook.StatusDead || len(log) != 2 || log[1].Kind != webhook.KindRedirect || log[1].URL != "https://api.example.com/inspect/insp_x" || p.poster.Posted()[1].URL != log[1].URL {
			t.Fatalf("delivery %+v, log %+v", got, log)
		}
	})
	t.Run("the redriver moves matching dead letters, drops delivered ones, and leaves the rest", func(t *testing.T) {
		p := newPipeline(t)
		p.endpoint(webhook.AllEvents)
		p.poster.Answer = answer(401, "")
		for range 3 {
			p.dispatch(p.event(domain.EventContactCreated))
		}
		p.dispatch(p.event(domain.EventMessageSent))
		p.deliverFrom(0)
		for _, m := range p.queue.Dead() {
			p.dlq.Add(m.String())
		}
		p.dlq.Add("not a message")
		all := p.deliveries.All()
		p.poster.Answer = nil
		n := len(p.queue.Sent())
		p.dispatch(request(all[0], webhook.RequestRetry, ""))
		p.deliverFrom(n) // one of them is delivered by hand meanwhile
		out, err := p.redriver.Redrive(context.Background(), webhook.RedriveInput{EventType: domain.EventContactCreated})
		if err != nil {
			t.Fatal(err)
		}
		want := webhook.RedriveOutput{Moved: 2, SkippedDelivered: 1, SkippedFilter: 2}
		if all[0].EventType != domain.EventContactCreated {
			want = webhook.RedriveOutput{Moved: 3, SkippedDelivered: 0, SkippedFilter: 2}
		}
		if out != want || p.dlq.Len() != 2 {
			t.Fatalf("redrive %+v, want %+v; %d left", out, want, p.dlq.Len())
		}
		for _, body := range p.dlq.Requeued() {
			m, _ := webhook.ParseMessage(body)
			if d := p.deliverer.Handle(context.Background(), m); !d.Done {
				t.Fatalf("redriven: %+v", d)
			}
			if got, _ := p.deliveries.Get(context.Background(), project, m.DeliveryID); got.Status != webhook.StatusDelivered || got.Round != 2 {
				t.Fatalf("redriven delivery %+v", got)
			}
		}
	})
}

func TestRecovery(t *testing.T) {
	p := newPipeline(t)
	ep, other := p.endpoint(domain.EventContactCreated), p.endpoint(domain.EventMessageSent)
	since := p.clock()
	sent := func(typ string, status int) {
		n := len(p.queue.Sent())
		p.poster.Answer = answer(status, "")
		p.dispatch(p.event(typ))
		p.deliverFrom(n)
		p.advance(time.Second)
	}
	sent(domain.EventContactCreated, 401) // dead
	sent(domain.EventContactCreated, 503) // retrying
	sent(domain.EventContactCreated, 200) // delivered
	sent(domain.EventMessageSent, 401)    // another endpoint's, dead
	p.poster.Answer = nil
	posted := len(p.poster.Posted())
	recoveries := &webhooktest.Recoveries{}
	rc := &webhook.Recoverer{Deliveries: p.deliveries, Recoveries: recoveries, NewID: func(t time.Time) string { return ids.New(ids.Recovery, t) }}
	// recoverCall is one recover call and the dispatch of the step it
	// wrote (the stream carries it to the dispatcher).
	recoverCall := func() webhook.RecoveryCall {
		t.Helper()
		steps := len(recoveries.Steps)
		ctx := logs.WithLogger(context.Background(), p.tel.Logger("RecoverWebhookEndpointFunction"))
		call, err := rc.Recover(ctx, project, ep, since, p.clock())
		if err != nil {
			t.Fatal(err)
		}
		for _, step := range recoveries.Steps[steps:] {
			p.dispatch(webhook.Outgoing{Request: &webhook.DeliveryRequest{ID: call.ID, ProjectID: project, Kind: webhook.RequestRecover, EndpointID: ep.ID, Messages: step}})
		}
		return call
	}
	n := len(p.queue.Sent())
	call := recoverCall()
	msgs := p.queue.Sent()[n:]
	if len(msgs) != 2 || call.Queued != 2 || call.HasMore() {
		t.Fatalf("a recovery of 2 failed deliveries sent %d messages: %+v", len(msgs), call)
	}
	if got := p.tel.Totals()["Recoveries"]; got != 2 {
		t.Fatalf("the Recoveries metric counts %v queued deliveries, want 2", got)
	}
	for _, d := range p.deliverFrom(n) {
		if !d.Done {
			t.Fatalf("recovered: %+v", d)
		}
	}
	for _, d := range p.deliveries.All() {
		switch {
		case d.EndpointID == other.ID && d.Status != webhook.StatusDead:
			t.Errorf("another endpoint's delivery was recovered: %+v", d)
		case d.EndpointID == ep.ID && (d.Status != webhook.StatusDelivered || (d.Round != 2) != (d.Attempts == 1)):
			t.Errorf("after the recovery %+v", d)
		}
	}
	if got := len(p.poster.Posted()) - posted; got != 2 {
		t.Fatalf("%d requests, want one per failed delivery", got)
	}
	t.Run("a second recovery, a replayed step and the old round's retry send nothing", func(t *testing.T) {
		posted, n := len(p.poster.Posted()), len(p.queue.Sent())
		if again := recoverCall(); again.ID == call.ID || again.Queued != 0 || again.HasMore() {
			t.Fatalf("a second recovery after the first completed: %+v", again)
		}
		p.dispatch(webhook.Outgoing{Request: &webhook.DeliveryRequest{ID: call.ID, ProjectID: project, Kind: webhook.RequestRecover, EndpointID: ep.ID, Messages: recoveries.Steps[0]}})
		p.advance(time.Hour)
		for _, s := range p.scheduler.All() {
			p.deliverer.Handle(context.Background(), s.Message)
		}
		for _, m := range p.queue.Sent()[n:] {
			p.deliverer.Handle(context.Background(), m)
		}
		if got := len(p.poster.Posted()) - posted; got != 0 {
			t.Fatalf("%d requests after everything was delivered", got)
		}
	})
	t.Run("a recovery message replayed after its round started is dropped", func(t *testing.T) {
		posted := len(p.poster.Posted())
		for _, m := range msgs {
			if d := p.deliverer.Handle(context.Background(), m); !d.Done {
				t.Fatalf("replayed: %+v", d)
			}
		}
		if got := len(p.poster.Posted()) - posted; got != 0 {
			t.Fatalf("%d requests from replayed recovery messages", got)
		}
	})
}

// TestRecoveryCooldown: while the receiver is still broken, a delivery a
// recovery re-sent fails again; another recovery within RecoveryCooldown
// leaves it alone (the review's amplification), one after it sends it once
// more, and a redrive from the dead-letter queue clears the mark.
func TestRecoveryCooldown(t *testing.T) {
	p := newPipeline(t)
	ep := p.endpoint(domain.EventContactCreated)
	since := p.clock()
	p.poster.Answer = answer(503, "")
	n := len(p.queue.Sent())
	p.dispatch(p.event(domain.EventContactCreated))
	p.deliverFrom(n) // retrying, round 1
	recoveries := &webhooktest.Recoveries{}
	rc := &webhook.Recoverer{Deliveries: p.deliveries, Recoveries: recoveries, NewID: func(t time.Time) string { return ids.New(ids.Recovery, t) }}
	recoverOnce := func() (webhook.RecoveryCall, int) {
		t.Helper()
		steps, posted, n := len(recoveries.Steps), len(p.poster.Posted()), len(p.queue.Sent())
		ctx := logs.WithLogger(context.Background(), p.tel.Logger("RecoverWebhookEndpointFunction"))
		call, err := rc.Recover(ctx, project, ep, since, p.clock())
		if err != nil {
			t.Fatal(err)
		}
		for _, step := range recoveries.Steps[steps:] {
			p.dispatch(webhook.Outgoing{Request: &webhook.DeliveryRequest{ID: call.ID, ProjectID: project, Kind: webhook.RequestRecover, EndpointID: ep.ID, Messages: step}})
		}
		p.deliverFrom(n)
		return call, len(p.poster.Posted()) - posted
	}
	for i, c := range []struct {
		name           string
		after          time.Duration
		posts, skipped int
		wantRound      int
	}{
		{"the first recovery re-sends the retrying delivery", time.Second, 1, 0, 2},
		{"another one a minute later leaves it alone", time.Minute, 0, 1, 2},
		{"and one just before the cooldown ends", webhook.RecoveryCooldown - time.Minute - 2*time.Second, 0, 1, 2},
		{"one after the cooldown sends it once more", 2 * time.Second, 1, 0, 3},
	} {
		p.advance(c.after)
		call, posts := recoverOnce()
		d := p.only()
		if posts != c.posts || call.Skipped != c.skipped || d.Round != c.wantRound || call.HasMore() {
			t.Fatalf("%d %s: %d POSTs, %+v, delivery round %d", i, c.name, posts, call, d.Round)
		}
	}
	t.Run("a redrive from the dead-letter queue clears the mark", func(t *testing.T) {
		d := p.only()
		claimed, ok, err := p.deliveries.Claim(context.Background(), webhook.Claim{Project: project, ID: d.ID, RedriveOfRound: d.Round, Token: "t", Now: p.clock(), Until: p.clock().Add(time.Minute)})
		if err != nil || !ok || !claimed.RecoveredAt.IsZero() {
			t.Fatalf("a DLQ redrive: %v %v %+v", ok, err, claimed)
		}
	})
}

// dyingAgain is a dead-letter queue whose redriven deliveries die again
// at once, as they do while the receiver is still broken.
type dyingAgain struct{ *webhooktest.DeadLetterQueue }

func (q dyingAgain) Requeue(ctx context.Context, l webhook.DeadLetter) error {
	if err := q.DeadLetterQueue.Requeue(ctx, l); err != nil {
		return err
	}
	q.Add(l.Body)
	return nil
}

func TestRedriveMovesEachDeliveryOncePerRun(t *testing.T) {
	p := newPipeline(t)
	p.endpoint(webhook.AllEvents)
	p.poster.Answer = answer(401, "")
	p.dispatch(p.event(domain.EventContactCreated))
	p.deliverFrom(0)
	p.dlq.Add(p.queue.Dead()[0].String())
	p.redriver.DeadLetters = dyingAgain{p.dlq}
	out, err := p.redriver.Redrive(context.Background(), webhook.RedriveInput{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Moved != 1 || len(p.dlq.Requeued()) != 1 || p.dlq.Len() != 1 {
		t.Fatalf("redrive %+v: %d requeued, %d left; the delivery that died again must wait for the next run", out, len(p.dlq.Requeued()), p.dlq.Len())
	}
}

func TestRedriveMovesMessagesOfTheirOwnEachOnce(t *testing.T) {
	p := newPipeline(t)
	for _, body := range []string{
		`{"project_id":"prj_a","outbox":{"entity":{"S":"event"}}}`,
		`{"project_id":"prj_b","outbox":{"entity":{"S":"event"}}}`,
		`{"project_id":"prj_b","outbox":{"entity":{"S":"delivery_request"}}}`,
	} {
		p.dlq.Add(body)
	}
	out, err := p.redriver.Redrive(context.Background(), webhook.RedriveInput{ProjectID: "prj_b"})
	if err != nil {
		t.Fatal(err)
	}
	// Without a delivery id, none is taken for another's "moved already".
	if out.Moved != 2 || len(p.dlq.Requeued()) != 2 || p.dlq.Len() != 1 {
		t.Fatalf("redrive %+v: %d requeued, %d left; want project B's two parked records moved", out, len(p.dlq.Requeued()), p.dlq.Len())
	}
}

func TestDispatcher(t *testing.T) {
	t.Run("an event goes to each enabled, subscribed endpoint once", func(t *testing.T) {
		p := newPipeline(t)
		a, b := p.endpoint(domain.EventContactCreated), p.endpoint(webhook.AllEvents)
		p.endpoint(domain.EventMessageSent)
		off := p.endpoint(webhook.AllEvents)
		off.Enabled = false
		p.endpoints.Put(project, off)
		p.dispatch(p.event(domain.EventContactCreated))
		targets := map[string]bool{}
		for _, d := range p.deliveries.All() {
			targets[d.EndpointID] = true
		}
		if len(targets) != 2 || !targets[a.ID] || !targets[b.ID] || len(p.queue.Sent()) != 2 {
			t.Fatalf("deliveries to %v, %d messages", targets, len(p.queue.Sent()))
		}
	})
	t.Run("a test event goes to its endpoint only, even a disabled one", func(t *testing.T) {
		p := newPipeline(t)
		p.endpoint(webhook.AllEvents)
		target := p.endpoint(domain.EventContactCreated)
		target.Enabled = false
		p.endpoints.Put(project, target)
		ev := p.event(domain.EventWebhookTest)
		ev.TargetEndpoint = target.ID
		p.dispatch(ev)
		if d := p.only(); d.EndpointID != target.ID {
			t.Fatalf("delivered to %s", d.EndpointID)
		}
	})
	t.Run("a replayed batch sends again but never resets a delivery", func(t *testing.T) {
		p := newPipeline(t)
		p.endpoint(webhook.AllEvents)
		ev := p.event(domain.EventContactCreated)
		p.dispatch(ev)
		p.deliverFrom(0)
		p.dispatch(ev)
		if d := p.deliverFrom(1); !d[0].Done {
			t.Fatalf("replayed message: %+v", d)
		}
		if got := p.only(); got.Status != webhook.StatusDelivered || len(p.poster.Posted()) != 1 {
			t.Fatalf("delivery %+v, posted %d", got, len(p.poster.Posted()))
		}
	})
	t.Run("one endpoint read per project per batch", func(t *testing.T) {
		p := newPipeline(t)
		p.endpoint(webhook.AllEvents)
		p.dispatch(p.event(domain.EventContactCreated), p.event(domain.EventMessageSent), p.event(domain.EventScenarioStarted))
		if p.endpoints.Reads != 1 || len(p.queue.Sent()) != 3 {
			t.Fatalf("%d reads, %d messages", p.endpoints.Reads, len(p.queue.Sent()))
		}
	})
	t.Run("a project's flood goes on the bulk lane, its retries with it, and no other project's", func(t *testing.T) {
		const quiet = "prj_01JDQ7X3ZV8N5W2K4R6T9Y1QQQ"
		for _, tc := range []struct {
			name   string
			events int
			every  time.Duration // between the events' created_at
			bulk   bool
		}{
			{"BulkAfter deliveries stay on the delivery queue", webhook.BulkAfter, 0, false},
			{"one more goes on the bulk lane", webhook.BulkAfter + 1, 0, true},
			{"created over a second, they are a flood still", 2 * webhook.BulkAfter, time.Second / time.Duration(2*webhook.BulkAfter), true},
			{"a steady sender's backlog read in one batch is not a flood", 2 * webhook.BulkAfter, time.Second / 10, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				p := newPipeline(t)
				p.endpoint(webhook.AllEvents)
				p.endpoints.Put(quiet, webhooktest.NewEndpoint(p.clock()))
				var evs []webhook.Outgoing
				for range tc.events {
					evs = append(evs, p.event(domain.EventContactCreated))
					p.advance(tc.every)
				}
				other := p.event(domain.EventContactCreated)
				other.Event.ProjectID = quiet
				p.dispatch(append(evs, other)...)
				stored, carried := len(p.deliveries.All()), 0
				for _, m := range p.queue.Sent() {
					if m.Pending != nil {
						carried++
					}
				}
				if want := map[bool]int{true: 1, false: tc.events + 1}[tc.bulk]; stored != want || carried != tc.events+1-want {
					t.Fatalf("the dispatcher stored %d deliveries (want %d) and %d messages carry theirs", stored, want, carried)
				}
				p.poster.Answer = answer(500, "")
				p.deliverFrom(0)
				if n := len(p.deliveries.All()); n != tc.events+1 {
					t.Fatalf("%d deliveries stored after the first attempts, want %d", n, tc.events+1)
				}
				lanes := map[string]int{}
				for _, m := range p.queue.Sent() {
					lanes[fmt.Sprintf("%s sent, bulk %v", m.ProjectID, m.Bulk)]++
				}
				for _, s := range p.scheduler.All() {
					lanes[fmt.Sprintf("%s retried, bulk %v", s.Message.ProjectID, s.Message.Bulk)]++
				}
				want := map[string]int{
					fmt.Sprintf("%s sent, bulk %v", project, tc.bulk): tc.events, fmt.Sprintf("%s retried, bulk %v", project, tc.bulk): tc.events,
					quiet + " sent, bulk false": 1, quiet + " retried, bulk false": 1,
				}
				if !maps.Equal(lanes, want) {
					t.Fatalf("messages by lane %v, want %v", lanes, want)
				}
			})
		}
	})
	t.Run("a bulk lane's delivery is stored as its first attempt is claimed, once, and a message that comes again posts nothing", func(t *testing.T) {
		p := newPipeline(t)
		p.endpoint(webhook.AllEvents)
		var evs []webhook.Outgoing
		for range webhook.BulkAfter + 1 {
			evs = append(evs, p.event(domain.EventContactCreated))
		}
		p.dispatch(evs...)
		first := p.queue.Sent()[0]
		if !first.Bulk || first.Pending == nil || len(p.deliveries.All()) != 0 {
			t.Fatalf("first message %+v, %d deliveries stored", first, len(p.deliveries.All()))
		}
		// The worker crashes after its POST: the delivery is stored,
		// claimed by it, and the message comes back.
		p.deliverer.Hooks.AfterPost = func(context.Context, string) error { return errors.New("crash") }
		if d := p.deliverer.Handle(context.Background(), first); d.Done {
			t.Fatal("a crashed attempt finished its message")
		}
		p.deliverer.Hooks.AfterPost = nil
		d, err := p.deliveries.Get(context.Background(), project, first.DeliveryID)
		if err != nil || d.ClaimToken == "" || d.Status != webhook.StatusPending || d.Payload != first.Pending.Payload || d.CreatedAt != first.Pending.CreatedAt {
			t.Fatalf("stored %+v, %v", d, err)
		}
		if disp := p.deliverer.Handle(context.Background(), first); disp.Done || disp.RetryIn <= 0 {
			t.Fatalf("the message came back while the crashed claim held: %+v", disp)
		}
		p.advance(2 * time.Minute)
		for range 2 {
			if disp := p.deliverer.Handle(context.Background(), first); !disp.Done {
				t.Fatalf("after the claim ended: %+v", disp)
			}
		}
		d, _ = p.deliveries.Get(context.Background(), project, first.DeliveryID)
		if d.Status != webhook.StatusDelivered || d.Attempts != 1 || len(p.poster.Posted()) != 2 {
			t.Fatalf("delivery %+v, posted %d (the crashed attempt and the one after its claim ended)", d, len(p.poster.Posted()))
		}
	})
	t.Run("failures are reported per item and retried safely", func(t *testing.T) {
		cases := []struct {
			name string
			arm  func(p *pipeline)
		}{
			{"the endpoints cannot be read", func(p *pipeline) { p.endpoints.Fail("ForProject", nil, 1) }},
			{"a delivery cannot be stored", func(p *pipeline) { p.deliveries.Fail("Create", nil, 1) }},
			{"the queue refuses", func(p *pipeline) { p.queue.Fail("Enqueue", nil, 1) }},
			{"a crash before the send", func(p *pipeline) {
				p.dispatcher.Hooks.BeforeSend = func(context.Context) error {
					p.dispatcher.Hooks.BeforeSend = nil
					return errors.New("crash")
				}
			}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				p := newPipeline(t)
				p.endpoint(webhook.AllEvents)
				c.arm(p)
				ev := p.event(domain.EventContactCreated)
				if errs := p.dispatcher.Dispatch(context.Background(), []webhook.Outgoing{ev}); errs[0] == nil {
					t.Fatal("the failure was not reported")
				}
				p.dispatch(ev)
				p.deliverFrom(0)
				if got := p.only(); got.Status != webhook.StatusDelivered || len(p.poster.Posted()) != 1 {
					t.Fatalf("delivery %+v, posted %d", got, len(p.poster.Posted()))
				}
			})
		}
	})
}

// successCounter counts the success writes that reach the endpoints.
type successCounter struct {
	webhook.Endpoints
	n atomic.Int64
}

func (c *successCounter) RecordSuccess(ctx context.Context, project, id string, at time.Time) (webhook.Endpoint, error) {
	c.n.Add(1)
	return c.Endpoints.RecordSuccess(ctx, project, id, at)
}

// A batch's attempts that succeed together against an endpoint whose last
// success is not recent (new, or failing until now) write that success
// once between them, not once each: every one of them read the endpoint
// before any had succeeded.
func TestABatchsSuccessesWriteTheEndpointsHealthOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		failing int
	}{
		{"a new endpoint", 0},
		{"a failing endpoint that recovers", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPipeline(t)
			ep := p.endpoint(webhook.AllEvents)
			if tc.failing > 0 {
				ep.ConsecutiveFailures, ep.FailingSince, ep.LastFailureAt = tc.failing, ids.Timestamp(p.clock().Add(-time.Hour)), ids.Timestamp(p.clock())
				p.endpoints.Put(project, ep)
			}
			counter := &successCounter{Endpoints: p.endpoints}
			p.deliverer.Endpoints = counter
			const batch = 10
			var arrived sync.WaitGroup
			arrived.Add(batch)
			p.poster.Answer = func(int, webhooktest.Posted) webhook.Response {
				arrived.Done()
				arrived.Wait() // every attempt is in flight before any answer
				return webhook.Response{Status: 204}
			}
			var evs []webhook.Outgoing
			for range batch {
				evs = append(evs, p.event(domain.EventContactCreated))
				p.advance(time.Second) // a steady sender: the delivery queue
			}
			p.dispatch(evs...)
			for i, d := range p.deliverer.HandleBatch(context.Background(), p.queue.Sent()) {
				if !d.Done {
					t.Fatalf("message %d: %+v", i, d)
				}
			}
			if n := counter.n.Load(); n != 1 {
				t.Fatalf("%d success writes for one batch, want 1", n)
			}
			got, err := p.endpoints.Get(context.Background(), project, ep.ID)
			if err != nil || got.ConsecutiveFailures != 0 || got.FailingSince != "" || got.LastSuccessAt == "" {
				t.Fatalf("endpoint after the batch %+v, %v", got, err)
			}
		})
	}
}

// inFlight is a Deliveries whose claims, creates and records take a
// while, and which notes the most of them in flight at once.
type inFlight struct {
	webhook.Deliveries
	now, most atomic.Int64
}

func (f *inFlight) hold() func() {
	n := f.now.Add(1)
	for m := f.most.Load(); n > m && !f.most.CompareAndSwap(m, n); m = f.most.Load() {
	}
	time.Sleep(20 * time.Millisecond)
	return func() { f.now.Add(-1) }
}

func (f *inFlight) Create(ctx context.Context, d webhook.Delivery) (bool, error) {
	defer f.hold()()
	return f.Deliveries.Create(ctx, d)
}

func (f *inFlight) Claim(ctx context.Context, c webhook.Claim) (*webhook.Delivery, bool, error) {
	defer f.hold()()
	return f.Deliveries.Claim(ctx, c)
}

func (f *inFlight) Finish(ctx context.Context, d webhook.Delivery, token string, r webhook.Result, a webhook.Attempt) error {
	defer f.hold()()
	return f.Deliveries.Finish(ctx, d, token, r, a)
}

// A bulk lane batch's attempts have at most DefaultBulkCalls database
// calls in flight at once, and are all delivered; the delivery queue's
// are not held to it.
func TestABulkLaneBatchSpreadsItsDatabaseCalls(t *testing.T) {
	for _, tc := range []struct {
		name  string
		every time.Duration // between the events' created_at
		bulk  bool
	}{
		{"a flood, on the bulk lane", 0, true},
		{"a steady sender, on the delivery queue", time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPipeline(t)
			p.endpoint(webhook.AllEvents)
			var evs []webhook.Outgoing
			for range webhook.BulkAfter + 1 {
				evs = append(evs, p.event(domain.EventContactCreated))
				p.advance(tc.every)
			}
			p.dispatch(evs...)
			db := &inFlight{Deliveries: p.deliveries}
			p.deliverer.Deliveries = db
			msgs := p.queue.Sent()[:10]
			for i, d := range p.deliverer.HandleBatch(context.Background(), msgs) {
				if !d.Done || msgs[i].Bulk != tc.bulk {
					t.Fatalf("message %d (bulk %v): %+v", i, msgs[i].Bulk, d)
				}
			}
			if most := db.most.Load(); (most <= webhook.DefaultBulkCalls) != tc.bulk {
				t.Fatalf("%d database calls in flight at most (bulk lane's bound %d)", most, webhook.DefaultBulkCalls)
			}
			for _, m := range msgs {
				if d, err := p.deliveries.Get(context.Background(), project, m.DeliveryID); err != nil || d.Status != webhook.StatusDelivered {
					t.Fatalf("delivery %+v, %v", d, err)
				}
			}
		})
	}
}
