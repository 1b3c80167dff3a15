package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/metrics"
)

// The thresholds of the health events. An endpoint is failing once its
// streak of failed attempts is FailingAttempts long and FailingFor old: a
// receiver's short deploy or one bad delivery announces nothing, and a
// streak younger than FailingFor can never have been announced, which the
// recovered rule relies on (FailingFor is far above endpointCacheTTL).
const (
	FailingAttempts = 3
	FailingFor      = 15 * time.Minute
	// DisableWarning is how long before the auto-disable (Config.
	// AutoDisableAfter into a streak) the disabling_soon event is sent.
	DisableWarning = 24 * time.Hour
)

// Why an endpoint was disabled (HealthData.DisabledCause).
const (
	CauseGone    = "gone"
	CauseFailing = "failing"
)

// HealthData is the data of a health event: the endpoint, its streak of
// failures, and what the kind adds (DisableAt, the disable, RecoveredAt).
type HealthData struct {
	// ID is the endpoint's id too: the object a thin body would name.
	ID         string `json:"id"`
	EndpointID string `json:"endpoint_id"`
	URL        string `json:"url"`
	// FailingSince is when the streak the event is about began; it names
	// the streak, with the endpoint and the type, exactly once.
	FailingSince        string `json:"failing_since"`
	ConsecutiveFailures int    `json:"consecutive_failures,omitempty"`
	LastFailureAt       string `json:"last_failure_at,omitempty"`
	// LastErrorClass is the last failed attempt's class: http_<status>,
	// or a failure without a response (connect_timeout, dns, ...).
	LastErrorClass string `json:"last_error_class,omitempty"`
	DisableAt      string `json:"disable_at,omitempty"`
	DisabledAt     string `json:"disabled_at,omitempty"`
	DisabledCause  string `json:"disabled_cause,omitempty"`
	DisabledReason string `json:"disabled_reason,omitempty"`
	RecoveredAt    string `json:"recovered_at,omitempty"`
}

// FailureEvents returns the health events a failed attempt calls for,
// given the endpoint as the failure left it, in the order they are due;
// cause is set when the endpoint must be disabled (then only the disabled
// event is due). gone is a 410 answer.
func FailureEvents(ep Endpoint, gone bool, now time.Time, autoDisableAfter time.Duration) (kinds []string, cause, reason string) {
	since, err := time.Parse(time.RFC3339Nano, ep.FailingSince)
	switch {
	case !ep.Enabled:
		return nil, "", ""
	case gone:
		return []string{domain.EventEndpointDisabled}, CauseGone, "the endpoint answered 410 Gone"
	case err != nil:
		return nil, "", ""
	case now.Sub(since) >= autoDisableAfter:
		return []string{domain.EventEndpointDisabled}, CauseFailing, fmt.Sprintf("every delivery failed for %s (since %s)", autoDisableAfter, ep.FailingSince)
	case ep.ConsecutiveFailures < FailingAttempts || now.Sub(since) < FailingFor:
		return nil, "", ""
	case now.Sub(since) >= autoDisableAfter-DisableWarning:
		return []string{domain.EventEndpointFailing, domain.EventEndpointDisablingSoon}, "", ""
	}
	return []string{domain.EventEndpointFailing}, "", ""
}

// RecoveryDue reports whether a success may end a streak that was
// announced, given the endpoint as the deliverer last saw it (at most
// endpointCacheTTL old): only a streak FailingFor old can have been, and
// an endpoint seen healthy that recently cannot be in such a streak. The
// store decides for sure (the failing event must exist).
func RecoveryDue(before Endpoint, now time.Time) bool {
	since, err := time.Parse(time.RFC3339Nano, before.FailingSince)
	return err == nil && now.Sub(since) >= FailingFor
}

// Announcer tells a project's owner about an endpoint's trouble with
// health events (FailureEvents, RecoveryDue). Each instance tries each
// announcement once: what it wrote, or found written, it remembers, so a
// long streak costs one conditional write per instance and event, not one
// per failure.
type Announcer struct {
	Events HealthEvents
	Log    *slog.Logger

	mu   sync.Mutex
	done map[string]bool
}

