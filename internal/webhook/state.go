package webhook

import (
	"time"

	"github.com/botix/public-api/internal/ids"
)

// The states of an endpoint's health, worst first: the order an owner
// reads them in (HealthRank).
const (
	// HealthDisabled: nothing is sent; PATCH {"enabled": true} resumes.
	HealthDisabled = "disabled"
	// HealthFailing: the endpoint's last attempt failed (a streak of
	// ConsecutiveFailures failed attempts since FailingSince).
	HealthFailing = "failing"
	// HealthPaused: the receiver asked for a pause (a Retry-After on a
	// 429 or 503) that has not ended; nothing is sent before it does.
	HealthPaused = "paused"
	// HealthHealthy: the last attempt succeeded, or there was none.
	HealthHealthy = "healthy"
)

// HealthStates lists the health states, worst first.
var HealthStates = []string{HealthDisabled, HealthFailing, HealthPaused, HealthHealthy}

// DisabledManually is the reason of an endpoint disabled with PATCH
// {"enabled": false}, which records none.
const DisabledManually = "disabled through the API"

// Health is an endpoint's state as its owner reads it: what is wrong,
// why, and since when. It is derived from the endpoint (EndpointHealth),
// never stored.
type Health struct {
	State string `json:"state"`
	// Cause is the class of the last failed attempt (http_403, http_503,
	// connect_timeout, ...) while failing or disabled after a failure,
	// and the receiver's answer (http_429, http_503) while paused.
	Cause string `json:"cause,omitempty"`
	// Since is when the state began: the first failure of the streak, the
	// receiver's pause, the disable (empty while healthy).
	Since string `json:"since,omitempty"`
	// Until is the end of the receiver's pause (paused only).
	Until string `json:"until,omitempty"`
	// Reason says why a disabled endpoint was disabled.
	Reason string `json:"reason,omitempty"`
	// FailedAttempts counts the failed attempts of the streak: attempts,
	// not deliveries (each delivery is tried up to its schedule's length).
	FailedAttempts int `json:"failed_attempts,omitempty"`
}

// EndpointHealth is ep's health at now, lastClass being the class of its
// last failed attempt (what the deliverer recorded on the delivery; ""
// when unknown). A disabled endpoint is disabled whatever else holds; a
// receiver's pause outranks the failures that asked for it.
func EndpointHealth(ep Endpoint, lastClass string, now time.Time) Health {
	h := Health{State: HealthHealthy, FailedAttempts: ep.ConsecutiveFailures}
	failing := ep.ConsecutiveFailures > 0
	switch {
	case !ep.Enabled:
		h.State, h.Since, h.Reason = HealthDisabled, ep.DisabledAt, ep.DisabledReason
		if h.Reason == "" {
			h.Reason = DisabledManually
		}
		if failing {
			h.Cause = lastClass
		}
		if h.Since == "" {
			h.Since = ep.UpdatedAt
		}
	case ep.Flow.PausedUntil > now.UnixMilli():
		h.State, h.Cause, h.Until = HealthPaused, ep.Flow.Cause, ids.Timestamp(time.UnixMilli(ep.Flow.PausedUntil))
		if ep.Flow.DecreasedAt > 0 {
			h.Since = ids.Timestamp(time.UnixMilli(ep.Flow.DecreasedAt))
		}
	case failing:
		h.State, h.Cause, h.Since = HealthFailing, lastClass, ep.FailingSince
	default:
		h.FailedAttempts = 0
	}
	return h
}
