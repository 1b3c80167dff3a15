package botix

import (
	"encoding/json"
	"time"
)

// The request and response types mirror the API's JSON (docs/integrators.md shows
// each). Times are RFC 3339 strings as the API sends them; unknown fields
// of an answer are ignored, so a newer API does not break an older SDK.
// Each result carries Response: the request id, the idempotency key and
// whether the answer was a replay.

// Contact is a contact of the project.
type Contact struct {
	ID        string   `json:"id"`
	Phone     string   `json:"phone"`
	Name      string   `json:"name"`
	Email     string   `json:"email,omitempty"`
	Tags      []string `json:"tags"`
	CreatedAt string   `json:"created_at"`

	Response Response `json:"-"`
}

// ContactCreate is the body of Contacts.Create. Phone is E.164
// (+79990000000).
type ContactCreate struct {
	Phone string   `json:"phone"`
	Name  string   `json:"name"`
	Email string   `json:"email,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

// ContactCount is the answer of Contacts.Count.
type ContactCount struct {
	Total int64 `json:"total"`

	Response Response `json:"-"`
}

// Message is a message sent to a contact.
type Message struct {
	ID        string `json:"id"`
	ContactID string `json:"contact_id"`
	Channel   string `json:"channel"`
	Text      string `json:"text"`
	Status    string `json:"status"`
	CreatedAt string `json:"created_at"`

	Response Response `json:"-"`
}

// MessageCreate is the body of Messages.Send. Channel is one of sms,
// whatsapp, telegram, viber, vk.
type MessageCreate struct {
	ContactID string `json:"contact_id"`
	Text      string `json:"text"`
	Channel   string `json:"channel,omitempty"`
}

// CatalogItem is one item of a catalog import. Price is a decimal number
// (json.Number keeps its digits: "1990.00").
type CatalogItem struct {
	SKU      string      `json:"sku"`
	Name     string      `json:"name"`
	Price    json.Number `json:"price"`
	Currency string      `json:"currency"`
}

// CatalogImportCreate is the body of Catalog.Import.
type CatalogImportCreate struct {
	Items []CatalogItem `json:"items"`
}

// CatalogImport is an accepted import; the items are applied
// asynchronously, in import order.
type CatalogImport struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	ItemsCount int    `json:"items_count"`
	CreatedAt  string `json:"created_at"`

	Response Response `json:"-"`
}

// ScenarioRunCreate is the body of Scenarios.Run.
type ScenarioRunCreate struct {
	ContactID string         `json:"contact_id"`
	Variables map[string]any `json:"variables,omitempty"`
}

// ScenarioRun is a started scenario run.
type ScenarioRun struct {
	ID         string          `json:"id"`
	ScenarioID string          `json:"scenario_id"`
	ContactID  string          `json:"contact_id"`
	Variables  json.RawMessage `json:"variables"`
	Status     string          `json:"status"`
	CreatedAt  string          `json:"created_at"`

	Response Response `json:"-"`
}

// WebhookEndpoint is a receiver of webhooks.
type WebhookEndpoint struct {
	ID                  string   `json:"id"`
	URL                 string   `json:"url"`
	Events              []string `json:"events"`
	Description         string   `json:"description,omitempty"`
	Enabled             bool     `json:"enabled"`
	DisabledReason      string   `json:"disabled_reason,omitempty"`
	CreatedAt           string   `json:"created_at"`
	UpdatedAt           string   `json:"updated_at"`
	LastSuccessAt       string   `json:"last_success_at,omitempty"`
	LastFailureAt       string   `json:"last_failure_at,omitempty"`
	FailingSince        string   `json:"failing_since,omitempty"`
	ConsecutiveFailures int      `json:"consecutive_failures"`
	// Recovery is the endpoint's latest recovery, on WebhookEndpoints.Get
	// once it had one (nil otherwise).
	Recovery *RecoveryProgress `json:"recovery,omitempty"`
	// RateLimit bounds the deliveries started per second and MaxConcurrency
	// the requests in flight at once; 0 is no limit.
	RateLimit      int `json:"rate_limit,omitempty"`
	MaxConcurrency int `json:"max_concurrency,omitempty"`
	// Throttle is what the receiver asked for with a 429, or a 503 with
	// Retry-After: nil unless its slow-down lasts.
	Throttle *EndpointThrottle `json:"throttle,omitempty"`
	// Health is the endpoint's state, on Get and List (nil elsewhere).
	Health *EndpointHealth `json:"health,omitempty"`

	Response Response `json:"-"`
}

// EndpointHealth is an endpoint's state as its owner reads it: what is
// wrong, why, and since when.
type EndpointHealth struct {
	// State is "disabled" (nothing is sent until it is enabled again),
	// "failing" (its last attempt failed), "paused" (the receiver's
	// Retry-After runs until Until) or "healthy".
	State string `json:"state"`
	// Cause is the class of the last failed attempt (http_403, http_503,
	// connect_timeout, ...), or the receiver's answer while paused.
	Cause string `json:"cause,omitempty"`
	// Since is when the state began ("" while healthy).
	Since string `json:"since,omitempty"`
	// Until is the end of the receiver's pause (paused only).
	Until string `json:"until,omitempty"`
	// Reason says why a disabled endpoint was disabled.
	Reason string `json:"reason,omitempty"`
	// FailedAttempts counts failed attempts in a row (attempts, not
	// deliveries).
	FailedAttempts int `json:"failed_attempts,omitempty"`
}

// RecoveryProgress is an endpoint's latest recovery as Get shows it: while
// Status is "running" it continues by itself, a step at a time, and Queued
// grows until it is "completed".
type RecoveryProgress struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Since   string `json:"since"`
	Until   string `json:"until"`
	Queued  int    `json:"queued"`
	Skipped int    `json:"skipped"`
	// Delivered and Failed count the queued deliveries whose fresh round
	// ended delivered, or dead again; the rest are on their way.
	Delivered int `json:"delivered"`
	Failed    int `json:"failed"`
	// NextStepAt is when the next step is due (while running).
	NextStepAt string `json:"next_step_at,omitempty"`
	CreatedAt  string `json:"created_at"`
	UpdatedAt  string `json:"updated_at"`
}

// EndpointThrottle is the slow-down a receiver asked for.
type EndpointThrottle struct {
	// EffectiveRate is the deliveries per second the endpoint was lowered
	// to (0 when not lowered); it grows back to RateLimit.
	EffectiveRate float64 `json:"effective_rate,omitempty"`
	// PausedUntil is the end of the receiver's Retry-After ("" when not
	// paused): nothing is sent before.
	PausedUntil string `json:"paused_until,omitempty"`
	// ThrottledBy is the answer that asked: "http_429" or "http_503".
	ThrottledBy string `json:"throttled_by"`
}

// WebhookEndpointWithSecret is the answer of a creation or a rotation: the
// only times the signing secret is shown.
type WebhookEndpointWithSecret struct {
	WebhookEndpoint
	Secret string `json:"secret"`
	// PreviousSecretExpiresAt is set by a rotation: until then the previous
	// secret signs too.
	PreviousSecretExpiresAt string `json:"previous_secret_expires_at,omitempty"`
}

// WebhookEndpointCreate is the body of WebhookEndpoints.Create. Events are
// event types, or ["*"] for all.
type WebhookEndpointCreate struct {
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description string   `json:"description,omitempty"`
	// RateLimit (deliveries started per second) and MaxConcurrency
	// (requests in flight) bound the endpoint, within the ranges of
	// sdk/openapi.yaml (a value out of range is a CodeValidationFailed
	// naming the field); 0 is no limit.
	RateLimit      int `json:"rate_limit,omitempty"`
	MaxConcurrency int `json:"max_concurrency,omitempty"`
}

// WebhookEndpointUpdate is the body of WebhookEndpoints.Update: nil fields
// are left as they are. Enabled true re-enables a disabled endpoint.
// RateLimit and MaxConcurrency take LimitTo(n) to set a bound and NoLimit()
// to remove it.
type WebhookEndpointUpdate struct {
	URL            *string  `json:"url,omitempty"`
	Events         []string `json:"events,omitempty"`
	Description    *string  `json:"description,omitempty"`
	Enabled        *bool    `json:"enabled,omitempty"`
	RateLimit      *Limit   `json:"rate_limit,omitempty"`
	MaxConcurrency *Limit   `json:"max_concurrency,omitempty"`
}

// Limit is a change of an endpoint's bound in WebhookEndpointUpdate: a nil
// *Limit leaves the bound as it is, LimitTo(n) sets it and NoLimit()
// removes it (sent as null).
type Limit struct{ n int }

// LimitTo sets a bound of n; LimitTo(0) is NoLimit(), as 0 is no limit on
// WebhookEndpoint and WebhookEndpointCreate.
func LimitTo(n int) *Limit { return &Limit{n} }

// NoLimit removes a bound.
func NoLimit() *Limit { return &Limit{} }

// MarshalJSON implements json.Marshaler: the bound, or null for NoLimit.
func (l Limit) MarshalJSON() ([]byte, error) {
	if l.n == 0 {
		return []byte("null"), nil
	}
	return json.Marshal(l.n)
}

// Deleted is the answer of a deletion.
type Deleted struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`

	Response Response `json:"-"`
}

