package webhooktest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
)

// HealthEvents is an in-memory webhook.HealthEvents over the in-memory
// Endpoints: its outbox collects what it writes, for the dispatcher.
type HealthEvents struct {
	Faults
	Endpoints *Endpoints

	mu     sync.Mutex
	marks  map[string]bool
	outbox []webhook.Outgoing
	taken  int
	calls  int
}

// Calls counts the calls of Announce, Recover and Disable, failed ones
// included.
func (h *HealthEvents) Calls() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls
}

func (h *HealthEvents) call(op string) error {
	h.mu.Lock()
	h.calls++
	h.mu.Unlock()
	return h.take(op)
}

var _ webhook.HealthEvents = (*HealthEvents)(nil)

// Announce implements webhook.HealthEvents.
func (h *HealthEvents) Announce(_ context.Context, a webhook.Announcement) (bool, error) {
	return h.write("Announce", a, func(ep *webhook.Endpoint) bool {
		if !ep.Enabled || a.Streak == "" || ep.FailingSince != a.Streak || h.marks[mark(a, a.Kind)] {
			return false
		}
		if h.marks == nil {
			h.marks = map[string]bool{}
		}
		h.marks[mark(a, a.Kind)] = true
		return true
	})
}

func mark(a webhook.Announcement, kind string) string {
	return a.Event.ProjectID + "/" + a.Endpoint + "/" + a.Streak + "/" + kind
}

// Recover implements webhook.HealthEvents.
func (h *HealthEvents) Recover(_ context.Context, a webhook.Announcement, at time.Time) (bool, error) {
	return h.write("Recover", a, func(ep *webhook.Endpoint) bool {
		if a.Streak == "" || ep.FailingSince != a.Streak || !h.marks[mark(a, domain.EventEndpointFailing)] {
			return false
		}
		ep.LastSuccessAt, ep.ConsecutiveFailures, ep.FailingSince = ids.Timestamp(at), 0, ""
		return true
	})
}

// Disable implements webhook.HealthEvents.
func (h *HealthEvents) Disable(_ context.Context, a webhook.Announcement, reason string, at time.Time) (bool, error) {
	return h.write("Disable", a, func(ep *webhook.Endpoint) bool {
		if !ep.Enabled {
			return false
		}
		ep.Enabled, ep.DisabledReason, ep.DisabledAt, ep.UpdatedAt = false, reason, ids.Timestamp(at), ids.Timestamp(at)
		return true
	})
}

// write is what Announce, Recover and Disable share: under both locks, the
// endpoint a is about goes to apply, which changes it (and the marks) and
// answers whether the event is written; when it is, the endpoint is stored
// and the event put in the outbox.
func (h *HealthEvents) write(op string, a webhook.Announcement, apply func(ep *webhook.Endpoint) bool) (bool, error) {
	if err := h.call(op); err != nil {
		return false, err
	}
	h.Endpoints.mu.Lock()
	defer h.Endpoints.mu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	k := deliveryKey(a.Event.ProjectID, a.Endpoint)
	ep, ok := h.Endpoints.items[k]
	if !ok || !apply(&ep) {
		return false, nil
	}
	h.Endpoints.items[k] = ep
	h.outbox = append(h.outbox, webhook.Outgoing{Event: &a.Event, About: a.Endpoint})
	return true, nil
}

// Take returns the events written since the last Take, as the outbox
// stream hands them to the dispatcher.
func (h *HealthEvents) Take() []webhook.Outgoing {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := append([]webhook.Outgoing(nil), h.outbox[h.taken:]...)
	h.taken = len(h.outbox)
	return out
}

// HealthHarness adapts a HealthEvents implementation to its contract.
type HealthHarness struct {
	EndpointsHarness
	Health webhook.HealthEvents
	// Events returns the events written into project's outbox.
	Events func(t *testing.T, project string) []domain.Event
}

// NewHealthHarness is a harness over the in-memory HealthEvents.
func NewHealthHarness(t *testing.T) HealthHarness {
	eps := NewEndpointsHarness(t)
	h := &HealthEvents{Endpoints: eps.Endpoints.(*Endpoints)}
	return HealthHarness{EndpointsHarness: eps, Health: h, Events: func(_ *testing.T, project string) []domain.Event {
		h.mu.Lock()
		defer h.mu.Unlock()
		var out []domain.Event
		for _, o := range h.outbox {
			if o.Event.ProjectID == project {
				out = append(out, *o.Event)
			}
		}
		return out
	}}
}