// afterFailure announces what a failure that left ep as it is calls for,
// and disables the endpoint when due (through eps when there is no
// Announcer).
func (a *Announcer) afterFailure(ctx context.Context, eps Endpoints, project string, ep Endpoint, decision Decision, now time.Time, autoDisableAfter time.Duration) (Endpoint, error) {
	kinds, cause, reason := FailureEvents(ep, decision.Verdict == DeadAndDisable, now, autoDisableAfter)
	data := HealthData{ID: ep.ID, EndpointID: ep.ID, URL: ep.URL, FailingSince: ep.FailingSince, ConsecutiveFailures: ep.ConsecutiveFailures,
		LastFailureAt: ep.LastFailureAt, LastErrorClass: decision.Class}
	if cause != "" {
		data.DisabledAt, data.DisabledCause, data.DisabledReason = ids.Timestamp(now), cause, reason
		if err := a.disable(ctx, eps, project, ep, data, now); err != nil {
			return ep, err
		}
		ep.Enabled, ep.DisabledReason = false, reason
		return ep, nil
	}
	for _, kind := range kinds {
		d := data
		if kind == domain.EventEndpointDisablingSoon {
			since, _ := time.Parse(time.RFC3339Nano, ep.FailingSince)
			d.DisableAt = ids.Timestamp(since.Add(autoDisableAfter))
		}
		a.announce(ctx, project, kind, d, now)
	}
	return ep, nil
}

// afterSuccess records a success (through eps) and, when it ends a streak
// that was announced, announces the recovery with it, atomically: a
// recovery whose write failed leaves the streak in place, and the next
// success announces it.
func (a *Announcer) afterSuccess(ctx context.Context, eps Endpoints, project string, before Endpoint, now time.Time) (Endpoint, error) {
	if a != nil && RecoveryDue(before, now) {
		an, err := announcement(project, domain.EventEndpointRecovered,
			HealthData{ID: before.ID, EndpointID: before.ID, URL: before.URL, FailingSince: before.FailingSince, LastFailureAt: before.LastFailureAt, RecoveredAt: ids.Timestamp(now)}, now)
		if err != nil {
			return before, err
		}
		switch recovered, err := a.Events.Recover(ctx, an, now); {
		case err != nil:
			return before, err
		case recovered:
			metrics.Put(ctx, a.Log, metrics.HealthTransitions, 1, transition(domain.EventEndpointRecovered))
			ep := before
			ep.LastSuccessAt, ep.ConsecutiveFailures, ep.FailingSince = ids.Timestamp(now), 0, ""
			return ep, nil
		}
	}
	return eps.RecordSuccess(ctx, project, before.ID, now)
}

func (a *Announcer) disable(ctx context.Context, eps Endpoints, project string, ep Endpoint, data HealthData, now time.Time) error {
	if a == nil {
		return eps.Disable(ctx, project, ep.ID, data.DisabledReason, now)
	}
	an, err := announcement(project, domain.EventEndpointDisabled, data, now)
	if err != nil {
		return err
	}
	wrote, err := a.Events.Disable(ctx, an, data.DisabledReason, now)
	if wrote {
		metrics.Put(ctx, a.Log, metrics.HealthTransitions, 1, transition(domain.EventEndpointDisabled))
	}
	return err
}

// announce writes one health event unless this instance already did (or
// found it written). A failure is logged and left for the next attempt's
// announce: the store's condition keeps it to one event.
func (a *Announcer) announce(ctx context.Context, project, kind string, data HealthData, now time.Time) {
	if a == nil {
		return
	}
	memo := project + "/" + data.EndpointID + "/" + data.FailingSince + "/" + kind
	if a.seen(memo) {
		return
	}
	an, err := announcement(project, kind, data, now)
	wrote := false
	if err == nil {
		wrote, err = a.Events.Announce(ctx, an)
	}
	if wrote {
		metrics.Put(ctx, a.Log, metrics.HealthTransitions, 1, transition(kind))
	}
	if err != nil {
		log := a.Log
		if log == nil {
			log = slog.Default()
		}
		log.WarnContext(ctx, "health event not announced; the next failed attempt tries again", "endpoint_id", data.EndpointID, "type", kind, "error", err.Error())
		return
	}
	a.remember(memo)
}

func announcement(project, kind string, data HealthData, now time.Time) (Announcement, error) {
	body, err := json.Marshal(data)
	if err != nil {
		return Announcement{}, err
	}
	ev := domain.Event{ID: ids.New(ids.Event, now), Type: kind, CreatedAt: ids.Timestamp(now), ProjectID: project, Data: body}
	return Announcement{Kind: kind, Endpoint: data.EndpointID, Streak: data.FailingSince, Event: ev}, nil
}

func (a *Announcer) seen(k string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.done[k]
}

// remember keeps what this instance announced; like the endpoint cache it
// starts over past 10,000 entries (forgetting costs one write that finds
// the event written).
func (a *Announcer) remember(k string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done == nil || len(a.done) > 10000 {
		a.done = map[string]bool{}
	}
	a.done[k] = true
}
