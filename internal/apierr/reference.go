package apierr

// Retry says whether and how a client may send a request again after an
// error code.
type Retry string

// The retry advice of the codes.
const (
	// RetryNever: the same request gets the same answer; change it first.
	// A mutation changed after a 4xx needs a new Idempotency-Key, since the
	// key is bound to the body it was first sent with.
	RetryNever Retry = "never"
	// RetryAfterHeader: send the same request again, with the same
	// Idempotency-Key, after the answer's Retry-After seconds.
	RetryAfterHeader Retry = "after_retry_after"
	// RetryBackoff: a retry with the same Idempotency-Key is safe (the
	// key was released) but may fail the same way; back off, and quote the
	// request_id if it persists.
	RetryBackoff Retry = "backoff"
)

// Doc documents a public code for integrators: when it is answered and
// what to do about it. Texts may quote names in `backticks`, which the
// integrators' guide (docs/integrators.md) and the served page show as code.
type Doc struct {
	// When is the situation the code reports.
	When string
	// Action is what the client should do.
	Action string
	Retry  Retry
}

// docs is the one description of every public code; the table of docs/integrators.md
// and the served error-code reference are rendered from it (tests check
// that table and that every code of the status table has a description).
var docs = map[Code]Doc{
	Unauthorized: {
		When:   "API key or dashboard session token missing, malformed or unknown, or the session expired or was revoked",
		Action: "send `Authorization: Bearer <api key>` with a live key of the project, or a live session token",
		Retry:  RetryNever,
	},
	InsufficientScope: {
		When:   "a dashboard session called a route its scope does not grant (anything that is not a read, or a retry or recovery with scope `read`)",
		Action: "call the route with the project's API key, or with a session of scope `read_retry` for a delivery retry or an endpoint recovery",
		Retry:  RetryNever,
	},
	NotFound: {
		When:   "no such resource in your project, or no such route",
		Action: "check the id (its prefix and format) and the path; ids of another project are never found",
		Retry:  RetryNever,
	},
	InvalidJSON: {
		When:   "the body is not valid JSON",
		Action: "send one JSON value, encoded as UTF-8",
		Retry:  RetryNever,
	},
	UnsupportedMediaType: {
		When:   "a body was sent without `Content-Type: application/json`",
		Action: "set `Content-Type: application/json`",
		Retry:  RetryNever,
	},
	ValidationFailed: {
		When:   "a field is missing, unknown, of the wrong type (`null` included) or invalid (`field` names it)",
		Action: "fix the fields `details` lists; the answer is stored under the key, so send the fixed request with a new `Idempotency-Key`",
		Retry:  RetryNever,
	},
	InvalidParameter: {
		When:   "a query or path parameter is invalid, unknown to the route, empty or given twice (`field` names it)",
		Action: "fix the parameter `field` names; give each parameter once, with a value (leave a filter out to mean all)",
		Retry:  RetryNever,
	},
	PayloadTooLarge: {
		When:   "the body exceeds the route's limit",
		Action: "send a smaller body (64 KiB unless the route says otherwise)",
		Retry:  RetryNever,
	},
	IdempotencyKeyRequired: {
		When:   "a mutating request came without `Idempotency-Key`",
		Action: "send a new UUIDv4 or ULID as `Idempotency-Key`, and the same one on every retry of the operation",
		Retry:  RetryNever,
	},
	IdempotencyKeyInvalid: {
		When:   "`Idempotency-Key` is not a UUIDv4 or a ULID",
		Action: "generate the key as a UUIDv4 or a ULID",
		Retry:  RetryNever,
	},
	IdempotencyKeyReuseConflict: {
		When:   "the key was used for another body or endpoint",
		Action: "a retry must repeat the first request exactly; a different operation needs a new `Idempotency-Key`",
		Retry:  RetryNever,
	},
	IdempotencyKeyInProgress: {
		When:   "the first request with this key is still running; retry after `Retry-After`",
		Action: "wait `Retry-After` seconds, then retry with the same key and body: you get the first request's answer",
		Retry:  RetryAfterHeader,
	},
	ContactAlreadyExists: {
		When:   "the project already has a contact with this phone",
		Action: "look the contact up instead of creating it",
		Retry:  RetryNever,
	},
	EndpointDisabled: {
		When:   "a recovery of a disabled webhook endpoint: enable it first",
		Action: "enable the endpoint (`PATCH` with `\"enabled\":true`), then recover it with a new `Idempotency-Key`",
		Retry:  RetryNever,
	},
	InvalidCursor: {
		When:   "the cursor is malformed, tampered with, or issued for another project, endpoint or filters",
		Action: "pass `next_cursor` unchanged, with the filters of the page that returned it, or start again from the first page",
		Retry:  RetryNever,
	},
	OffsetTooLarge: {
		When:   "offset pagination past its maximum; use cursors",
		Action: "walk the list with cursors: pass `next_cursor` as `cursor`",
		Retry:  RetryNever,
	},
	LimitExceeded: {
		When:   "a per-project resource limit is reached",
		Action: "delete what you no longer need (webhook endpoints), or create a new inspector when one is full; then send the request with a new `Idempotency-Key`",
		Retry:  RetryNever,
	},
	RetryCooldown: {
		When:   "this delivery was retried by hand within its manual-retry cooldown; retry after `Retry-After`",
		Action: "wait `Retry-After` seconds, then send the retry again with the same `Idempotency-Key`: the key is not used up by this answer",
		Retry:  RetryAfterHeader,
	},
	ServiceUnavailable: {
		When:   "DynamoDB throttled or failed, or could not be reached, or transactions kept conflicting: an outage a retry can fix; retry after `Retry-After`",
		Action: "wait `Retry-After` seconds, then retry with the same `Idempotency-Key`: the operation runs at most once",
		Retry:  RetryAfterHeader,
	},
	Internal: {
		When:   "a bug (including a request DynamoDB refuses, which no retry can fix); quote the `request_id`",
		Action: "a retry with the same `Idempotency-Key` is safe but may fail again; if it does, contact support with the `request_id`",
		Retry:  RetryBackoff,
	},
}

// Describe returns the documentation of a public code.
func Describe(c Code) (Doc, bool) {
	d, ok := docs[c]
	return d, ok
}
