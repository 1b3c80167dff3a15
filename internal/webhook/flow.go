package webhook

import (
	"math"
	"math/rand/v2"
	"time"
)

// Flow control: how fast and how many at once an endpoint is sent to.
//
// An endpoint's owner may set a rate limit (deliveries started per second)
// and a concurrency limit (requests in flight at once); the receiver may
// ask to slow down (429, or 503 with Retry-After), which pauses the whole
// endpoint until its Retry-After and lowers its effective rate, which then
// climbs back by AdaptiveGrowth per second. An endpoint with none of these
// is not flow-controlled and costs no extra DynamoDB call.
//
// The state is kept on the endpoint's item and changed by the deliver
// function's instances with conditional writes (Endpoints.Admit and
// Endpoints.Throttle): a version for the pacing state, one lease per
// concurrency slot. A delivery with no capacity now is deferred — put back
// on the queue with a delay — without counting an attempt.

// Bounds of the owner's limits.
const (
	MaxRateLimit      = 1000
	MaxMaxConcurrency = 100
)

// The receiver-driven (adaptive) rate: on a 429, or a 503 with Retry-After,
// the effective rate is multiplied by AdaptiveDecrease (at most once per
// AdaptiveQuietPeriod: the answers to one burst count once), and then grows
// by AdaptiveGrowth per second back to the owner's rate limit (or, without
// one, to AdaptiveCeiling, where the endpoint is no longer limited).
const (
	AdaptiveDecrease    = 0.5
	AdaptiveGrowth      = 1.1
	AdaptiveCeiling     = MaxRateLimit
	AdaptiveStartRate   = 10.0
	MinAdaptiveRate     = 0.1
	AdaptiveQuietPeriod = time.Second
)

// MaxDefer is the longest a deferred delivery waits before it is looked at
// again: SQS's longest message delay.
const MaxDefer = 15 * time.Minute

// MaxReserve is how far ahead (of now, or of the end of the receiver's
// pause) a start is given at an endpoint's pace; a delivery past it looks
// again about then, without a place. Short, so that
// a slow-down, which voids the starts given before it, voids few.
const MaxReserve = 2 * time.Minute

// Late is how late a delivery may come back for its start (SQS delays are
// whole seconds, and a busy poller is later still) and still take it: a
// later one is given a new start, so that the late ones of several seconds
// do not start together.
const Late = 250 * time.Millisecond

// Nearby is how far ahead a delivery's start may be for its batch to wait
// for it, in the deliver function; a later start waits on the queue (whose
// delays are whole seconds).
const Nearby = time.Second

// MaxThrottles bounds the attempts of a round answered with "slow down":
// they do not use up the round's schedule, but a receiver that keeps
// answering 429 this many times is failing, not slowing down.
const MaxThrottles = 50

// Flow is an endpoint's pacing state. Times are epoch milliseconds.
type Flow struct {
	// Version orders the writes of the state: each is conditioned on it.
	Version int64 `json:"-"`
	// Next is when the next delivery may start at the endpoint's pace (a
	// GCRA theoretical arrival time): later starts are reserved in turn.
	Next int64 `json:"-"`
	// Rate is the effective rate set by the receiver's last "slow down" (0:
	// none), at DecreasedAt.
	Rate        float64 `json:"-"`
	DecreasedAt int64   `json:"-"`
	// PausedUntil is the receiver's last Retry-After, as a time.
	PausedUntil int64 `json:"-"`
	// Cause is what the receiver answered ("http_429", "http_503").
	Cause string `json:"-"`
}

// Leases are the endpoint's concurrency slots in use: slot number to the
// epoch millisecond its holder's claim ends (a crashed holder's slot frees
// itself then).
type Leases map[int]int64

// FlowView is the flow control an endpoint's receiver asked for, shown on
// the endpoint while it lasts.
type FlowView struct {
	// EffectiveRate is the rate (deliveries per second) the receiver's
	// answers brought the endpoint down to, while it climbs back.
	EffectiveRate float64 `json:"effective_rate,omitempty"`
	// PausedUntil is the end of the receiver's last Retry-After.
	PausedUntil string `json:"paused_until,omitempty"`
	// ThrottledBy is the answer that lowered or paused it (http_429,
	// http_503).
	ThrottledBy string `json:"throttled_by"`
}

