package webhook

import (
	"time"

	"github.com/botix/public-api/internal/apierr"
)

// DeliveryRetention is how long deliveries and their attempt logs are kept.
const DeliveryRetention = 14 * 24 * time.Hour

// Status is where a delivery stands.
type Status string

// Delivery statuses.
const (
	// StatusPending: created; its first attempt has not been recorded.
	StatusPending Status = "pending"
	// StatusRetrying: an attempt failed and the next one is scheduled.
	StatusRetrying Status = "retrying"
	// StatusDelivered: a receiver answered 2xx. Final.
	StatusDelivered Status = "delivered"
	// StatusDead: the round ended without success; the delivery waits in
	// the dead-letter queue for a redrive, which starts a fresh round.
	StatusDead Status = "dead"
)

// Statuses lists every delivery status.
var Statuses = []Status{StatusPending, StatusRetrying, StatusDelivered, StatusDead}

// ErrDeliveryNotFound reports a delivery that does not exist in the project.
var ErrDeliveryNotFound = apierr.New(apierr.NotFound, "webhook delivery not found")

// Delivery is one event for one endpoint: created once by the dispatcher,
// moved on by the deliverer, kept DeliveryRetention.
type Delivery struct {
	ProjectID  string `json:"-"`
	ID         string `json:"id"`
	EventID    string `json:"event_id"`
	EventType  string `json:"event_type"`
	EndpointID string `json:"endpoint_id"`
	Status     Status `json:"status"`
	// Round counts delivery rounds: 1, then +1 per redrive from the DLQ.
	Round int `json:"round"`
	// NextAttempt is the number, within the round, of the attempt to run.
	NextAttempt int `json:"-"`
	// Attempts counts every attempt made, manual ones included.
	Attempts int `json:"attempts_count"`
	// Throttles counts the attempts of the round the receiver answered
	// with "slow down" (Throttled): they keep the round's schedule where
	// it was, up to MaxThrottles.
	Throttles      int    `json:"-"`
	NextAttemptAt  string `json:"next_attempt_at,omitempty"`
	LastStatusCode int    `json:"last_status_code,omitempty"`
	LastErrorClass string `json:"last_error_class,omitempty"`
	DeadReason     string `json:"dead_reason,omitempty"`
	CreatedAt      string `json:"created_at"`
	UpdatedAt      string `json:"updated_at"`
	DeliveredAt    string `json:"delivered_at,omitempty"`
	// RecoveredAt is when a recovery started the delivery's current round
	// (zero when its round was not started by a recovery): a later
	// recovery leaves it alone for RecoveryCooldown (see Recoverer).
	RecoveredAt time.Time `json:"-"`
	// RecoveryID is the recovery that started the current round ("" when
	// none did): the round's end counts as that recovery's outcome.
	RecoveryID string `json:"-"`
	// Payload is the webhook body, fixed when the delivery is created.
	Payload string `json:"-"`
	// ClaimToken and ClaimExpiresAt hold the attempt a worker runs.
	ClaimToken     string    `json:"-"`
	ClaimExpiresAt time.Time `json:"-"`
}

// Failed reports whether a delivery is one a recovery takes: it failed
// and is not delivered (retrying, or dead).
func (d Delivery) Failed() bool { return d.Status == StatusRetrying || d.Status == StatusDead }

// Claim asks for one attempt of a delivery. The Deliveries port applies it
// atomically: Allows is the condition, Apply the change.
type Claim struct {
	Project, ID string
	Round       int
	Attempt     int
	// RedriveOfRound, when set, asks to start round RedriveOfRound+1 of a
	// dead delivery (a message redriven from the dead-letter queue).
	RedriveOfRound int
	// Recovery, with RedriveOfRound, names the recovery that asks for the
	// fresh round: the delivery keeps when (RecoveredAt = Now), so that
	// another recovery does not send it again within RecoveryCooldown. A
	// redrive without it (from the dead-letter queue) clears RecoveredAt.
	Recovery string
	Token    string
	// Until ends the claim (the worker's deadline); Now is when it is made.
	Until, Now time.Time
	// Endpoint is the delivery's endpoint, when the message names it: a
	// claim gives a delivery stored claimed, whose worker crashed before
	// recording its attempt, its place in the lists (see Deliveries.Create).
	Endpoint string
}