// The scopes of a dashboard session.
const (
	// ScopeRead calls every GET route.
	ScopeRead = "read"
	// ScopeReadRetry also retries deliveries and recovers endpoints.
	ScopeReadRetry = "read_retry"
)

// DashboardSessionCreate is the body of DashboardSessions.Create.
type DashboardSessionCreate struct {
	// Scope is ScopeRead or ScopeReadRetry.
	Scope string `json:"scope"`
	// TTLSeconds is the session's lifetime, within the bounds of
	// sdk/openapi.yaml; 0 is the server's default.
	TTLSeconds int `json:"ttl_seconds,omitempty"`
}

// DashboardSession is a dashboard session; Token, its bearer token, is
// set only in the answer of DashboardSessions.Create.
type DashboardSession struct {
	ID        string `json:"id"`
	Scope     string `json:"scope"`
	Token     string `json:"token"`
	CreatedAt string `json:"created_at"`
	ExpiresAt string `json:"expires_at"`

	Response Response `json:"-"`
}

// CurrentDashboardSession is the answer of DashboardSessions.Current: the
// session of the client's token, without the token.
type CurrentDashboardSession struct {
	ID        string `json:"id"`
	Scope     string `json:"scope"`
	CreatedAt string `json:"created_at"`
	ExpiresAt string `json:"expires_at"`

	Response Response `json:"-"`
}

