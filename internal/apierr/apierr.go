// Package apierr defines the public error vocabulary of the API.
//
// Domain and storage code return *Error values carrying a Code; the HTTP edge
// (package httpapi) owns the single table that maps each Code to an HTTP
// status and renders the envelope. Anything that is not an *Error becomes
// 500 INTERNAL there, and its text is logged, never returned.
package apierr

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Code is a public, documented error code.
type Code string

// The public error codes. The table of docs/integrators.md lists each of them; a test
// keeps the two in step.
const (
	Unauthorized                Code = "UNAUTHORIZED"
	InsufficientScope           Code = "INSUFFICIENT_SCOPE"
	NotFound                    Code = "NOT_FOUND"
	InvalidJSON                 Code = "INVALID_JSON"
	UnsupportedMediaType        Code = "UNSUPPORTED_MEDIA_TYPE"
	ValidationFailed            Code = "VALIDATION_FAILED"
	InvalidParameter            Code = "INVALID_PARAMETER"
	PayloadTooLarge             Code = "PAYLOAD_TOO_LARGE"
	IdempotencyKeyRequired      Code = "IDEMPOTENCY_KEY_REQUIRED"
	IdempotencyKeyInvalid       Code = "IDEMPOTENCY_KEY_INVALID"
	IdempotencyKeyReuseConflict Code = "IDEMPOTENCY_KEY_REUSE_CONFLICT"
	IdempotencyKeyInProgress    Code = "IDEMPOTENCY_KEY_IN_PROGRESS"
	ContactAlreadyExists        Code = "CONTACT_ALREADY_EXISTS"
	EndpointDisabled            Code = "ENDPOINT_DISABLED"
	InvalidCursor               Code = "INVALID_CURSOR"
	OffsetTooLarge              Code = "OFFSET_TOO_LARGE"
	LimitExceeded               Code = "LIMIT_EXCEEDED"
	RetryCooldown               Code = "RETRY_COOLDOWN"
	ServiceUnavailable          Code = "SERVICE_UNAVAILABLE"
	Internal                    Code = "INTERNAL"
)

// Error is an error the API reports to its caller.
type Error struct {
	Code    Code
	Message string
	// Fields names the offending request fields (VALIDATION_FAILED,
	// INVALID_PARAMETER), field -> problem.
	Fields map[string]string
	// RetryAfter, in seconds, is sent as the Retry-After header when > 0.
	RetryAfter int
	// Cause is the internal error behind the public one; it is logged,
	// never rendered.
	Cause error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Cause }

// New returns an *Error with a code and a human message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Unavailable reports a dependency failure or overload that a retry may fix.
func Unavailable(cause error) *Error {
	return &Error{Code: ServiceUnavailable, Message: "a dependency is temporarily unavailable; retry later", RetryAfter: 1, Cause: cause}
}

// Problems collects field validation problems: field -> what is wrong.
type Problems map[string]string

// Add records a problem with field unless one is already recorded.
func (p Problems) Add(field, problem string) {
	if _, ok := p[field]; !ok {
		p[field] = problem
	}
}

// Err returns nil when there are no problems, else a VALIDATION_FAILED error
// whose message names every field, in a stable order.
func (p Problems) Err() error {
	return p.as(ValidationFailed)
}

// ParamErr is Err for query or path parameters: INVALID_PARAMETER.
func (p Problems) ParamErr() error {
	return p.as(InvalidParameter)
}

func (p Problems) as(code Code) error {
	if len(p) == 0 {
		return nil
	}
	names := make([]string, 0, len(p))
	for f := range p {
		names = append(names, f)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, f := range names {
		parts[i] = f + ": " + p[f]
	}
	return &Error{Code: code, Message: strings.Join(parts, "; "), Fields: map[string]string(p)}
}

// As returns the *Error in err's chain, if any.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Is reports whether err carries the public code c.
func Is(err error, c Code) bool {
	e, ok := As(err)
	return ok && e.Code == c
}
