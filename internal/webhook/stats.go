package webhook

import (
	"strconv"
	"time"
)

// Counts are attempts of one hour by the status each left its delivery
// in: delivered, still retrying, or dead. The dashboard stacks them.
// Deliveries counts deliveries, not attempts: those whose first attempt
// started in the hour (a delivery tried five times is five attempts and
// one delivery).
// Latency is the response times of the attempts the receiver answered.
type Counts struct {
	Delivered  int64   `json:"delivered"`
	Retrying   int64   `json:"retrying"`
	Dead       int64   `json:"dead"`
	Deliveries int64   `json:"deliveries"`
	Latency    Latency `json:"latency"`
}

// Add returns c + o.
func (c Counts) Add(o Counts) Counts {
	return Counts{Delivered: c.Delivered + o.Delivered, Retrying: c.Retrying + o.Retrying, Dead: c.Dead + o.Dead, Deliveries: c.Deliveries + o.Deliveries,
		Latency: c.Latency.Add(o.Latency)}
}

// Total is every attempt counted (Deliveries is not an attempt count).
func (c Counts) Total() int64 { return c.Delivered + c.Retrying + c.Dead }

// Outcomes are what attempts are counted as.
var Outcomes = []Status{StatusDelivered, StatusRetrying, StatusDead}

// Outcome is what an attempt that left its delivery in status counts as:
// delivered, dead, or (still pending or retrying) retrying.
func Outcome(status Status) Status {
	if status == StatusDelivered || status == StatusDead {
		return status
	}
	return StatusRetrying
}

// Of points at c's count of the outcome of status.
func (c *Counts) Of(status Status) *int64 {
	switch Outcome(status) {
	case StatusDelivered:
		return &c.Delivered
	case StatusDead:
		return &c.Dead
	}
	return &c.Retrying
}

// CountOf is how one attempt that left its delivery in status counts.
func CountOf(status Status) Counts {
	var c Counts
	*c.Of(status)++
	return c
}

// CountAttempt is how attempt a, which left its delivery in status,
// counts: its outcome, the delivery itself when a is its first scheduled
// attempt, and its response time when the receiver answered.
func CountAttempt(a Attempt, status Status) Counts {
	c := CountOf(status)
	if FirstAttempt(a) {
		c.Deliveries = 1
	}
	if Answered(a) {
		c.Latency[LatencyBucket(a.DurationMs)] = 1
	}
	return c
}

// Answered reports whether the receiver answered attempt a (an HTTP
// status): only those have a response time.
func Answered(a Attempt) bool { return a.StatusCode > 0 }

// FirstAttempt reports whether a is its delivery's first attempt (of its
// first round, on schedule): the attempt a delivery is counted with.
func FirstAttempt(a Attempt) bool {
	return a.Attempt == 1 && a.Kind != KindManual && a.Kind != KindRedirect
}

// StatsRetention is how long the hourly counts are kept: the 14 days the
// dashboard charts, and a day of margin.
const StatsRetention = 15 * 24 * time.Hour

// HourCounts is one hour's counts.
type HourCounts struct {
	Hour time.Time
	Counts
}

// AttemptHour is the hour an attempt counts in: the hour it started (the
// hour of now for an attempt without a start time).
func AttemptHour(a Attempt, now time.Time) time.Time {
	t, err := time.Parse(time.RFC3339Nano, a.StartedAt)
	if err != nil {
		t = now
	}
	return t.UTC().Truncate(time.Hour)
}

// Granularities of the delivery stats.
const (
	GranularityHour = "hour"
	GranularityDay  = "day"
)

// Granularities lists the granularities the stats accept.
var Granularities = []string{GranularityHour, GranularityDay}

// StatsWindow is what a stats request covers: buckets of Granularity
// (UTC hours or UTC days) from the one holding From to the one holding To.
type StatsWindow struct {
	Granularity string
	From, To    time.Time
}

// DefaultHourlyWindow is how far back hourly stats reach when since is
// not given (daily stats reach back DeliveryRetention).
const DefaultHourlyWindow = 24 * time.Hour

// NewStatsWindow fills in a stats request: granularity defaults to hour;
// until to now and since to DefaultHourlyWindow (hour) or
// DeliveryRetention (day) before until.
// The window is cut to what the counters can hold: not before
// StatsRetention ago, not after now. A window that holds nothing is
// refused: field names the parameter at fault and problem says why.
func NewStatsWindow(granularity string, since, until, now time.Time) (_ StatsWindow, field, problem string) {
	if granularity == "" {
		granularity = GranularityHour
	}
	if until.IsZero() || until.After(now) {
		until = now
	}
	if since.IsZero() {
		since = until.Add(-DefaultHourlyWindow)
		if granularity == GranularityDay {
			since = until.Add(-DeliveryRetention)
		}
	}
	floor := now.Add(-StatsRetention)
	switch {
	case until.Before(since):
		// until == since is the bucket that holds it, as the document's
		// "must not be before since" allows.
		return StatsWindow{}, "until", "must not be before since (and until is never later than now)"
	case until.Before(floor):
		return StatsWindow{}, "until", "must be within the last " + strconv.Itoa(int(StatsRetention/(24*time.Hour))) + " days: older counts are not kept"
	case since.Before(floor):
		since = floor
	}
	return StatsWindow{Granularity: granularity, From: floorTo(granularity, since), To: floorTo(granularity, until)}, "", ""
}

// floorTo is the start of the bucket of granularity that holds t.
func floorTo(granularity string, t time.Time) time.Time {
	t = t.UTC()
	if granularity == GranularityDay {
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	return t.Truncate(time.Hour)
}

// step is one bucket's length.
func (w StatsWindow) step() time.Duration {
	if w.Granularity == GranularityDay {
		return 24 * time.Hour
	}
	return time.Hour
}

// End is where the last bucket ends (exclusive).
func (w StatsWindow) End() time.Time { return w.To.Add(w.step()) }

// Bucket is the counts of one hour or day.
type Bucket struct {
	Start time.Time `json:"start"`
	Counts
}

// Buckets sums hours into the window's buckets: every bucket of the
// window, in order, those without attempts at zero.
func (w StatsWindow) Buckets(hours []HourCounts) []Bucket {
	var out []Bucket
	index := map[time.Time]int{}
	for t := w.From; !t.After(w.To); t = t.Add(w.step()) {
		index[t] = len(out)
		out = append(out, Bucket{Start: t})
	}
	for _, h := range hours {
		if i, ok := index[floorTo(w.Granularity, h.Hour)]; ok {
			out[i].Counts = out[i].Counts.Add(h.Counts)
		}
	}
	return out
}