// ListedDashboardSession is a live session as DashboardSessions.List
// shows it: without its token, with the API key that made it.
type ListedDashboardSession struct {
	ID    string `json:"id"`
	Scope string `json:"scope"`
	// KeyID is the id of the API key that made the session (revoking the
	// key revokes the session); "" (null in the JSON) for a session made
	// before sessions recorded their key.
	KeyID     string `json:"key_id"`
	CreatedAt string `json:"created_at"`
	ExpiresAt string `json:"expires_at"`
}

// TestEvent is the answer of WebhookEndpoints.Test.
type TestEvent struct {
	EventID    string `json:"event_id"`
	EndpointID string `json:"endpoint_id"`
	Status     string `json:"status"`

	Response Response `json:"-"`
}

// Recovery is the answer of WebhookEndpoints.Recover: the endpoint's one
// recovery after the call. A call queues at most 100 failed or dead
// deliveries (Queued) for a fresh round, asynchronously; while HasMore,
// the recovery is "running" and continues by itself, paced, its next step
// due at NextStepAt (follow it with Get: WebhookEndpoint.Recovery).
// Deliveries counts what the recovery queued over all its steps; Skipped
// the deliveries left alone because a recovery re-queued them
// less than 15 minutes before.
type Recovery struct {
	ID         string `json:"recovery_id"`
	EndpointID string `json:"endpoint_id"`
	Since      string `json:"since"`
	Until      string `json:"until"`
	Deliveries int    `json:"deliveries"`
	Status     string `json:"status"`
	Queued     int    `json:"queued"`
	Skipped    int    `json:"skipped"`
	HasMore    bool   `json:"has_more"`
	NextStepAt string `json:"next_step_at,omitempty"`

	Response Response `json:"-"`
}

// The statuses of a delivery.
const (
	DeliveryPending   = "pending"
	DeliveryRetrying  = "retrying"
	DeliveryDelivered = "delivered"
	DeliveryDead      = "dead"
)

// Delivery is one event's delivery to one endpoint.
type Delivery struct {
	ID             string `json:"id"`
	EventID        string `json:"event_id"`
	EventType      string `json:"event_type"`
	EndpointID     string `json:"endpoint_id"`
	Status         string `json:"status"`
	Round          int    `json:"round"`
	AttemptsCount  int    `json:"attempts_count"`
	NextAttemptAt  string `json:"next_attempt_at,omitempty"`
	LastStatusCode int    `json:"last_status_code,omitempty"`
	LastErrorClass string `json:"last_error_class,omitempty"`
	DeadReason     string `json:"dead_reason,omitempty"`
	CreatedAt      string `json:"created_at"`
	UpdatedAt      string `json:"updated_at"`
	DeliveredAt    string `json:"delivered_at,omitempty"`
}

// DeliveryDetail is a delivery with its payload and every attempt.
type DeliveryDetail struct {
	Delivery
	Payload  json.RawMessage `json:"payload"`
	Attempts []Attempt       `json:"attempts"`

	Response Response `json:"-"`
}

// Attempt is one attempt of a delivery. Kind is scheduled, manual, redrive
// or redirect.
type Attempt struct {
	DeliveryID    string `json:"delivery_id"`
	Attempt       int    `json:"attempt"`
	Round         int    `json:"round"`
	Kind          string `json:"kind"`
	URL           string `json:"url"`
	RequestID     string `json:"request_id"`
	StatusCode    int    `json:"status_code,omitempty"`
	ResponseBody  string `json:"response_body,omitempty"`
	StartedAt     string `json:"started_at"`
	DurationMs    int64  `json:"duration_ms"`
	ErrorClass    string `json:"error_class,omitempty"`
	Error         string `json:"error,omitempty"`
	NextAttemptAt string `json:"next_attempt_at,omitempty"`
}