// Allows reports whether d may be claimed: a redrive (from the dead-letter
// queue, or a recovery) claims a dead or retrying delivery still in the
// round it names; a scheduled attempt claims a pending or retrying
// delivery at exactly that round and attempt. Neither takes an attempt
// another worker's claim still holds.
func (c Claim) Allows(d Delivery) bool {
	free := d.ClaimExpiresAt.IsZero() || d.ClaimExpiresAt.Before(c.Now)
	if c.RedriveOfRound > 0 {
		return (d.Status == StatusDead || d.Status == StatusRetrying) && d.Round == c.RedriveOfRound && free
	}
	return (d.Status == StatusPending || d.Status == StatusRetrying) && d.Round == c.Round && d.NextAttempt == c.Attempt && free
}

// Apply returns d as a successful claim leaves it.
func (c Claim) Apply(d Delivery) Delivery {
	d.ClaimToken, d.ClaimExpiresAt = c.Token, c.Until
	if c.RedriveOfRound > 0 {
		d.Status, d.Round, d.NextAttempt, d.DeadReason, d.NextAttemptAt, d.Throttles = StatusPending, c.RedriveOfRound+1, 1, "", "", 0
		d.RecoveredAt, d.RecoveryID = time.Time{}, c.Recovery
		if c.Recovery != "" {
			d.RecoveredAt = c.Now
		}
	}
	return d
}

// ClaimOutcome says what a claim found.
type ClaimOutcome int

// Claim outcomes.
const (
	// Claimed: the attempt is ours to run.
	Claimed ClaimOutcome = iota + 1
	// Stale: the message is obsolete (delivered, dead, a later attempt or
	// round, or gone); drop it.
	Stale
	// Early: the delivery has not reached this attempt yet (its previous
	// attempt is being recorded); try again shortly.
	Early
	// Busy: another worker holds the attempt.
	Busy
)

// Diagnose explains why c could not claim d (nil: no such delivery).
func (c Claim) Diagnose(d *Delivery) ClaimOutcome {
	switch {
	case d == nil, d.Status == StatusDelivered:
		return Stale
	case c.RedriveOfRound > 0:
		if d.Round == c.RedriveOfRound && d.Status == StatusRetrying && !d.ClaimExpiresAt.Before(c.Now) {
			return Busy
		}
		return Stale
	case d.Status == StatusDead:
		return Stale
	case d.Round != c.Round || d.NextAttempt > c.Attempt:
		return Stale
	case d.NextAttempt < c.Attempt:
		return Early
	case !d.ClaimExpiresAt.Before(c.Now):
		return Busy
	}
	return Stale
}

// Result is how a claimed attempt changes its delivery.
type Result struct {
	Status        Status
	NextAttemptAt string
	DeadReason    string
	LastStatus    int
	LastClass     string
	// Throttled counts the attempt in Delivery.Throttles.
	Throttled bool
}

// Apply returns d after a claimed attempt with result r was recorded at
// now (a timestamp): the attempt counted, the next one numbered, the claim
// released.
func (r Result) Apply(d Delivery, now string) Delivery {
	d.Status, d.NextAttemptAt, d.LastStatusCode, d.LastErrorClass = r.Status, r.NextAttemptAt, r.LastStatus, r.LastClass
	if r.DeadReason != "" {
		d.DeadReason = r.DeadReason
	}
	if r.Status == StatusDelivered {
		d.DeliveredAt = now
	}
	d.Attempts++
	d.NextAttempt++
	if r.Throttled {
		d.Throttles++
	}
	d.UpdatedAt, d.ClaimToken, d.ClaimExpiresAt = now, "", time.Time{}
	return d
}

// MarkExtra returns d after a manual or redirected attempt was logged at
// now: counted, and delivered if a manual one succeeded (a scheduled
// attempt then finds it so and stops); the round is left alone.
func MarkExtra(d Delivery, delivered bool, now string) Delivery {
	d.Attempts++
	d.UpdatedAt = now
	if delivered && d.Status != StatusDelivered {
		d.Status, d.DeliveredAt, d.NextAttemptAt, d.DeadReason = StatusDelivered, now, "", ""
	}
	return d
}
