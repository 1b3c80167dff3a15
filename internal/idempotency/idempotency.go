// Package idempotency is pillar 1: mandatory idempotency keys with
// exactly-once effects. It holds the rules — which keys are valid, what
// makes two requests "the same", what a stored record means for a new
// request, which outcomes are final — and the Runner that applies them,
// behind the Store port it declares (the DynamoDB adapter in package store
// implements it; idempotencytest holds an in-memory one and the contract
// both must meet).
//
// The protocol:
//
//  1. Capture: one conditional write takes (project, key) as in_progress
//     with a random lock token and a lease that ends with the function's
//     deadline. If the write fails, the record it found says whether to
//     replay, report a conflict or report "in progress" — no second read.
//  2. Run the operation; it plans its writes (Effects) without performing
//     them.
//  3. Commit: the planned writes, the outbox event and the record's
//     completion (status completed + the response) land together or not at
//     all, on condition that the record is still in_progress under our lock
//     token. A request whose lease was taken over can no longer commit
//     (fencing).
//  4. A 5xx, panic or timeout releases the record (a delete conditioned on
//     the lock token), so that the client's retry runs the operation.
package idempotency

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"

	"github.com/botix/public-api/internal/apierr"
)

// Header is the request header that carries the key.
const Header = "Idempotency-Key"

// Policy constants of the protocol.
const (
	// TTL is how long a completed record answers replays.
	TTL = 24 * time.Hour
	// RetryAfterSeconds is sent with IDEMPOTENCY_KEY_IN_PROGRESS.
	RetryAfterSeconds = 5
	// DefaultLease bounds a capture when the request has no deadline.
	DefaultLease = 30 * time.Second
	// MaxStoredResponse caps a stored response body. Mutating responses
	// are small by construction; the cap is checked before the commit, so
	// a record can never exceed DynamoDB's 400 KB item limit.
	MaxStoredResponse = 64 << 10
)

