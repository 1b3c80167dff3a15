package webhook

import (
	"context"
	"sync"
	"time"
)

// State is what a Deduplicator knows about an event id when Begin is
// called.
type State int

// The three states of an event id.
const (
	// StateUnseen: the id was not seen, or its earlier processing was
	// forgotten (it failed) or its lease ran out (the processor crashed).
	// Begin has now recorded it as processing with a fresh lease: the
	// caller processes the event, then calls Complete or Forget.
	StateUnseen State = iota + 1
	// StateProcessing: another copy of the event is being processed and
	// its lease has not run out. The caller must not process it, nor
	// acknowledge it: if that processing fails, this copy is the one to
	// redeliver.
	StateProcessing
	// StateDone: the event was processed. The caller acknowledges the
	// copy and does not process it.
	StateDone
)

// String names the state for logs.
func (s State) String() string {
	switch s {
	case StateUnseen:
		return "unseen"
	case StateProcessing:
		return "processing"
	case StateDone:
		return "done"
	}
	return "invalid"
}

// Deduplicator remembers event ids in three states — unseen, processing
// (under a lease), done — so that an event is processed once even when
// copies arrive concurrently (the processed_events pattern with a claim).
// Implementations are safe for concurrent use: of concurrent Begin calls
// with one unseen id, exactly one returns StateUnseen.
//
// An error from any method means the store could not be asked or updated;
// the state is then unknown and the caller treats it as retryable.
type Deduplicator interface {
	// Begin claims id for processing and reports the state it found:
	// StateUnseen (the claim is the caller's, for the lease), StateProcessing
	// (another claim is live), or StateDone. An id whose lease ran out
	// without Complete or Forget is StateUnseen again: a crashed processor
	// does not block its event forever.
	Begin(ctx context.Context, eventID string) (State, error)
	// Complete records id as done (for the retention), after processing
	// succeeded.
	Complete(ctx context.Context, eventID string) error
	// Forget releases a processing id after processing failed, so that a
	// redelivery is processed. It leaves a done id done: a processor whose
	// lease was taken over and which then fails must not undo the
	// successful processing of the copy that took over.
	Forget(ctx context.Context, eventID string) error
}

// DefaultRetention is how long event ids are remembered: longer than
// BOTIX's retry window (about 25 hours) and a redrive after it.
const DefaultRetention = 72 * time.Hour

// DefaultLease is how long a processing claim holds before a redelivery
// may take it over. It must exceed the longest processing, or a slow
// processing and a retry both run. Five minutes is ten times BOTIX's 30 s
// read timeout, and shorter than its second retry step (15 minutes), so an
// event whose processor crashed is processed again by the third attempt
// at the latest.
const DefaultLease = 5 * time.Minute

// MemoryDeduplicator remembers ids in process memory: right for one
// instance and for tests.
type MemoryDeduplicator struct {
	// Retention is how long a done id is remembered; 0 means
	// DefaultRetention.
	Retention time.Duration
	// Lease is how long a processing claim holds; 0 means DefaultLease.
	Lease time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu   sync.Mutex
	seen map[string]memoryEntry
}

// memoryEntry is one id: processing until until, or done (remembered
// until until).
type memoryEntry struct {
	done  bool
	until time.Time
}

var _ Deduplicator = (*MemoryDeduplicator)(nil)

func (m *MemoryDeduplicator) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// Begin implements Deduplicator.
func (m *MemoryDeduplicator) Begin(_ context.Context, id string) (State, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if m.seen == nil {
		m.seen = map[string]memoryEntry{}
	}
	if e, ok := m.seen[id]; ok && now.Before(e.until) {
		if e.done {
			return StateDone, nil
		}
		return StateProcessing, nil
	}
	if len(m.seen) > 100000 {
		for k, e := range m.seen {
			if !now.Before(e.until) {
				delete(m.seen, k)
			}
		}
	}
	lease := m.Lease
	if lease == 0 {
		lease = DefaultLease
	}
	m.seen[id] = memoryEntry{until: now.Add(lease)}
	return StateUnseen, nil
}

// Complete implements Deduplicator.
func (m *MemoryDeduplicator) Complete(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	ret := m.Retention
	if ret == 0 {
		ret = DefaultRetention
	}
	if m.seen == nil {
		m.seen = map[string]memoryEntry{}
	}
	m.seen[id] = memoryEntry{done: true, until: m.now().Add(ret)}
	return nil
}

// Forget implements Deduplicator.
func (m *MemoryDeduplicator) Forget(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.seen[id]; ok && !e.done {
		delete(m.seen, id)
	}
	return nil
}
