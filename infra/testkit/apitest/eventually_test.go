package apitest

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// failures is a testing.TB that records Fatalf instead of failing.
type failures struct {
	testing.TB
	mu  sync.Mutex
	got []string
}

func (f *failures) Helper() {}

func (f *failures) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.got = append(f.got, fmt.Sprintf(format, args...))
	f.mu.Unlock()
	runtime.Goexit()
}

// eventually runs Eventually on its own goroutine (Fatalf ends it) and
// returns what it failed with, if anything.
func eventually(t *testing.T, timeout time.Duration, cond func() bool) []string {
	f := &failures{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Eventually(f, timeout, "the condition", cond)
	}()
	<-done
	return f.got
}

func TestEventually(t *testing.T) {
	t.Run("polls back off: a wait of 3 s asks at most about 35 times, not 60", func(t *testing.T) {
		polls := 0
		got := eventually(t, 3*time.Second, func() bool { polls++; return false })
		if len(got) != 1 || got[0] != "the condition: not within 3s" {
			t.Fatalf("failed with %q", got)
		}
		// 50, 75, then 100 ms (a thirtieth of 3 s) apart: about 32 polls; a
		// loaded machine polls less often, never more.
		if polls > 35 || polls < 2 {
			t.Fatalf("%d polls in 3 s", polls)
		}
	})
	t.Run("a condition that holds only at the deadline passes", func(t *testing.T) {
		start := time.Now()
		got := eventually(t, 500*time.Millisecond, func() bool { return time.Since(start) >= 500*time.Millisecond })
		if len(got) != 0 {
			t.Fatalf("failed with %q", got)
		}
	})
	t.Run("a condition that holds at once is asked once", func(t *testing.T) {
		polls := 0
		if got := eventually(t, time.Minute, func() bool { polls++; return true }); len(got) != 0 || polls != 1 {
			t.Fatalf("failed with %q after %d polls", got, polls)
		}
	})
}