var uuidV4 = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$`)

// ParseKey validates a key and returns its normal form (UUIDs lower case,
// ULIDs upper case), so that one logical key has one record.
func ParseKey(raw string) (string, error) {
	if raw == "" {
		return "", apierr.New(apierr.IdempotencyKeyRequired, "this endpoint changes data: send an Idempotency-Key header (a UUIDv4 or ULID, one per logical operation, the same on every retry)")
	}
	if uuidV4.MatchString(raw) {
		return strings.ToLower(raw), nil
	}
	if len(raw) == ulid.EncodedSize {
		if u, err := ulid.ParseStrict(strings.ToUpper(raw)); err == nil {
			return u.String(), nil
		}
	}
	return "", apierr.New(apierr.IdempotencyKeyInvalid, "Idempotency-Key must be a UUIDv4 (e.g. 3f0c8a4e-2d3b-4c8e-9f1a-7b6d5e4c3a21) or a ULID")
}

// Canonicalize returns the canonical form of a JSON body: object keys
// sorted, no insignificant whitespace, numbers with their original text,
// strings re-encoded without HTML escaping. An empty body canonicalizes to
// nothing. Invalid JSON is an INVALID_JSON error.
func Canonicalize(body []byte) ([]byte, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil
	}
	if !utf8.Valid(body) {
		// The decoder would replace the bad bytes with U+FFFD, and two
		// different bodies would share one fingerprint.
		return nil, apierr.New(apierr.InvalidJSON, "the body is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, apierr.New(apierr.InvalidJSON, "the body is not valid JSON")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, apierr.New(apierr.InvalidJSON, "the body must hold exactly one JSON value")
	}
	var out bytes.Buffer
	if err := writeCanonical(&out, v); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func writeCanonical(out *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				out.WriteByte(',')
			}
			if err := writeString(out, k); err != nil {
				return err
			}
			out.WriteByte(':')
			if err := writeCanonical(out, x[k]); err != nil {
				return err
			}
		}
		out.WriteByte('}')
	case []any:
		out.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				out.WriteByte(',')
			}
			if err := writeCanonical(out, e); err != nil {
				return err
			}
		}
		out.WriteByte(']')
	case string:
		return writeString(out, x)
	case json.Number:
		out.WriteString(x.String())
	case bool:
		if x {
			out.WriteString("true")
		} else {
			out.WriteString("false")
		}
	case nil:
		out.WriteString("null")
	}
	return nil
}

func writeString(out *bytes.Buffer, s string) error {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return err
	}
	out.Truncate(out.Len() - 1) // Encode's newline
	return nil
}

// Fingerprint identifies a request for key reuse detection: SHA-256 over
// the method, the route template, the path parameters (so that one key
// cannot launch two different scenarios) and the canonical body.
func Fingerprint(method, route string, pathParams map[string]string, canonicalBody []byte) string {
	h := sha256.New()
	h.Write([]byte(method + "\n" + route + "\n"))
	names := make([]string, 0, len(pathParams))
	for k := range pathParams {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		h.Write([]byte(k + "=" + pathParams[k] + "\n"))
	}
	h.Write([]byte("\n"))
	h.Write(canonicalBody)
	return hex.EncodeToString(h.Sum(nil))
}

// Status is the state of a record.
type Status string

// Record states.
const (
	InProgress Status = "in_progress"
	Completed  Status = "completed"
)

// Response is a stored response, replayed byte for byte.
type Response struct {
	Status  int
	Headers map[string]string
	Body    []byte
}

// Record is what the store holds for one (project, key).
type Record struct {
	Status      Status
	Fingerprint string
	LockToken   string
	// LeaseExpiresAt ends an in_progress capture: past it, a retry may
	// take the key over.
	LeaseExpiresAt time.Time
	// ExpiresAt ends the record: past it, the key is free again, even if
	// DynamoDB's TTL sweeper has not deleted the item yet.
	ExpiresAt time.Time
	// RequestID is the X-Request-Id of the request that captured the key.
	RequestID string
	Response  *Response
}

// Decision is what a request must do about an existing record it could not
// capture.
type Decision int

// Decisions.
const (
	// Replay: return the stored response.
	Replay Decision = iota + 1
	// Conflict: the key was used for another request.
	Conflict
	// Busy: the first request is still running.
	Busy
)

// Decide tells what a request with fingerprint fp must do about rec.
func Decide(rec Record, fp string) Decision {
	switch {
	case rec.Fingerprint != fp:
		return Conflict
	case rec.Status == Completed && rec.Response != nil:
		return Replay
	default:
		return Busy
	}
}

// outcome names d in the IdempotentRequests metric.
func (d Decision) outcome() string {
	switch d {
	case Replay:
		return "replayed"
	case Conflict:
		return "reuse_conflict"
	}
	return "in_progress"
}

// Err returns the public error of a Conflict or Busy decision.
func (d Decision) Err() error {
	if d == Conflict {
		return apierr.New(apierr.IdempotencyKeyReuseConflict, "this Idempotency-Key was already used with another body or endpoint; use a new key for a new operation")
	}
	e := apierr.New(apierr.IdempotencyKeyInProgress, "a request with this Idempotency-Key is still being processed; retry later to get its response")
	e.RetryAfter = RetryAfterSeconds
	return e
}

// Final reports whether a response with this status is the operation's
// final answer, stored and replayed (2xx and 4xx but 429). Anything else
// (5xx, and 429, which asks to come back after Retry-After) releases the
// key so that a retry runs the operation again.
func Final(status int) bool {
	return status >= 200 && status < 500 && status != http.StatusTooManyRequests
}

// LeaseUntil returns when a capture made at now stops protecting the
// operation: the request's deadline (the function's timeout), or now +
// DefaultLease without one.
func LeaseUntil(deadline time.Time, hasDeadline bool, now time.Time) time.Time {
	if hasDeadline {
		return deadline
	}
	return now.Add(DefaultLease)
}
