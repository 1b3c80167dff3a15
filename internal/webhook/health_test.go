package webhook_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
	"github.com/botix/public-api/internal/webhook/webhooktest"
)

func TestFailureEvents(t *testing.T) {
	start := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	const disableAfter = webhook.DefaultAutoDisableAfter
	streak := func(failures int, enabled bool) webhook.Endpoint {
		return webhook.Endpoint{ID: "we_1", Enabled: enabled, FailingSince: ids.Timestamp(start), ConsecutiveFailures: failures}
	}
	failing, soon, disabled := domain.EventEndpointFailing, domain.EventEndpointDisablingSoon, domain.EventEndpointDisabled
	for _, c := range []struct {
		name  string
		ep    webhook.Endpoint
		gone  bool
		after time.Duration
		kinds []string
		cause string
	}{
		{"a young streak is not announced, however long", streak(50, true), false, webhook.FailingFor - time.Second, nil, ""},
		{"an old streak of too few failures is not announced", streak(webhook.FailingAttempts-1, true), false, 2 * time.Hour, nil, ""},
		{"enough failures over FailingFor: failing", streak(webhook.FailingAttempts, true), false, webhook.FailingFor, []string{failing}, ""},
		{"just before the warning: still only failing", streak(9, true), false, disableAfter - webhook.DisableWarning - time.Second, []string{failing}, ""},
		{"within DisableWarning of the disable: failing, then disabling_soon", streak(9, true), false, disableAfter - webhook.DisableWarning, []string{failing, soon}, ""},
		{"AutoDisableAfter into the streak: only disabled, cause failing", streak(9, true), false, disableAfter, []string{disabled}, webhook.CauseFailing},
		{"410 Gone at the first failure: only disabled, cause gone", streak(1, true), true, 0, []string{disabled}, webhook.CauseGone},
		{"a disabled endpoint: nothing", streak(9, false), true, disableAfter, nil, ""},
		{"no streak: nothing", webhook.Endpoint{ID: "we_1", Enabled: true, ConsecutiveFailures: 9}, false, disableAfter, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			kinds, cause, reason := webhook.FailureEvents(c.ep, c.gone, start.Add(c.after), disableAfter)
			if !slices.Equal(kinds, c.kinds) || cause != c.cause || (cause == "") != (reason == "") {
				t.Fatalf("got %v, cause %q, reason %q; want %v, cause %q", kinds, cause, reason, c.kinds, c.cause)
			}
		})
	}
}

func TestRecoveryDue(t *testing.T) {
	start := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name  string
		ep    webhook.Endpoint
		after time.Duration
		want  bool
	}{
		{"no streak", webhook.Endpoint{}, time.Hour, false},
		{"a streak younger than FailingFor was never announced", webhook.Endpoint{FailingSince: ids.Timestamp(start)}, webhook.FailingFor - time.Second, false},
		{"a streak FailingFor old may have been", webhook.Endpoint{FailingSince: ids.Timestamp(start)}, webhook.FailingFor, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := webhook.RecoveryDue(c.ep, start.Add(c.after)); got != c.want {
				t.Fatalf("got %v", got)
			}
		})
	}
}

// withHealth is a pipeline whose deliverer announces health events into
// an in-memory outbox, with a failing endpoint and a second one
// subscribed to every event: a receiver that answers 503 until told.
type withHealth struct {
	*pipeline
	health  *webhooktest.HealthEvents
	failing webhook.Endpoint
	owner   webhook.Endpoint
	// answer is the failing endpoint's status (200 once it recovers).
	answer int
	sent   int
}

