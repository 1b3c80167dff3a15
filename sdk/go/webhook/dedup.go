package webhook

import (
	"context"
	"sync"
	"time"
)

// Deduplicator remembers processed event ids (the processed_events
// pattern). Implementations are safe for concurrent use: of two concurrent
// First calls with one id, exactly one returns true.
type Deduplicator interface {
	// First records id and reports whether this is its first sighting.
	First(ctx context.Context, eventID string) (bool, error)
	// Forget removes id, so that a redelivery is processed again (after
	// the handler failed).
	Forget(ctx context.Context, eventID string) error
}

// DefaultRetention is how long event ids are remembered: longer than
// BOTIX's retry window (about 25 hours) and a redrive after it.
const DefaultRetention = 72 * time.Hour

// MemoryDeduplicator remembers ids in process memory: right for one
// instance and for tests.
type MemoryDeduplicator struct {
	// Retention is how long an id is remembered; 0 means DefaultRetention.
	Retention time.Duration

	mu   sync.Mutex
	seen map[string]time.Time
}

var _ Deduplicator = (*MemoryDeduplicator)(nil)

// First implements Deduplicator.
func (m *MemoryDeduplicator) First(_ context.Context, id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if m.seen == nil {
		m.seen = map[string]time.Time{}
	}
	if exp, ok := m.seen[id]; ok && now.Before(exp) {
		return false, nil
	}
	if len(m.seen) > 100000 {
		for k, exp := range m.seen {
			if now.After(exp) {
				delete(m.seen, k)
			}
		}
	}
	ret := m.Retention
	if ret == 0 {
		ret = DefaultRetention
	}
	m.seen[id] = now.Add(ret)
	return true, nil
}

// Forget implements Deduplicator.
func (m *MemoryDeduplicator) Forget(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.seen, id)
	return nil
}
