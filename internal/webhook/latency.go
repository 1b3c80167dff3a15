package webhook

import "encoding/json"

// LatencyBoundsMs are the upper bounds, in milliseconds, of the response
// time histogram the counters keep per hour: an answered attempt counts in
// the first bucket whose bound is at least its duration (one beyond the
// last bound counts in the last). Ten buckets, so that a counter item
// grows by a few attributes per endpoint at most: a receiver that answers
// alike fills one or two.
var LatencyBoundsMs = [...]int64{50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000}

// Latency is a response time histogram of answered attempts (those with
// an HTTP status: a timeout or a refused connection has no response
// time). In JSON it is its count and the bounds its 50th and 95th
// percentiles fall under: "p95_ms": 500 says 95 % of the answers came in
// 500 ms or less.
type Latency [len(LatencyBoundsMs)]int64

// LatencyBucket is the bucket a response time of ms counts in.
func LatencyBucket(ms int64) int {
	for i, bound := range LatencyBoundsMs {
		if ms <= bound {
			return i
		}
	}
	return len(LatencyBoundsMs) - 1
}

// Answered is how many answers l counts.
func (l Latency) Answered() int64 {
	var n int64
	for _, c := range l {
		n += c
	}
	return n
}

// Percentile is the bound the p-th percentile (0 < p ≤ 100) of l falls
// under, and false when l counts nothing.
func (l Latency) Percentile(p int64) (int64, bool) {
	n := l.Answered()
	if n == 0 {
		return 0, false
	}
	rank := (n*p + 99) / 100 // the rank of the answer at p %, rounded up
	var seen int64
	for i, c := range l {
		if seen += c; seen >= rank {
			return LatencyBoundsMs[i], true
		}
	}
	return LatencyBoundsMs[len(LatencyBoundsMs)-1], true
}

// Add returns l + o.
func (l Latency) Add(o Latency) Latency {
	for i := range l {
		l[i] += o[i]
	}
	return l
}

// MarshalJSON writes {"answered", "p50_ms", "p95_ms"}, the percentiles
// null when nothing was answered.
func (l Latency) MarshalJSON() ([]byte, error) {
	bound := func(p int64) *int64 {
		if v, ok := l.Percentile(p); ok {
			return &v
		}
		return nil
	}
	return json.Marshal(struct {
		Answered int64  `json:"answered"`
		P50      *int64 `json:"p50_ms"`
		P95      *int64 `json:"p95_ms"`
	}{l.Answered(), bound(50), bound(95)})
}
