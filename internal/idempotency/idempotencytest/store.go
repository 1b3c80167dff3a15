// Package idempotencytest holds an in-memory idempotency.Store with fault
// injection, for fast tests of code that runs under the protocol, and the
// contract every Store must meet (TestStore), which the in-memory store and
// the DynamoDB adapter both pass — so the fake cannot drift from the
// engine it stands for.
package idempotencytest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/botix/public-api/internal/idempotency"
)

// Operations of the Store, as Fault.Op names them.
const (
	OpCapture  = "Capture"
	OpCommit   = "Commit"
	OpComplete = "Complete"
	OpRelease  = "Release"
)

// ErrFault is the error an injected fault reports unless it names another.
var ErrFault = errors.New("idempotencytest: injected fault")

// Fault makes calls of one operation fail.
type Fault struct {
	Op string
	// After lets the call take effect, then reports Err: the write
	// happened and the caller does not know (a lost response).
	After bool
	// Err is the reported error; ErrFault when nil.
	Err error
	// Times is how many calls fail; 0 means every call.
	Times int
}

// Effects are the in-memory store's effects: named writes.
type Effects struct {
	Writes []string
	// Unique makes each write conditional on its name not being written
	// yet; when one is, nothing is written and Conflict is returned.
	Unique   bool
	Conflict error
}

// Empty reports whether e writes nothing.
func (e *Effects) Empty() bool { return e == nil || len(e.Writes) == 0 }

// Store is an in-memory idempotency.Store with the DynamoDB adapter's
// conditions. Its zero value is ready to use.
type Store struct {
	mu      sync.Mutex
	records map[string]idempotency.Record
	written map[string]int
	order   []string
	calls   map[string]int
	faults  []*Fault
	fired   map[*Fault]int
}

var _ idempotency.Store = (*Store)(nil)

// Fail arms a fault.
func (s *Store) Fail(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// Heal disarms every fault.
func (s *Store) Heal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults, s.fired = nil, nil
}

// Written returns how many times the write name was applied.
func (s *Store) Written(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written[name]
}

// Writes returns every applied write, in order.
func (s *Store) Writes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.order)
}

// Calls returns how many times each operation was called.
func (s *Store) Calls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.calls)
}

// ResetCalls forgets the call counts.
func (s *Store) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
}

// Record returns the record of (scope, key), if any.
func (s *Store) Record(scope, key string) (idempotency.Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.records[scope+"#"+key]
	return r, ok
}

// call counts op and returns the error of a fault armed for it (before or
// after the effect, as asked).
func (s *Store) call(op string, after bool) error {
	if !after {
		if s.calls == nil {
			s.calls = map[string]int{}
		}
		s.calls[op]++
	}
	if s.fired == nil {
		s.fired = map[*Fault]int{}
	}
	for _, f := range s.faults {
		if f.Op == op && f.After == after && (f.Times == 0 || s.fired[f] < f.Times) {
			s.fired[f]++
			if f.Err != nil {
				return f.Err
			}
			return ErrFault
		}
	}
	return nil
}

// Capture implements idempotency.Store.
func (s *Store) Capture(_ context.Context, c idempotency.Capture) (*idempotency.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.call(OpCapture, false); err != nil {
		return nil, err
	}
	k := c.Scope + "#" + c.Key
	if old, ok := s.records[k]; ok {
		free := old.ExpiresAt.Before(c.Now) || (old.Status == idempotency.InProgress && old.LeaseExpiresAt.Before(c.Now))
		if !free {
			return &old, nil
		}
	}
	if s.records == nil {
		s.records = map[string]idempotency.Record{}
	}
	s.records[k] = idempotency.Record{
		Status: idempotency.InProgress, Fingerprint: c.Fingerprint, LockToken: c.Token,
		LeaseExpiresAt: c.LeaseUntil, ExpiresAt: c.ExpiresAt, RequestID: c.RequestID,
	}
	return nil, s.call(OpCapture, true)
}

// held checks the commit condition: the record is in progress under lock.
func (s *Store) held(lock idempotency.Lock) (idempotency.Record, error) {
	rec, ok := s.records[lock.Scope+"#"+lock.Key]
	if !ok {
		return rec, &idempotency.FencedError{}
	}
	if rec.Status != idempotency.InProgress || rec.LockToken != lock.Token {
		return rec, &idempotency.FencedError{Record: &rec}
	}
	return rec, nil
}

func (s *Store) completeLocked(lock idempotency.Lock, rec idempotency.Record, done idempotency.Completion) {
	resp := done.Response
	resp.Body = slices.Clone(resp.Body)
	resp.Headers = maps.Clone(resp.Headers)
	rec.Status, rec.Response, rec.RequestID, rec.LeaseExpiresAt = idempotency.Completed, &resp, done.RequestID, time.Time{}
	s.records[lock.Scope+"#"+lock.Key] = rec
}

// Commit implements idempotency.Store. effects must be *Effects.
func (s *Store) Commit(_ context.Context, lock idempotency.Lock, done idempotency.Completion, effects idempotency.Effects) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.call(OpCommit, false); err != nil {
		return err
	}
	e, ok := effects.(*Effects)
	if !ok {
		return errors.New("idempotencytest: effects of another store")
	}
	rec, err := s.held(lock)
	if err != nil {
		return err
	}
	if e.Unique {
		for _, w := range e.Writes {
			if s.written[w] > 0 {
				return e.Conflict
			}
		}
	}
	if s.written == nil {
		s.written = map[string]int{}
	}
	for _, w := range e.Writes {
		s.written[w]++
		s.order = append(s.order, w)
	}
	s.completeLocked(lock, rec, done)
	return s.call(OpCommit, true)
}

// Complete implements idempotency.Store.
func (s *Store) Complete(_ context.Context, lock idempotency.Lock, done idempotency.Completion) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.call(OpComplete, false); err != nil {
		return err
	}
	rec, err := s.held(lock)
	if err != nil {
		return err
	}
	s.completeLocked(lock, rec, done)
	return s.call(OpComplete, true)
}

// Release implements idempotency.Store.
func (s *Store) Release(_ context.Context, lock idempotency.Lock) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.call(OpRelease, false); err != nil {
		return err
	}
	if _, err := s.held(lock); err == nil {
		delete(s.records, lock.Scope+"#"+lock.Key)
	}
	return s.call(OpRelease, true)
}
