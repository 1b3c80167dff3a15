package clock

import (
	"testing"
	"time"
)

func TestOr(t *testing.T) {
	fixed := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		now  func() time.Time
		wall bool
	}{
		"a set clock is read":           {now: func() time.Time { return fixed }},
		"a nil clock is the wall clock": {wall: true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			before := time.Now()
			got := Or(c.now)()
			if c.wall {
				if got.Before(before) || got.After(time.Now()) {
					t.Fatalf("Or(nil)() = %s, not between %s and now", got, before)
				}
				return
			}
			if !got.Equal(fixed) {
				t.Fatalf("Or(set)() = %s, want %s", got, fixed)
			}
		})
	}
}