func newWithHealth(t *testing.T) *withHealth {
	p := &withHealth{pipeline: newPipeline(t), answer: 503}
	p.health = &webhooktest.HealthEvents{Endpoints: p.endpoints}
	p.deliverer.Announcer = &webhook.Announcer{Events: p.health, Log: p.deliverer.Log}
	p.failing = p.endpoint(webhook.AllEvents)
	p.owner = p.endpoint(webhook.AllEvents)
	p.owner.URL = "https://owner.example.com/hooks"
	p.endpoints.Put(project, p.owner)
	p.poster.Answer = func(_ int, posted webhooktest.Posted) webhook.Response {
		if posted.URL == p.failing.URL {
			return webhook.Response{Status: p.answer}
		}
		return webhook.Response{Status: 200}
	}
	return p
}

// step sends one business event, runs every queued message and the
// retries that are due, then dispatches the health events announced
// meanwhile (and delivers them).
func (p *withHealth) step() {
	p.dispatch(p.event(domain.EventContactCreated))
	for p.sent < len(p.queue.Sent()) {
		m := p.queue.Sent()[p.sent]
		p.sent++
		p.deliverer.Handle(context.Background(), m)
		if p.sent == len(p.queue.Sent()) {
			if hs := p.health.Take(); len(hs) > 0 {
				p.dispatch(hs...)
			}
		}
	}
}

// received returns the health events each endpoint was sent, by type.
func (p *withHealth) received() map[string][]string {
	out := map[string][]string{}
	for _, posted := range p.poster.Posted() {
		typ := posted.Headers[webhook.HeaderEvent]
		if slices.Contains(domain.HealthEventTypes, typ) {
			out[posted.URL] = append(out[posted.URL], typ)
		}
	}
	return out
}

// every runs step n times, advancing the clock by d before each.
func (p *withHealth) every(d time.Duration, n int) {
	for range n {
		p.advance(d)
		p.step()
	}
}

func (p *withHealth) expect(t *testing.T, owner ...string) {
	t.Helper()
	got := p.received()
	if !slices.Equal(got[p.owner.URL], owner) || len(got[p.failing.URL]) != 0 {
		t.Fatalf("the owner's endpoint received %v (want %v); the failing one %v (want none)", got[p.owner.URL], owner, got[p.failing.URL])
	}
	// Each announcement is one HealthTransitions of its kind, no more.
	want := map[string]float64{}
	for _, kind := range owner {
		want["HealthTransitions/"+strings.TrimPrefix(kind, "webhook_endpoint.")]++
	}
	for k, v := range p.tel.Totals() {
		if strings.HasPrefix(k, "HealthTransitions/") && want[k] != v {
			t.Fatalf("metric %s = %v, want %v (the announcements %v)", k, v, want[k], owner)
		}
		delete(want, k)
	}
	if len(want) > 0 {
		t.Fatalf("no metric for the announcements %v", want)
	}
}

