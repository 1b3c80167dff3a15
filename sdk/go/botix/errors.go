package botix

import (
	"errors"
	"fmt"
	"time"
)

// Code is a public error code of the API (the "code" of the error
// envelope). The API's README lists each with its HTTP status.
type Code string

// The public error codes. A test checks this list against the server's
// code table.
const (
	CodeUnauthorized                Code = "UNAUTHORIZED"
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