// View returns the flow control shown on the endpoint at now (nil when the
// receiver has not asked to slow down, or it has passed).
func (e Endpoint) View(now time.Time) *FlowView {
	var v FlowView
	if r := e.adaptive(now); r > 0 {
		v.EffectiveRate = math.Round(r*100) / 100
	}
	if e.Flow.PausedUntil > now.UnixMilli() {
		v.PausedUntil = time.UnixMilli(e.Flow.PausedUntil).UTC().Format(time.RFC3339Nano)
	}
	if v.EffectiveRate == 0 && v.PausedUntil == "" {
		return nil
	}
	v.ThrottledBy = e.Flow.Cause
	return &v
}

// adaptive is the receiver-driven rate at now, 0 when there is none (never
// lowered, or grown back to the ceiling).
func (e Endpoint) adaptive(now time.Time) float64 {
	if e.Flow.Rate <= 0 {
		return 0
	}
	ceiling := float64(AdaptiveCeiling)
	if e.RateLimit > 0 {
		ceiling = float64(e.RateLimit)
	}
	secs := max(0, float64(now.UnixMilli()-e.Flow.DecreasedAt)/1000)
	r := e.Flow.Rate * math.Pow(AdaptiveGrowth, secs)
	if r >= ceiling {
		return 0
	}
	return r
}

// Pace is the rate the endpoint is sent to at now: the lowest of its rate
// limit and its receiver-driven rate (0: no pace).
func (e Endpoint) Pace(now time.Time) float64 {
	r := math.Inf(1)
	if e.RateLimit > 0 {
		r = float64(e.RateLimit)
	}
	if a := e.adaptive(now); a > 0 {
		r = min(r, a)
	}
	if math.IsInf(r, 1) {
		return 0
	}
	return r
}

// Limited reports whether deliveries to the endpoint go through flow
// control at now.
func (e Endpoint) Limited(now time.Time) bool {
	return e.RateLimit > 0 || e.MaxConcurrency > 0 || e.adaptive(now) > 0 || e.Flow.PausedUntil > now.UnixMilli()
}

// Ticket is one delivery's place in its endpoint's flow: a start time
// reserved at the endpoint's pace (0: none yet), under the rate as it was
// after the receiver's slow-down of Of (Flow.DecreasedAt): a later
// slow-down voids it, and the delivery queues again at the lower pace.
type Ticket struct {
	Slot, Of int64
}

// Admission is what flow control decided for one delivery of a batch.
type Admission struct {
	// Run: it may start at At (epoch ms; 0: at once), within Nearby,
	// holding one of the batch's leases when the endpoint has a
	// concurrency limit.
	Run bool
	At  int64
	// Wait, when not Run, is how long to defer it; Ticket is the start it
	// keeps (it will not queue again at the endpoint's pace).
	Wait   time.Duration
	Ticket Ticket
}

// AdmitPlan is flow control's decision for a batch of deliveries to one
// endpoint: the state to write (nil: nothing to write), the leases to take,
// and one admission per delivery.
type AdmitPlan struct {
	Next       *Flow
	Take       Leases
	Admissions []Admission
	// Busy: deliveries could start but every concurrency slot was held (as
	// last seen).
	Busy bool
}