func TestHealthEventsThroughThePipeline(t *testing.T) {
	failing, soon, disabled, recovered := domain.EventEndpointFailing, domain.EventEndpointDisablingSoon, domain.EventEndpointDisabled, domain.EventEndpointRecovered
	t.Run("a streak past the threshold: the other endpoint is told once, the failing one never (though it takes *)", func(t *testing.T) {
		p := newWithHealth(t)
		p.every(4*time.Minute, 3)
		p.expect(t)
		p.every(4*time.Minute, 10)
		p.expect(t, failing)
		posted := p.poster.Posted()
		var data webhook.HealthData
		for _, x := range posted {
			if x.Headers[webhook.HeaderEvent] == failing {
				var ev domain.Event
				_ = json.Unmarshal(x.Body, &ev)
				_ = json.Unmarshal(ev.Data, &data)
			}
		}
		ep, _ := p.endpoints.Get(context.Background(), project, p.failing.ID)
		if data.EndpointID != p.failing.ID || data.URL != p.failing.URL || data.FailingSince != ep.FailingSince || data.LastErrorClass != "http_503" || data.ConsecutiveFailures < webhook.FailingAttempts {
			t.Fatalf("failing data %+v, endpoint %+v", data, ep)
		}
	})
	t.Run("a success after it: recovered, once; a new streak is announced again", func(t *testing.T) {
		p := newWithHealth(t)
		p.every(10*time.Minute, 3)
		p.answer = 200
		p.every(time.Minute, 3)
		p.expect(t, failing, recovered)
		p.answer = 500
		p.every(10*time.Minute, 3)
		p.expect(t, failing, recovered, failing)
	})
	t.Run("a short streak recovers without a word", func(t *testing.T) {
		p := newWithHealth(t)
		p.every(time.Minute, 5)
		p.answer = 200
		p.every(time.Minute, 3)
		p.expect(t)
	})
	t.Run("failing for AutoDisableAfter: failing, disabling_soon a day before, disabled, then silence", func(t *testing.T) {
		p := newWithHealth(t)
		p.every(6*time.Hour, 24)
		p.expect(t, failing, soon, disabled)
		ep, _ := p.endpoints.Get(context.Background(), project, p.failing.ID)
		if ep.Enabled {
			t.Fatalf("endpoint %+v", ep)
		}
		var warned, off webhook.HealthData
		for _, x := range p.poster.Posted() {
			var ev domain.Event
			_ = json.Unmarshal(x.Body, &ev)
			switch ev.Type {
			case soon:
				_ = json.Unmarshal(ev.Data, &warned)
			case disabled:
				_ = json.Unmarshal(ev.Data, &off)
			}
		}
		since, _ := time.Parse(time.RFC3339Nano, ep.FailingSince)
		if warned.DisableAt != ids.Timestamp(since.Add(webhook.DefaultAutoDisableAfter)) || off.DisabledCause != webhook.CauseFailing || off.DisabledReason != ep.DisabledReason {
			t.Fatalf("disabling_soon %+v, disabled %+v, endpoint %+v", warned, off, ep)
		}
	})
	t.Run("410 Gone: disabled at once, cause gone, and nothing else", func(t *testing.T) {
		p := newWithHealth(t)
		p.answer = 410
		p.every(time.Minute, 3)
		p.expect(t, disabled)
	})
	t.Run("several deliverer instances: still once each", func(t *testing.T) {
		p := newWithHealth(t)
		first := p.deliverer
		second := &webhook.Deliverer{Deliveries: first.Deliveries, Endpoints: first.Endpoints, Queue: first.Queue, Scheduler: first.Scheduler,
			Poster: first.Poster, Config: first.Config, Log: first.Log, Now: first.Now, Announcer: &webhook.Announcer{Events: p.health, Log: first.Log}}
		for i := range 30 {
			p.deliverer = []*webhook.Deliverer{first, second}[i%2]
			p.advance(10 * time.Minute)
			p.step()
		}
		p.answer = 200
		p.every(time.Minute, 4)
		p.expect(t, failing, recovered)
		// 30 failures, yet each instance writes each event at most once.
		if n := p.health.Calls(); n > 2*2 {
			t.Fatalf("%d health writes for 2 events on 2 instances", n)
		}
	})
	t.Run("an announcement that failed is made by a later failure", func(t *testing.T) {
		p := newWithHealth(t)
		p.health.Fail("Announce", nil, 2)
		p.every(10*time.Minute, 6)
		p.expect(t, failing)
	})
	t.Run("a recovery whose write failed is announced by the next success", func(t *testing.T) {
		p := newWithHealth(t)
		p.every(10*time.Minute, 3)
		p.health.Fail("Recover", nil, 1)
		p.answer = 200
		p.every(time.Minute, 3)
		p.expect(t, failing, recovered)
		if ep, _ := p.endpoints.Get(context.Background(), project, p.failing.ID); ep.FailingSince != "" || ep.ConsecutiveFailures != 0 {
			t.Fatalf("endpoint %+v", ep)
		}
	})
	t.Run("a healthy endpoint costs no health write", func(t *testing.T) {
		p := newWithHealth(t)
		p.answer = 200
		p.every(time.Minute, 20)
		p.expect(t)
		if n := p.health.Calls(); n != 0 {
			t.Fatalf("%d health writes", n)
		}
	})
}
