package awsemu

import (
	"sort"
	"sync"
	"time"
)

// Clock is the time an SQS and a Scheduler go by: when a message becomes
// visible again (visibility timeouts, delays), when it expires
// (retention), fair queueing's windows, timestamps, when a long poll
// ends, and when a schedule is due. Nil in SQS.Clock is the wall clock.
//
// A wait is a timer on the Clock, not on the wall: a long poll asleep
// until a message's visibility timeout ends is woken by the Clock's
// timer, so a ManualClock's Advance wakes it, and a Scheduler's tick is
// one too. Only a message move task's rate (MaxNumberOfMessagesPerSecond)
// paces itself in real time: it is how long the task takes, not a time a
// message carries.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f, in its own goroutine or the one that moves the
	// clock, once d has passed; stop cancels the call and reports
	// whether it did (false: f has been called or is being called).
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// ManualClock is a Clock that stands still until advanced: tests move it
// past a visibility timeout, a delay, a retention period or a schedule's
// time instead of waiting for it. Safe for concurrent use.
type ManualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*manualTimer
}

type manualTimer struct {
	at time.Time
	f  func()
}

// NewManualClock returns a ManualClock that reads start until advanced.
func NewManualClock(start time.Time) *ManualClock { return &ManualClock{now: start} }

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc registers f to be called by the Advance that reaches d from
// now (at once, in a goroutine of its own, when d <= 0).
func (c *ManualClock) AfterFunc(d time.Duration, f func()) func() bool {
	if d <= 0 {
		go f()
		return func() bool { return false }
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &manualTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, other := range c.timers {
			if other == t {
				c.timers = append(c.timers[:i], c.timers[i+1:]...)
				return true
			}
		}
		return false
	}
}

// Waiting counts the functions registered with AfterFunc that have not
// been called or stopped: a test waits for a goroutine to be asleep on
// the clock (a long poll) before it advances it.
func (c *ManualClock) Waiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Advance moves the clock forward by d in one step, then calls, in the
// order of their times and before it returns, the functions whose time
// it reached. A function they register for later is not called by the
// same Advance, however short its delay: everything due sees the new
// time once, as if the clock had jumped.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due, later []*manualTimer
	for _, t := range c.timers {
		if t.at.After(c.now) {
			later = append(later, t)
		} else {
			due = append(due, t)
		}
	}
	c.timers = later
	c.mu.Unlock()
	sort.SliceStable(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
	for _, t := range due {
		t.f()
	}
}
