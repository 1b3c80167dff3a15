package webhook

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/botix/public-api/internal/awslimits"
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
// The pace is a virtual queue. Each delivery to a paced endpoint takes a
// number — an unconditional ADD on the endpoint's counter, one per batch,
// which no other instance's write can make fail — and its start follows
// from the endpoint's schedule: number N0 was due at T0, and later numbers
// fall due at the schedule's rate, which grows from R0 by AdaptiveGrowth
// per second up to its ceiling. The schedule is written only when it
// changes: the first time the endpoint is paced, when its rate limit
// changes, and when the receiver asks to slow down (one conditional write,
// on the schedule's version). A slow-down moves every number not yet due
// behind the pause, at the lowered rate, without a write per delivery.
// Concurrency is one lease per slot, taken and released with one
// conditional write per batch. A delivery with no capacity now is deferred
// — put back on the queue with a delay — without counting an attempt.

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
const MaxDefer = awslimits.SQSMaxDelay

// Late is how late a delivery may come back for its start (a busy poller
// receives it late) and still take it: a later one takes a new number, so
// that the late ones of several seconds do not start together.
const Late = 250 * time.Millisecond

// Nearby is how far ahead a delivery's start may be for its batch to wait
// for it, in the deliver function; a later start waits on the queue (whose
// delays are whole seconds: the deferral is rounded down, and the rest is
// waited for here).
const Nearby = time.Second

// MaxThrottles bounds the attempts of a round answered with "slow down":
// they do not use up the round's schedule, but a receiver that keeps
// answering 429 this many times is failing, not slowing down.
const MaxThrottles = 50