// DeliveryRequest is the answer of Deliveries.Retry and Redirect.
type DeliveryRequest struct {
	DeliveryID string `json:"delivery_id"`
	Kind       string `json:"kind"`
	Status     string `json:"status"`
	TargetURL  string `json:"target_url,omitempty"`

	Response Response `json:"-"`
}

// Counts are attempts by the status they left their delivery in
// (Delivered + Retrying + Dead is the attempts), and Deliveries the
// deliveries whose first attempt started in the bucket: a delivery tried
// five times is five attempts and one delivery.
type Counts struct {
	Delivered  int64   `json:"delivered"`
	Retrying   int64   `json:"retrying"`
	Dead       int64   `json:"dead"`
	Deliveries int64   `json:"deliveries"`
	Latency    Latency `json:"latency"`
}

// Latency is the response times of the attempts the receiver answered
// (with any HTTP status; a timeout has none): how many, and the bounds of
// the counters' histogram, in milliseconds, that half and 95 % of them
// came in under (nil when nothing was answered).
type Latency struct {
	Answered int64  `json:"answered"`
	P50Ms    *int64 `json:"p50_ms"`
	P95Ms    *int64 `json:"p95_ms"`
}

// StatsBucket is one hour or day of DeliveryStats.
type StatsBucket struct {
	Start string `json:"start"`
	Counts
}

// DeliveryStats is the answer of Deliveries.Stats.
type DeliveryStats struct {
	Granularity string        `json:"granularity"`
	EndpointID  *string       `json:"endpoint_id"`
	Since       string        `json:"since"`
	Until       string        `json:"until"`
	Buckets     []StatsBucket `json:"buckets"`
	Totals      Counts        `json:"totals"`

	Response Response `json:"-"`
}

// Inspector is a built-in capture URL (alive 24 h).
type Inspector struct {
	ID            string `json:"id"`
	URL           string `json:"url"`
	CreatedAt     string `json:"created_at"`
	RequestsCount int    `json:"requests_count"`
	ExpiresAt     string `json:"expires_at"`

	Response Response `json:"-"`
}

// InspectorRequest is one request an inspector captured.
type InspectorRequest struct {
	ID         string            `json:"id"`
	Method     string            `json:"method"`
	Path       string            `json:"path"`
	Query      string            `json:"query,omitempty"`
	Headers    map[string]string `json:"headers"`
	Body       string            `json:"body"`
	Truncated  bool              `json:"truncated,omitempty"`
	SourceIP   string            `json:"source_ip,omitempty"`
	ReceivedAt string            `json:"received_at"`
}

// Event is an event of the project, as polled (and as webhooks carry it).
type Event struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt string          `json:"created_at"`
	ProjectID string          `json:"project_id"`
	Data      json.RawMessage `json:"data"`

	Response Response `json:"-"`
}

// ListParams are the cursor parameters of every list. Limit is 1..200
// (0: the API's default, 20); Cursor is a next_cursor from an earlier page
// of the same list with the same filters.
type ListParams struct {
	Cursor string
	Limit  int
}

// ContactListParams filter Contacts.List.
type ContactListParams struct {
	ListParams
	// Tag keeps the contacts that carry this tag (empty: every contact).
	Tag                         string
	CreatedAfter, CreatedBefore time.Time
}

// MessageListParams filter Messages.List.
type MessageListParams struct {
	ListParams
	ContactID string
	Status    string
}

// DeliveryListParams filter Deliveries.List (the last 14 days). EventID
// (evt_...) selects the deliveries of one event: the webhook-id header a
// receiver saw; it combines with the other filters. DeliveryID (dlv_...)
// selects one delivery, when it matches the other filters too; RequestID
// (req_...) the delivery one of whose attempts sent that request id (the
// X-Botix-Request-Id header a receiver logged).
type DeliveryListParams struct {
	ListParams
	Status     string
	EndpointID string
	EventType  string
	EventID    string
	DeliveryID string
	RequestID  string
	Since      time.Time
	Until      time.Time
}

// EventListParams filter Events.List.
type EventListParams struct {
	ListParams
	Type  string
	Since time.Time
}

// StatsParams select Deliveries.Stats: Granularity "hour" (default: the
// last 24 h) or "day" (the last 14 days).
type StatsParams struct {
	Granularity string
	EndpointID  string
	Since       time.Time
	Until       time.Time
}