// TestHealthEvents runs the contract of webhook.HealthEvents against the
// harnesses newHarness returns: each health event is written once per
// endpoint, streak and type, however many instances write it at once, and
// only while it is due.
func TestHealthEvents(t *testing.T, newHarness func(t *testing.T) HealthHarness) {
	ctx := context.Background()
	now := time.Now().Truncate(time.Millisecond)
	// failing returns a harness, a project and an endpoint in a streak.
	failing := func(t *testing.T) (HealthHarness, string, webhook.Endpoint) {
		h, p, ep := newHarness(t), ids.New(ids.Project, now), NewEndpoint(now)
		h.Add(t, p, ep)
		ep, err := h.Endpoints.RecordFailure(ctx, p, ep.ID, now)
		if err != nil {
			t.Fatal(err)
		}
		return h, p, ep
	}
	an := func(p string, ep webhook.Endpoint, kind string) webhook.Announcement {
		return webhook.Announcement{Kind: kind, Endpoint: ep.ID, Streak: ep.FailingSince,
			Event: domain.Event{ID: ids.New(ids.Event, now), Type: kind, CreatedAt: ids.Timestamp(now), ProjectID: p, Data: []byte(`{}`)}}
	}
	types := func(t *testing.T, h HealthHarness, p string) map[string]int {
		n := map[string]int{}
		for _, ev := range h.Events(t, p) {
			n[ev.Type]++
		}
		return n
	}
	// race runs write from 8 goroutines at once and counts the trues.
	race := func(t *testing.T, write func() (bool, error)) int {
		var mu sync.Mutex
		var wg sync.WaitGroup
		wrote := 0
		for range 8 {
			wg.Go(func() {
				ok, err := write()
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				defer mu.Unlock()
				if ok {
					wrote++
				}
			})
		}
		wg.Wait()
		return wrote
	}
	t.Run("a failing event is written once, however many instances write it at once", func(t *testing.T) {
		h, p, ep := failing(t)
		if n := race(t, func() (bool, error) { return h.Health.Announce(ctx, an(p, ep, domain.EventEndpointFailing)) }); n != 1 {
			t.Fatalf("%d writes reported", n)
		}
		if got := types(t, h, p); len(got) != 1 || got[domain.EventEndpointFailing] != 1 {
			t.Fatalf("events %v", got)
		}
	})
	t.Run("an event of a streak that ended, of a disabled or of a missing endpoint is not written", func(t *testing.T) {
		h, p, ep := failing(t)
		if _, err := h.Endpoints.RecordSuccess(ctx, p, ep.ID, now.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		other := NewEndpoint(now)
		h.Add(t, p, other)
		other, _ = h.Endpoints.RecordFailure(ctx, p, other.ID, now)
		if err := h.Endpoints.Disable(ctx, p, other.ID, "by hand", now); err != nil {
			t.Fatal(err)
		}
		if got, err := h.Endpoints.Get(ctx, p, other.ID); err != nil || got.DisabledAt != ids.Timestamp(now) {
			t.Fatalf("disabled at %q, %v", got.DisabledAt, err)
		}
		missing := NewEndpoint(now)
		missing.FailingSince = ids.Timestamp(now)
		for name, a := range map[string]webhook.Announcement{
			"ended": an(p, ep, domain.EventEndpointFailing), "disabled": an(p, other, domain.EventEndpointDisablingSoon),
			"missing": an(p, missing, domain.EventEndpointFailing),
		} {
			if ok, err := h.Health.Announce(ctx, a); ok || err != nil {
				t.Errorf("%s: written %v, %v", name, ok, err)
			}
		}
		if ok, err := h.Health.Disable(ctx, an(p, missing, domain.EventEndpointDisabled), "gone", now); ok || err != nil {
			t.Errorf("disable a missing endpoint: %v, %v", ok, err)
		}
		if got := types(t, h, p); len(got) != 0 {
			t.Fatalf("events %v", got)
		}
	})
	t.Run("a recovery is written once, with the success, and only after the streak's failing event", func(t *testing.T) {
		h, p, ep := failing(t)
		later := now.Add(time.Second)
		recovery := func() (bool, error) { return h.Health.Recover(ctx, an(p, ep, domain.EventEndpointRecovered), later) }
		if ok, err := recovery(); ok || err != nil {
			t.Fatalf("recovered before failing: %v, %v", ok, err)
		}
		if got, _ := h.Endpoints.Get(ctx, p, ep.ID); got.FailingSince != ep.FailingSince || got.LastSuccessAt != "" {
			t.Fatalf("a recovery not written changed the endpoint: %+v", got)
		}
		if ok, err := h.Health.Announce(ctx, an(p, ep, domain.EventEndpointFailing)); !ok || err != nil {
			t.Fatalf("failing: %v, %v", ok, err)
		}
		if n := race(t, recovery); n != 1 {
			t.Fatalf("%d recoveries reported", n)
		}
		got, err := h.Endpoints.Get(ctx, p, ep.ID)
		if err != nil || got.FailingSince != "" || got.ConsecutiveFailures != 0 || got.LastSuccessAt != ids.Timestamp(later) {
			t.Fatalf("after the recovery %+v, %v", got, err)
		}
		if got := types(t, h, p); len(got) != 2 || got[domain.EventEndpointRecovered] != 1 {
			t.Fatalf("events %v", got)
		}
		if ok, err := h.Health.Announce(ctx, an(p, ep, domain.EventEndpointFailing)); ok || err != nil {
			t.Fatalf("failing after the streak ended: %v, %v", ok, err)
		}
	})
	t.Run("a disable and its event happen together, once", func(t *testing.T) {
		h, p, ep := failing(t)
		if n := race(t, func() (bool, error) {
			return h.Health.Disable(ctx, an(p, ep, domain.EventEndpointDisabled), "the endpoint answered 410 Gone", now)
		}); n != 1 {
			t.Fatalf("%d disables reported", n)
		}
		got, err := h.Endpoints.Get(ctx, p, ep.ID)
		if err != nil || got.Enabled || got.DisabledReason != "the endpoint answered 410 Gone" || got.DisabledAt != ids.Timestamp(now) {
			t.Fatalf("endpoint %+v, %v", got, err)
		}
		if got := types(t, h, p); len(got) != 1 || got[domain.EventEndpointDisabled] != 1 {
			t.Fatalf("events %v", got)
		}
	})
}