// Flow is an endpoint's pacing state. Times are epoch milliseconds.
type Flow struct {
	// Version orders the writes of the state: each is conditioned on it.
	Version int64 `json:"-"`
	// The schedule: number N0 was due at T0, when the rate was R0
	// (deliveries per second), growing by AdaptiveGrowth per second up to
	// Ceiling (the owner's rate limit, or AdaptiveCeiling); R0 0: none.
	N0      float64 `json:"-"`
	T0      int64   `json:"-"`
	R0      float64 `json:"-"`
	Ceiling float64 `json:"-"`
	// DecreasedAt is the receiver's last "slow down" that lowered the rate.
	DecreasedAt int64 `json:"-"`
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

// ceiling is the rate the endpoint's pace grows back to: its rate limit,
// or AdaptiveCeiling.
func (e Endpoint) ceiling() float64 {
	if e.RateLimit > 0 {
		return float64(e.RateLimit)
	}
	return AdaptiveCeiling
}

// adaptive is the receiver-driven rate at now, 0 when there is none (never
// lowered, or grown back to the ceiling).
func (e Endpoint) adaptive(now time.Time) float64 {
	f := e.Flow
	if f.DecreasedAt == 0 || f.R0 <= 0 || f.R0 >= f.Ceiling {
		return 0
	}
	r := f.rate(now.UnixMilli())
	if r >= min(f.Ceiling, e.ceiling()) {
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

// The schedule's arithmetic. From T0 the rate is R0·g^τ (τ in seconds,
// g = AdaptiveGrowth) until it reaches Ceiling at τc, then Ceiling; the
// numbers due by a time are N0 plus the integral of the rate, and the
// start of a number is that integral's inverse — both in closed form.

// rate is the schedule's rate at t.
func (f Flow) rate(t int64) float64 {
	tau := max(0, float64(t-f.T0)/1000)
	return min(f.Ceiling, f.R0*math.Pow(AdaptiveGrowth, tau))
}

// grown returns the time (s) the rate takes to reach the ceiling, and the
// numbers that fall due meanwhile.
func (f Flow) grown() (tauC, due float64) {
	if f.R0 >= f.Ceiling {
		return 0, 0
	}
	lg := math.Log(AdaptiveGrowth)
	return math.Log(f.Ceiling/f.R0) / lg, (f.Ceiling - f.R0) / lg
}

// due is how many numbers have fallen due by t (N0 and before included).
func (f Flow) due(t int64) float64 {
	tau := float64(t-f.T0) / 1000
	if tau <= 0 {
		return f.N0
	}
	tauC, dueC := f.grown()
	if tau <= tauC {
		return f.N0 + f.R0*(math.Pow(AdaptiveGrowth, tau)-1)/math.Log(AdaptiveGrowth)
	}
	return f.N0 + dueC + f.Ceiling*(tau-tauC)
}

// startOf is when number n falls due; a number at or before N0 was due
// before the schedule began, which is long past (math.MinInt64).
func (f Flow) startOf(n int64) int64 {
	d := float64(n) - f.N0
	if d <= 0 {
		return math.MinInt64
	}
	tauC, dueC := f.grown()
	var tau float64
	if d <= dueC {
		lg := math.Log(AdaptiveGrowth)
		tau = math.Log1p(d*lg/f.R0) / lg
	} else {
		tau = tauC + (d-dueC)/f.Ceiling
	}
	return f.T0 + int64(math.Ceil(tau*1000))
}

// anchored returns the flow with a schedule that begins at t (or at the end
// of the pause, if later) at rate r, with the numbers due by then — under
// the schedule before it, or, for the first one, every number given so
// far — counted as due.
func (e Endpoint) anchored(t int64, r float64) Flow {
	f := e.Flow
	n0 := float64(e.Taken)
	if f.R0 > 0 {
		n0 = f.due(t)
	}
	f.N0, f.T0, f.R0, f.Ceiling = n0, max(t, f.PausedUntil), r, e.ceiling()
	f.Version++
	return f
}

// Schedule returns the schedule the endpoint is paced by at now, and true
// when it must be written first: the endpoint has none yet, or its rate
// limit changed since it was written. Without a pace it is not used.
func (e Endpoint) Schedule(now time.Time) (Flow, bool) {
	f := e.Flow
	if f.R0 > 0 && f.Ceiling == e.ceiling() {
		return f, false
	}
	r := e.ceiling()
	if f.R0 > 0 && f.R0 < f.Ceiling {
		// Still climbing back from a slow-down: go on from where it is.
		r = min(r, f.rate(now.UnixMilli()))
	}
	return e.anchored(now.UnixMilli(), r), true
}

// Catch-up: the number the next ones must come after at now — the number
// due now, when the endpoint's counter is behind it (it was idle); 0 when
// it is not, and the next ones simply follow the last given.
func (e Endpoint) CatchUp(f Flow, now time.Time) int64 {
	if due := int64(f.due(now.UnixMilli())); due > e.Taken {
		return due
	}
	return 0
}

// Start is one delivery's place in its endpoint's flow.
type Start struct {
	// Number is its place in the endpoint's virtual queue (0: none: it
	// takes one).
	Number int64
	// NotBefore (epoch ms) is the earliest it may start, whatever its
	// number says (0: none).
	NotBefore int64
}

// Admission is what flow control decided for one delivery of a batch.
type Admission struct {
	// Run: it may start at At (epoch ms; 0: at once), within Nearby.
	Run bool
	At  int64
	// Wait, when not Run, is how long to defer it (whole seconds); Start
	// is what it keeps.
	Wait  time.Duration
	Start Start
}

// NeedNumbers returns which of a batch's deliveries take a new number
// under schedule f at now: those without one, and those back later than
// Late after their start.
func NeedNumbers(f Flow, starts []Start, now time.Time) []int {
	var need []int
	for i, s := range starts {
		if s.Number == 0 || f.startOf(s.Number) < now.UnixMilli()-Late.Milliseconds() {
			need = append(need, i)
		}
	}
	return need
}

// PlanStarts decides when each of a batch's deliveries to a paced endpoint
// starts, all of them with numbers: at its number's start under schedule
// f, not before the receiver's pause ends nor before its own NotBefore,
// and, within the batch, in number order at the pace, so that the ones due
// together do not start together. A start within Nearby runs (its batch
// waits for it); a later one is deferred, rounded down to whole seconds.
func PlanStarts(e Endpoint, f Flow, starts []Start, now time.Time) []Admission {
	nowMs := now.UnixMilli()
	out := make([]Admission, len(starts))
	order := make([]int, len(starts))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return int(starts[a].Number - starts[b].Number) })
	var prev int64
	overdue := false // the one before was due before now
	for _, i := range order {
		s := starts[i]
		var at int64
		if f.R0 > 0 {
			own := f.startOf(s.Number)
			at = own
			if overdue {
				// Due together with the one before: after it, at the pace.
				at = max(at, prev+int64(math.Ceil(1000/f.rate(prev))))
			}
			overdue = own < nowMs
		}
		at = max(at, nowMs, e.Flow.PausedUntil, s.NotBefore)
		prev = at
		if at-nowMs < Nearby.Milliseconds() {
			out[i] = Admission{Run: true, At: at, Start: s}
			continue
		}
		wait := min(time.Duration(at-nowMs)*time.Millisecond, MaxDefer).Truncate(time.Second)
		out[i] = Admission{Wait: wait, Start: Start{Number: s.Number, NotBefore: at}}
	}
	return out
}

// PlanLeases picks the concurrency slots for n deliveries of a batch from
// the endpoint's free ones (as last seen), at random so that batches
// racing for them rarely pick the same; until is when the leases end.
func PlanLeases(e Endpoint, n int, now, until time.Time, rnd *rand.Rand) Leases {
	free := e.freeSlots(now.UnixMilli())
	rnd.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
	take := Leases{}
	for _, s := range free[:min(n, len(free))] {
		take[s] = until.UnixMilli()
	}
	return take
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
// write. The schedule starts again at the end of the pause, at the lowered
// rate, with every number due by now counted as due: those not yet due
// fall due after the pause, at the new pace.
func PlanThrottle(e Endpoint, answer string, retryAfter time.Duration, now time.Time) (Flow, bool) {
	f, nowMs := e.Flow, now.UnixMilli()
	quiet := nowMs-f.DecreasedAt < AdaptiveQuietPeriod.Milliseconds()
	if quiet && now.Add(retryAfter).UnixMilli() <= f.PausedUntil+AdaptiveQuietPeriod.Milliseconds() {
		return f, false
	}
	r := e.Pace(now)
	if !quiet {
		if r == 0 {
			r = AdaptiveStartRate / AdaptiveDecrease
		}
		r = max(MinAdaptiveRate, r*AdaptiveDecrease)
		e.Flow.DecreasedAt = nowMs
	} else if r == 0 {
		r = e.ceiling()
	}
	if retryAfter > 0 {
		e.Flow.PausedUntil = max(f.PausedUntil, now.Add(retryAfter).UnixMilli())
	}
	e.Flow.Cause = answer
	return e.anchored(nowMs, r), true
}

// Throttled reports whether an answer asks the sender to slow down — a
// 429, or a 503 with a Retry-After — and for how long it pauses (0: no
// valid Retry-After).
func Throttled(r Response, now time.Time) (bool, time.Duration) {
	after, ok := ParseRetryAfter(r.RetryAfter, now)
	return r.Status == 429 || (r.Status == 503 && ok), after
}