// PlanAdmit decides which of a batch of deliveries to an endpoint start now
// (tickets: their reserved starts, Slot 0 for none), given the endpoint's
// state as last seen. until is when the batch's leases end.
func PlanAdmit(e Endpoint, tickets []Ticket, now, until time.Time, rnd *rand.Rand) AdmitPlan {
	nowMs := now.UnixMilli()
	f := e.Flow
	plan := AdmitPlan{Admissions: make([]Admission, len(tickets))}
	pace := e.Pace(now)
	next := max(f.Next, nowMs, f.PausedUntil)
	paused := f.PausedUntil > nowMs
	changed := false
	var runs []int
	for i, t := range tickets {
		a := &plan.Admissions[i]
		if (paused && t.Slot < f.PausedUntil) || t.Of != f.DecreasedAt || (t.Slot != 0 && nowMs-t.Slot > Late.Milliseconds()) {
			// Paused, or slowed down since the start was given: queue
			// again, behind the pause, at the pace.
			t = Ticket{}
		}
		if t.Slot == 0 && pace == 0 && !paused {
			runs = append(runs, i)
			continue
		}
		if t.Slot == 0 {
			slot := next
			if slot-max(nowMs, f.PausedUntil) > MaxReserve.Milliseconds() {
				// Too far ahead to reserve: look again about then, without
				// a place.
				ahead := time.Duration(slot-nowMs-MaxReserve.Milliseconds()) * time.Millisecond
				a.Wait = min(max(ahead+time.Duration(rnd.IntN(int(MaxReserve/2/time.Millisecond)))*time.Millisecond,
					time.Duration(f.PausedUntil-nowMs)*time.Millisecond), MaxDefer)
				continue
			}
			if pace > 0 {
				next += int64(math.Ceil(1000 / pace))
			}
			t, changed = Ticket{Slot: slot, Of: f.DecreasedAt}, true
		}
		a.Ticket = t
		if !paused && t.Slot-nowMs < Nearby.Milliseconds() {
			a.At = t.Slot
			runs = append(runs, i)
			continue
		}
		a.Wait = time.Duration(max(t.Slot-nowMs, 0)) * time.Millisecond
	}
	if e.MaxConcurrency > 0 && len(runs) > 0 {
		free := e.freeSlots(nowMs)
		rnd.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
		n := min(len(runs), len(free))
		plan.Take = Leases{}
		for _, s := range free[:n] {
			plan.Take[s] = until.UnixMilli()
		}
		if n == 0 {
			// Every slot is busy: try again shortly, keeping the place.
			plan.Busy = true
			for _, i := range runs {
				a := &plan.Admissions[i]
				a.Wait = time.Second + time.Duration(rnd.IntN(1000))*time.Millisecond
				if a.Ticket.Slot == 0 {
					a.Ticket = tickets[i]
				}
			}
			runs = nil
		}
	}
	for _, i := range runs {
		plan.Admissions[i].Run = true
	}
	if changed || len(plan.Take) > 0 {
		f.Next, f.Version = next, f.Version+1
		plan.Next = &f
	}
	return plan
}

// freeSlots are the endpoint's concurrency slots without a live lease.
func (e Endpoint) freeSlots(nowMs int64) []int {
	var free []int
	for s := range e.MaxConcurrency {
		if exp, ok := e.Leases[s]; !ok || exp < nowMs {
			free = append(free, s)
		}
	}
	return free
}

// PlanThrottle returns the endpoint's state after a receiver asked it to
// slow down at now (answer: "http_429" or "http_503"), pausing it for
// retryAfter (0: no pause), and false when the state already says so (a
// second answer of the same burst, within the pause it set): nothing to
// write.
func PlanThrottle(e Endpoint, answer string, retryAfter time.Duration, now time.Time) (Flow, bool) {
	f, nowMs := e.Flow, now.UnixMilli()
	if nowMs-f.DecreasedAt < AdaptiveQuietPeriod.Milliseconds() && now.Add(retryAfter).UnixMilli() <= f.PausedUntil+AdaptiveQuietPeriod.Milliseconds() {
		return f, false
	}
	if retryAfter > 0 {
		f.PausedUntil = max(f.PausedUntil, now.Add(retryAfter).UnixMilli())
		f.Next = max(f.Next, f.PausedUntil)
	}
	if nowMs-f.DecreasedAt >= AdaptiveQuietPeriod.Milliseconds() {
		r := e.Pace(now)
		if r == 0 {
			r = AdaptiveStartRate / AdaptiveDecrease
		}
		f.Rate, f.DecreasedAt = max(MinAdaptiveRate, r*AdaptiveDecrease), nowMs
	}
	f.Cause, f.Version = answer, f.Version+1
	return f, true
}

// Throttled reports whether an answer asks the sender to slow down — a
// 429, or a 503 with a Retry-After — and for how long it pauses (0: no
// valid Retry-After).
func Throttled(r Response, now time.Time) (bool, time.Duration) {
	after, ok := ParseRetryAfter(r.RetryAfter, now)
	return r.Status == 429 || (r.Status == 503 && ok), after
}
