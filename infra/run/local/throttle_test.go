package local

import (
	"testing"
	"time"
)

func TestStageThrottleIsATokenBucket(t *testing.T) {
	t0 := time.Unix(1795939200, 0)
	th := &throttle{rate: 2, burst: 3, tokens: 3}
	steps := []struct {
		at    time.Duration
		allow bool
	}{
		{0, true}, {0, true}, {0, true}, // the burst
		{0, false},                      // empty
		{400 * time.Millisecond, false}, // 0.8 of a token
		{500 * time.Millisecond, true},  // refilled at 2/s
		{500 * time.Millisecond, false},
		{10 * time.Second, true}, {10 * time.Second, true}, {10 * time.Second, true}, // capped at the burst
		{10 * time.Second, false},
	}
	for i, s := range steps {
		if got := th.allow(t0.Add(s.at)); got != s.allow {
			t.Fatalf("step %d at %s: allow = %v", i, s.at, got)
		}
	}
	var none *throttle
	if !none.allow(t0) {
		t.Fatal("no throttle refused a request")
	}
}
