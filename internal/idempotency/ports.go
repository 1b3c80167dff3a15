package idempotency

import (
	"context"
	"time"
)

// The ports: the interfaces the Runner works through, which a storage
// engine implements (DynamoDB: package store; in memory:
// idempotencytest, which also holds the Store contract), with the types
// their methods speak and their errors.

// Store keeps the records of the protocol. Each method is one atomic
// operation of the underlying engine (a conditional write, or one
// transaction); none reads before it writes.
type Store interface {
	// Capture takes c.Lock unless a live record holds it. The key is free
	// when there is no record, when the record's ExpiresAt is before c.Now
	// (even if the engine has not deleted it yet), or when it is
	// InProgress and its lease ended before c.Now. Capture returns nil
	// when it took the key, and otherwise the record that holds it, as the
	// failed write saw it (no second read).
	Capture(ctx context.Context, c Capture) (*Record, error)
	// Commit applies effects and completes the capture with done, both or
	// neither, on condition that the record is still InProgress under
	// lock.Token. It returns *FencedError when that condition fails; the
	// effects' own error when one of their conditions fails (for example a
	// uniqueness guard); any other error only when nothing was written or
	// the outcome is unknown.
	Commit(ctx context.Context, lock Lock, done Completion, effects Effects) error
	// Complete stores done as the answer of a capture that writes nothing,
	// on the same condition as Commit (*FencedError when it fails).
	Complete(ctx context.Context, lock Lock, done Completion) error
	// Release deletes the record if it is still InProgress under
	// lock.Token, so that a retry runs the operation. A record that was
	// completed, taken over or deleted is left alone, without an error.
	Release(ctx context.Context, lock Lock) error
}

// Lock names a captured key: the scope (the project) keeps the keys of two
// projects apart; the token is the capturing request's own.
type Lock struct {
	Scope, Key, Token string
}

// Capture is a request to take a key.
type Capture struct {
	Lock
	Fingerprint string
	RequestID   string
	// Method and Route are kept for people reading the table.
	Method, Route string
	// Now is the time the conditions compare with.
	Now time.Time
	// LeaseUntil ends the capture's protection (see LeaseUntil).
	LeaseUntil time.Time
	// ExpiresAt ends the record (Now + TTL).
	ExpiresAt time.Time
}

// Completion is the answer a completed record keeps, and the request that
// produced it.
type Completion struct {
	RequestID string
	Response  Response
}

// Effects are the writes an operation planned. The runner never looks
// inside them: they are the Store's own type (for DynamoDB, transaction
// items), committed in one piece with the record's completion.
type Effects interface {
	// Empty reports whether there is nothing to write.
	Empty() bool
}

// FencedError reports that a commit or completion found the key no longer
// held by its lock. Record is the record as the failed write saw it; nil
// when there is none (the holder that took it over released it).
type FencedError struct {
	Record *Record
}

func (e *FencedError) Error() string {
	return "idempotency: the key is no longer held by this request"
}
