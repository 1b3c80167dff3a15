package ticker

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestEveryTicksUntilStopped: f runs again and again, and never once stop
// has returned.
func TestEveryTicksUntilStopped(t *testing.T) {
	var calls atomic.Int64
	stop := Every(5*time.Millisecond, func(time.Time) { calls.Add(1) })
	for deadline := time.Now().Add(10 * time.Second); calls.Load() < 3; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls in 10s at 5ms", calls.Load())
		}
	}
	stop()
	n := calls.Load()
	time.Sleep(30 * time.Millisecond)
	if calls.Load() != n {
		t.Fatalf("called after stop: %d, then %d", n, calls.Load())
	}
}
