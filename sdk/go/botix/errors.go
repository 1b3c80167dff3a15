package botix

import (
	"errors"
	"fmt"
	"time"
)

// Code is a public error code of the API (the "code" of the error
// envelope). The API's integrators' guide (docs/integrators.md) lists each with its HTTP status.
type Code string

// The public error codes. A test checks this list against the server's
// code table.
const (
	CodeUnauthorized                Code = "UNAUTHORIZED"
	CodeInsufficientScope           Code = "INSUFFICIENT_SCOPE"
	CodeNotFound                    Code = "NOT_FOUND"
	CodeInvalidJSON                 Code = "INVALID_JSON"
	CodeUnsupportedMediaType        Code = "UNSUPPORTED_MEDIA_TYPE"
	CodeValidationFailed            Code = "VALIDATION_FAILED"
	CodeInvalidParameter            Code = "INVALID_PARAMETER"
	CodePayloadTooLarge             Code = "PAYLOAD_TOO_LARGE"
	CodeIdempotencyKeyRequired      Code = "IDEMPOTENCY_KEY_REQUIRED"
	CodeIdempotencyKeyInvalid       Code = "IDEMPOTENCY_KEY_INVALID"
	CodeIdempotencyKeyReuseConflict Code = "IDEMPOTENCY_KEY_REUSE_CONFLICT"
	CodeIdempotencyKeyInProgress    Code = "IDEMPOTENCY_KEY_IN_PROGRESS"
	CodeContactAlreadyExists        Code = "CONTACT_ALREADY_EXISTS"
	CodeEndpointDisabled            Code = "ENDPOINT_DISABLED"
	CodeInvalidCursor               Code = "INVALID_CURSOR"
	CodeOffsetTooLarge              Code = "OFFSET_TOO_LARGE"
	CodeLimitExceeded               Code = "LIMIT_EXCEEDED"
	CodeRetryCooldown               Code = "RETRY_COOLDOWN"
	CodeServiceUnavailable          Code = "SERVICE_UNAVAILABLE"
	CodeInternal                    Code = "INTERNAL"
)

// Error is an error answer of the API: its HTTP status and the fields of
// the error envelope. Code is empty when the answer was not the envelope
// (API Gateway's own 429 "Too Many Requests", a proxy's 502). Use
// errors.As:
//
//	var e *botix.Error
//	if errors.As(err, &e) && e.Code == botix.CodeContactAlreadyExists { ... }
type Error struct {
	StatusCode int
	Code       Code
	Message    string
	RequestID  string
	// Field names the offending field of VALIDATION_FAILED and
	// INVALID_PARAMETER; Details has a message per field.
	Field   string
	Details map[string]string
	// RetryAfter is the server's Retry-After (0 when absent).
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	s := fmt.Sprintf("botix: HTTP %d", e.StatusCode)
	if e.Code != "" {
		s += " " + string(e.Code)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.RequestID != "" {
		s += " (request_id " + e.RequestID + ")"
	}
	return s
}

// ErrRetryQuotaExhausted is part of the error of a call that was not
// retried because most recent calls of this client failed: retrying into
// an outage only makes it worse. The error also wraps the last failure.
var ErrRetryQuotaExhausted = errors.New("botix: not retried: the client's retry quota is exhausted because most recent calls failed")

// ErrInvalidIdempotencyKey is the error of a call given a key the server
// would refuse (not a UUIDv4 or a ULID); nothing was sent.
var ErrInvalidIdempotencyKey = errors.New("botix: Idempotency-Key must be a UUIDv4 or a ULID")

// ErrGaveUp is part of the error of a call whose every attempt failed in a
// way worth retrying until the policy's MaxAttempts were spent. The error
// also wraps the last failure (an *Error, or a transport error).
var ErrGaveUp = errors.New("botix: gave up: every attempt the retry policy allows failed")

// ErrAttemptTimeout is the failure of an attempt that outlived
// WithAttemptTimeout. It is retried like a lost answer; a call that gives up
// on it wraps ErrGaveUp and ErrAttemptTimeout, never
// context.DeadlineExceeded, which means the caller's own deadline.
var ErrAttemptTimeout = errors.New("botix: the attempt timed out")

// OperationError is the error of every call that reached the client's
// retry loop: an answer of the API (*Error), a transport error, a timeout,
// ErrGaveUp, ErrRetryQuotaExhausted, the caller's deadline or cancellation
// (context.DeadlineExceeded, context.Canceled). It wraps that cause, so
// errors.As(err, &apiErr) and errors.Is(err, botix.ErrGaveUp) keep working,
// and adds what is needed to finish the operation: the Idempotency-Key the
// call sent on every attempt, and how many attempts it made.
//
// An error of a mutating call does not say the operation did not happen:
// an attempt may have reached the API and its answer been lost. To finish
// it, call the same method with the same arguments again with
// opErr.Reissue() (that is, WithIdempotencyKey(opErr.IdempotencyKey)).
// That is always safe: with the same key and the same body the API either
// replays the stored result of the attempt that ran (Response.Replayed) or
// runs the operation once. It is pointless when Reissuable reports false:
// the API refused the request itself (a 4xx other than 409
// IDEMPOTENCY_KEY_IN_PROGRESS and 429), and the same request gets the same
// answer. A call with a new key is a new operation and may duplicate it.
//
// Read-only calls (GET) send no key: IdempotencyKey is empty and
// re-issuing is simply calling again.
type OperationError struct {
	// Method and Path are the API route called, e.g. POST /contacts.
	Method, Path string
	// IdempotencyKey is the key every attempt of a mutating call sent
	// (empty for a GET).
	IdempotencyKey string
	// Attempts is how many HTTP attempts were made (0: nothing was sent).
	Attempts int
	// Err is the cause.
	Err error
}

func (e *OperationError) Error() string {
	s := "botix: " + e.Method + " " + e.Path + " ("
	if e.IdempotencyKey != "" {
		s += "Idempotency-Key " + e.IdempotencyKey + ", "
	}
	return s + fmt.Sprintf("%d attempts): %v", e.Attempts, e.Err)
}

// Unwrap returns the cause.
func (e *OperationError) Unwrap() error { return e.Err }

// Reissue is the CallOption that makes another call the same operation:
// WithIdempotencyKey(e.IdempotencyKey). Pass it with the same arguments.
func (e *OperationError) Reissue() CallOption { return WithIdempotencyKey(e.IdempotencyKey) }

// Reissuable reports whether calling again with Reissue can end
// differently: false when the API refused the request itself (a 4xx other
// than 409 IDEMPOTENCY_KEY_IN_PROGRESS and 429), nothing could be sent
// (an invalid key, a body that does not encode), or the API succeeded but
// its answer does not decode (a replay is the same bytes); true otherwise — a lost
// answer, a timeout, a 5xx, ErrGaveUp, ErrRetryQuotaExhausted, the
// caller's deadline or cancellation.
func (e *OperationError) Reissuable() bool {
	if errors.Is(e.Err, ErrInvalidIdempotencyKey) || errors.Is(e.Err, errEncode) || errors.Is(e.Err, errDecode) {
		return false
	}
	var apiErr *Error
	return !errors.As(e.Err, &apiErr) || retryable(apiErr)
}

// errEncode and errDecode mark an argument that does not encode to JSON
// and a success answer that does not decode.
var (
	errEncode = errors.New("botix: encode the request")
	errDecode = errors.New("botix: decode the answer")
)
