package webhook

import (
	"encoding/json"
	"errors"
	"strconv"
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
	// Recovery, with RedriveOfRound, names the recovery that asks for the
	// fresh round: the delivery keeps when (RecoveredAt = Now), so that
	// another recovery does not send it again within RecoveryCooldown. A
	// redrive without it (from the dead-letter queue) clears RecoveredAt.
	Recovery string
	Token    string
	// Until ends the claim (the worker's deadline); Now is when it is made.
	Until, Now time.Time
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
		d.RecoveredAt = time.Time{}
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
	// RequestRecover starts a fresh round for every failed (retrying) or
	// dead delivery of an endpoint created within a time window.
	RequestRecover RequestKind = "recover"
)

// DeliveryRequest asks for more attempts: one extra attempt of a delivery
// (a manual retry, or a redirect to an inspector), or the recovery of an
// endpoint's failed deliveries. Written in the API's transaction, it
// reaches the delivery queue through the outbox stream, so an accepted
// request is never lost to a crash.
type DeliveryRequest struct {
	ID         string
	ProjectID  string
	DeliveryID string
	Kind       RequestKind
	// TargetURL replaces the endpoint's URL (redirects).
	TargetURL string
	// EndpointID is the endpoint a recovery step, or the delivery of a
	// retry or redirect, is about.
	EndpointID string
	// Messages are the redrives one step of a recovery queues (at most
	// MaxRecoveryBatch, chosen by the Recoverer when it wrote the step).
	Messages []Message
	// Continuation, on a step of a recovery still running, asks for its
	// next step (the dispatcher queues it, delayed to Continuation.At).
	Continuation *Continuation
}

// Failed reports whether a delivery is one a recovery takes: it failed
// and is not delivered (retrying, or dead).
func (d Delivery) Failed() bool { return d.Status == StatusRetrying || d.Status == StatusDead }

// Counts are attempts of one hour by the status each left its delivery
// in: delivered, still retrying, or dead. The dashboard stacks them.
type Counts struct {
	Delivered int64 `json:"delivered"`
	Retrying  int64 `json:"retrying"`
	Dead      int64 `json:"dead"`
}

// Add returns c + o.
func (c Counts) Add(o Counts) Counts {
	return Counts{Delivered: c.Delivered + o.Delivered, Retrying: c.Retrying + o.Retrying, Dead: c.Dead + o.Dead}
}

// Total is every attempt counted.
func (c Counts) Total() int64 { return c.Delivered + c.Retrying + c.Dead }

// Outcomes are what attempts are counted as.
var Outcomes = []Status{StatusDelivered, StatusRetrying, StatusDead}

// Outcome is what an attempt that left its delivery in status counts as:
// delivered, dead, or (still pending or retrying) retrying.
func Outcome(status Status) Status {
	if status == StatusDelivered || status == StatusDead {
		return status
	}
	return StatusRetrying
}

// Of points at c's count of the outcome of status.
func (c *Counts) Of(status Status) *int64 {
	switch Outcome(status) {
	case StatusDelivered:
		return &c.Delivered
	case StatusDead:
		return &c.Dead
	}
	return &c.Retrying
}

// CountOf is how one attempt that left its delivery in status counts.
func CountOf(status Status) Counts {
	var c Counts
	*c.Of(status)++
	return c
}

// StatsRetention is how long the hourly counts are kept: the 14 days the
// dashboard charts, and a day of margin.
const StatsRetention = 15 * 24 * time.Hour

// HourCounts is one hour's counts.
type HourCounts struct {
	Hour time.Time
	Counts
}

// AttemptHour is the hour an attempt counts in: the hour it started (the
// hour of now for an attempt without a start time).
func AttemptHour(a Attempt, now time.Time) time.Time {
	t, err := time.Parse(time.RFC3339Nano, a.StartedAt)
	if err != nil {
		t = now
	}
	return t.UTC().Truncate(time.Hour)
}

