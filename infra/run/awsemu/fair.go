package awsemu

import (
	"math"
	"time"
)

// Fair queueing, as Amazon SQS fair queues work on a standard queue
// ("How Amazon SQS fair queues work", SQS Developer Guide):
//
//   - A tenant is a MessageGroupId; a message without one is a tenant of
//     its own.
//   - A tenant is a noisy neighbour while it has more than 10 % of the
//     queue's in-flight messages and at least 30 of its own in flight
//     (concurrency share), or more than 10 % of the consumers' recent
//     processing time (processing-time share).
//   - Receives return quiet tenants' messages first; when only noisy
//     tenants have messages waiting, the one with the fewest in flight
//     first. Nothing is dropped or throttled: a noisy tenant's messages
//     wait longer, and are served as usual when nothing else waits.
//   - A tenant stops being noisy when its backlog is drained or it has
//     sent nothing for 5 minutes.
//
// SQS's thresholds are approximate (a distributed system); the emulator
// applies them exactly, at every receive. SQS does not say how recent
// "recent" processing time is: here it decays with a one-minute time
// constant. Processing time is a message's time from its latest receive
// to its deletion.
const (
	noisyShare       = 0.10
	noisyMinInFlight = 30
	quietAfter       = 5 * time.Minute
	processingWindow = time.Minute
)

// tenant is what fair queueing remembers of a message group.
type tenant struct {
	lastSent   time.Time
	processing decayed // seconds of consumer time, recently
}

// decayed is a sum whose terms fade with processingWindow.
type decayed struct {
	sum float64
	at  time.Time
}

func (d decayed) valueAt(now time.Time) float64 {
	if d.sum == 0 {
		return 0
	}
	return d.sum * math.Exp(-now.Sub(d.at).Seconds()/processingWindow.Seconds())
}

func (d *decayed) add(now time.Time, x float64) {
	d.sum, d.at = d.valueAt(now)+x, now
}

// tenant returns the state of group g, creating it. The caller holds
// s.mu.
func (q *Queue) tenant(g string) *tenant {
	t := q.tenants[g]
	if t == nil {
		t = &tenant{}
		q.tenants[g] = t
	}
	return t
}

// processed records the consumer time m took, from its latest receive to
// now. The caller holds s.mu.
func (q *Queue) processed(m *message, now time.Time) {
	if m.lastReceive.IsZero() {
		return
	}
	d := now.Sub(m.lastReceive).Seconds()
	q.processing.add(now, d)
	if m.group != "" {
		q.tenant(m.group).processing.add(now, d)
	}
}

// fairness is one receive's view of the queue's tenants.
type fairness struct {
	q        *Queue
	now      time.Time
	inFlight map[string]int // by group
	total    int            // in flight, all tenants
	present  map[string]bool
	waiting  map[string][]*message // visible, by group, in send order
	solo     []*message            // visible, without a group, in send order
}

func newFairness(q *Queue, now time.Time) *fairness {
	return &fairness{q: q, now: now, inFlight: map[string]int{}, present: map[string]bool{}, waiting: map[string][]*message{}}
}

// hidden counts a message that is not visible: in flight unless it was
// sent with a delay and not received yet.
func (f *fairness) hidden(m *message) {
	if m.group != "" {
		f.present[m.group] = true
	}
	if !m.delayed {
		f.flying(m)
	}
}

// visible offers a visible message to the receive.
func (f *fairness) visible(m *message) {
	if m.group == "" {
		f.solo = append(f.solo, m)
		return
	}
	f.present[m.group] = true
	f.waiting[m.group] = append(f.waiting[m.group], m)
}

// flying counts m as in flight.
func (f *fairness) flying(m *message) {
	f.total++
	if m.group != "" {
		f.inFlight[m.group]++
	}
}

// forgetDrained drops the history of the groups with no message left:
// a drained tenant is quiet again.
func (f *fairness) forgetDrained() {
	for g := range f.q.tenants {
		if !f.present[g] {
			delete(f.q.tenants, g)
		}
	}
}

// noisy reports whether group g is a noisy neighbour now.
func (f *fairness) noisy(g string) bool {
	t := f.q.tenants[g]
	if t == nil || f.now.Sub(t.lastSent) >= quietAfter {
		return false
	}
	if n := f.inFlight[g]; n >= noisyMinInFlight && float64(n) > noisyShare*float64(f.total) {
		return true
	}
	all := f.q.processing.valueAt(f.now)
	return all > 0 && t.processing.valueAt(f.now) > noisyShare*all
}

// pick takes the next message to return: the earliest sent of the quiet
// tenants', else the earliest of the noisy tenant with the fewest
// messages in flight; nil when none is visible.
func (f *fairness) pick() *message {
	var quiet, loud *message
	loudInFlight := 0
	if len(f.solo) > 0 {
		quiet = f.solo[0]
	}
	for g, ms := range f.waiting {
		head := ms[0]
		if !f.noisy(g) {
			if quiet == nil || head.index < quiet.index {
				quiet = head
			}
			continue
		}
		if n := f.inFlight[g]; loud == nil || n < loudInFlight || (n == loudInFlight && head.index < loud.index) {
			loud, loudInFlight = head, n
		}
	}
	m := quiet
	if m == nil {
		m = loud
	}
	if m == nil {
		return nil
	}
	if m.group == "" {
		f.solo = f.solo[1:]
	} else if rest := f.waiting[m.group][1:]; len(rest) > 0 {
		f.waiting[m.group] = rest
	} else {
		delete(f.waiting, m.group)
	}
	return m
}

// validateGroupID applies SQS's rule for MessageGroupId: up to 128
// alphanumeric and punctuation characters.
func validateGroupID(g string) error {
	ok := len(g) <= 128
	for i := 0; ok && i < len(g); i++ {
		ok = g[i] >= '!' && g[i] <= '~'
	}
	if !ok {
		return invalidParameter("Value %s for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length.", g)
	}
	return nil
}
