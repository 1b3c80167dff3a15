package main

import (
	"fmt"
	"io"
	"time"
)

// quietest is the longest a running step stays silent once it has spoken.
const quietest = 30 * time.Second

// reporter decides when a step's status becomes a line: not during the
// first interval (a warm build says nothing), then whenever the status
// changed since the last line, and at least every 30 s.
type reporter struct {
	out   io.Writer
	label string
	every time.Duration
	start time.Time

	last   string    // the key of the last line
	lastAt time.Time // when it was printed; zero before the first
}

// tick is called every interval with the step's status: line, and key,
// which changes when line says something new.
func (r *reporter) tick(now time.Time, key, line string) {
	if now.Sub(r.start) < r.every {
		return
	}
	// Half an interval of slack: a tick that comes a little early (a loaded
	// machine) must not put off the line by a whole interval.
	if !r.lastAt.IsZero() && key == r.last && now.Sub(r.lastAt)+r.every/2 < quietest {
		return
	}
	r.last, r.lastAt = key, now
	fmt.Fprintf(r.out, "%s: %s, %s\n", r.label, line, duration(now.Sub(r.start)))
}

// duration is d to the second: 45s, 3m02s, 1h04m05s.
func duration(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		return fmt.Sprintf("%dh%02dm%02ds", s/3600, s/60%60, s%60)
	}
}
