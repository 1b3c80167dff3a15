package webhook

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/domain"
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
	Attempts       int    `json:"attempts_count"`
	NextAttemptAt  string `json:"next_attempt_at,omitempty"`
	LastStatusCode int    `json:"last_status_code,omitempty"`
	LastErrorClass string `json:"last_error_class,omitempty"`
	DeadReason     string `json:"dead_reason,omitempty"`
	CreatedAt      string `json:"created_at"`
	UpdatedAt      string `json:"updated_at"`
	DeliveredAt    string `json:"delivered_at,omitempty"`
	// Payload is the webhook body, fixed when the delivery is created.
	Payload string `json:"-"`
	// ClaimToken and ClaimExpiresAt hold the attempt a worker runs.
	ClaimToken     string    `json:"-"`
	ClaimExpiresAt time.Time `json:"-"`
}

// Claim asks for one attempt of a delivery. The Deliveries port applies it
// atomically: Allows is the condition, Apply the change.
type Claim struct {
	Project, ID string
	Round       int
	Attempt     int
	// RedriveOfRound, when set, asks to start round RedriveOfRound+1 of a
	// dead delivery (a message redriven from the dead-letter queue).
	RedriveOfRound int
	Token          string
	// Until ends the claim (the worker's deadline); Now is when it is made.
	Until, Now time.Time
}

// Allows reports whether d may be claimed: a redrive claims a dead
// delivery of the round it names; a scheduled attempt claims a pending or
// retrying delivery at exactly that round and attempt, unless another
// worker's claim is still running.
func (c Claim) Allows(d Delivery) bool {
	if c.RedriveOfRound > 0 {
		return d.Status == StatusDead && d.Round == c.RedriveOfRound
	}
	return (d.Status == StatusPending || d.Status == StatusRetrying) && d.Round == c.Round && d.NextAttempt == c.Attempt &&
		(d.ClaimExpiresAt.IsZero() || d.ClaimExpiresAt.Before(c.Now))
}

// Apply returns d as a successful claim leaves it.
func (c Claim) Apply(d Delivery) Delivery {
	d.ClaimToken, d.ClaimExpiresAt = c.Token, c.Until
	if c.RedriveOfRound > 0 {
		d.Status, d.Round, d.NextAttempt, d.DeadReason, d.NextAttemptAt = StatusPending, c.RedriveOfRound+1, 1, "", ""
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
	case d == nil, d.Status == StatusDelivered, d.Status == StatusDead, c.RedriveOfRound > 0:
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

// AttemptKind says why an attempt was made.
type AttemptKind string

// Attempt kinds.
const (
	KindScheduled AttemptKind = "scheduled"
	// KindManual is a retry asked through the API.
	KindManual AttemptKind = "manual"
	// KindRedirect is the webhook sent to an inspector instead.
	KindRedirect AttemptKind = "redirect"
)

// Attempt is the log of one attempt, kept DeliveryRetention.
type Attempt struct {
	DeliveryID string `json:"delivery_id"`
	// Attempt is the attempt's number across rounds (X-Delivery-Attempt).
	Attempt       int         `json:"attempt"`
	Round         int         `json:"round"`
	Kind          AttemptKind `json:"kind"`
	URL           string      `json:"url"`
	RequestID     string      `json:"request_id"`
	StatusCode    int         `json:"status_code,omitempty"`
	ResponseBody  string      `json:"response_body,omitempty"`
	StartedAt     string      `json:"started_at"`
	DurationMs    int64       `json:"duration_ms"`
	ErrorClass    string      `json:"error_class,omitempty"`
	Error         string      `json:"error,omitempty"`
	NextAttemptAt string      `json:"next_attempt_at,omitempty"`
}

// RequestKind is what a delivery request asks for.
type RequestKind string

// Delivery request kinds.
const (
	RequestRetry    RequestKind = "retry"
	RequestRedirect RequestKind = "redirect"
)

// DeliveryRequest asks for one extra attempt of a delivery: a manual retry
// or a redirect to an inspector. Written in the API's transaction, it
// reaches the delivery queue through the outbox stream, so an accepted
// request is never lost to a crash.
type DeliveryRequest struct {
	ID         string
	ProjectID  string
	DeliveryID string
	Kind       RequestKind
	// TargetURL replaces the endpoint's URL (redirects).
	TargetURL string
}

// Outgoing is an outbox item on its way to receivers: an event (fanned
// out to every subscribed endpoint, or only to TargetEndpoint) or a
// delivery request.
type Outgoing struct {
	Event          *domain.Event
	TargetEndpoint string
	Request        *DeliveryRequest
}

// Message is the body of a delivery queue message, of a scheduled retry's
// target input, and of a dead letter.
type Message struct {
	DeliveryID string `json:"delivery_id"`
	ProjectID  string `json:"project_id"`
	Round      int    `json:"round,omitempty"`
	Attempt    int    `json:"attempt,omitempty"`
	// RedriveOfRound marks a dead letter. Consumed from the delivery queue
	// again (a DLQ redrive), it starts round RedriveOfRound+1: five fresh
	// attempts, unless the delivery was delivered meanwhile.
	RedriveOfRound int `json:"redrive_of_round,omitempty"`
	// Request names an extra attempt asked through the API.
	Request *MessageRequest `json:"request,omitempty"`
	// For people reading the dead-letter queue.
	EndpointID string `json:"endpoint_id,omitempty"`
	EventType  string `json:"event_type,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// MessageRequest is a delivery request carried by a message.
type MessageRequest struct {
	ID        string      `json:"id"`
	Kind      RequestKind `json:"kind"`
	TargetURL string      `json:"target_url,omitempty"`
}

func (m Message) String() string {
	b, _ := json.Marshal(m)
	return string(b)
}

// ParseMessage reads a message body; a body without a delivery and a
// project is not a message.
func ParseMessage(body string) (Message, error) {
	var m Message
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return Message{}, err
	}
	if m.DeliveryID == "" || m.ProjectID == "" {
		return Message{}, errNotAMessage
	}
	return m, nil
}

var errNotAMessage = errors.New("webhook: not a delivery message")
