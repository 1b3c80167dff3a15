package webhook

import "time"

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

// ManualRetryCooldown is how long after a manual retry of a delivery the
// next one is refused (429 RETRY_COOLDOWN with Retry-After): a person
// pressing Retry, or a script that retries a delivery in a loop, gets one
// attempt a minute per delivery, not one per call. The scheduled round
// and redrives are not affected; a redirect to an inspector neither (it
// does not reach the receiver).
const ManualRetryCooldown = time.Minute

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