// Outgoing is an outbox item on its way to receivers: an event (fanned
// out to every subscribed endpoint, or only to TargetEndpoint) or a
// delivery request.
type Outgoing struct {
	Event          *domain.Event
	TargetEndpoint string
	// About names the endpoint a health event is about, which never
	// receives it.
	About   string
	Request *DeliveryRequest
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
	// RecoveryID names the recovery that queued a redrive (Claim.Recovery).
	RecoveryID string `json:"recovery_id,omitempty"`
	// Request names an extra attempt asked through the API.
	Request *MessageRequest `json:"request,omitempty"`
	// EndpointID routes the message through its endpoint's flow control
	// (messages written before it was set run without); with EventType
	// and Reason, it is also for people reading the dead-letter queue.
	EndpointID string `json:"endpoint_id,omitempty"`
	EventType  string `json:"event_type,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// Slot is the start flow control reserved for the message at its
	// endpoint's pace (epoch ms; see PlanAdmit), under the rate of SlotOf.
	Slot   int64 `json:"slot,omitempty"`
	SlotOf int64 `json:"slot_of,omitempty"`
	// Continuation, on a message of its own (no delivery), asks for the
	// next step of a running recovery (see Continuer).
	Continuation *Continuation `json:"continuation,omitempty"`
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

// ParseMessage reads a message body; a body without a project, or without
// a delivery and not a recovery's continuation, is not a message.
func ParseMessage(body string) (Message, error) {
	var m Message
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return Message{}, err
	}
	if m.ProjectID == "" || (m.DeliveryID == "" && m.Continuation == nil) {
		return Message{}, errNotAMessage
	}
	return m, nil
}

var errNotAMessage = errors.New("webhook: not a delivery message")

// Granularities of the delivery stats.
const (
	GranularityHour = "hour"
	GranularityDay  = "day"
)

// Granularities lists the granularities the stats accept.
var Granularities = []string{GranularityHour, GranularityDay}

// StatsWindow is what a stats request covers: buckets of Granularity
// (UTC hours or UTC days) from the one holding From to the one holding To.
type StatsWindow struct {
	Granularity string
	From, To    time.Time
}

// DefaultHourlyWindow is how far back hourly stats reach when since is
// not given (daily stats reach back DeliveryRetention).
const DefaultHourlyWindow = 24 * time.Hour

// NewStatsWindow fills in a stats request: granularity defaults to hour;
// until to now and since to DefaultHourlyWindow (hour) or
// DeliveryRetention (day) before until.
// The window is cut to what the counters can hold: not before
// StatsRetention ago, not after now. A window that holds nothing is
// refused: field names the parameter at fault and problem says why.
func NewStatsWindow(granularity string, since, until, now time.Time) (_ StatsWindow, field, problem string) {
	if granularity == "" {
		granularity = GranularityHour
	}
	if until.IsZero() || until.After(now) {
		until = now
	}
	if since.IsZero() {
		since = until.Add(-DefaultHourlyWindow)
		if granularity == GranularityDay {
			since = until.Add(-DeliveryRetention)
		}
	}
	floor := now.Add(-StatsRetention)
	switch {
	case !since.Before(until):
		return StatsWindow{}, "until", "must be after since (and until is never later than now)"
	case until.Before(floor):
		return StatsWindow{}, "until", "must be within the last " + strconv.Itoa(int(StatsRetention/(24*time.Hour))) + " days: older counts are not kept"
	case since.Before(floor):
		since = floor
	}
	return StatsWindow{Granularity: granularity, From: floorTo(granularity, since), To: floorTo(granularity, until)}, "", ""
}

// floorTo is the start of the bucket of granularity that holds t.
func floorTo(granularity string, t time.Time) time.Time {
	t = t.UTC()
	if granularity == GranularityDay {
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	return t.Truncate(time.Hour)
}

// step is one bucket's length.
func (w StatsWindow) step() time.Duration {
	if w.Granularity == GranularityDay {
		return 24 * time.Hour
	}
	return time.Hour
}

// End is where the last bucket ends (exclusive).
func (w StatsWindow) End() time.Time { return w.To.Add(w.step()) }

// Bucket is the counts of one hour or day.
type Bucket struct {
	Start time.Time `json:"start"`
	Counts
}

// Buckets sums hours into the window's buckets: every bucket of the
// window, in order, those without attempts at zero.
func (w StatsWindow) Buckets(hours []HourCounts) []Bucket {
	var out []Bucket
	index := map[time.Time]int{}
	for t := w.From; !t.After(w.To); t = t.Add(w.step()) {
		index[t] = len(out)
		out = append(out, Bucket{Start: t})
	}
	for _, h := range hours {
		if i, ok := index[floorTo(w.Granularity, h.Hour)]; ok {
			out[i].Counts = out[i].Counts.Add(h.Counts)
		}
	}
	return out
}
