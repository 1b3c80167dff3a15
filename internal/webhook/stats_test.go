package webhook_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/botix/public-api/internal/webhook"
)

func TestStatsWindow(t *testing.T) {
	now := time.Date(2026, 11, 29, 19, 27, 3, 0, time.UTC)
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		name, granularity string
		since, until      time.Time
		from, to, end     string
		field             string
	}{
		{name: "defaults: the last 24 hours by hour", from: "2026-11-28T19:00:00Z", to: "2026-11-29T19:00:00Z", end: "2026-11-29T20:00:00Z"},
		{name: "day defaults to the last 14 days", granularity: "day", from: "2026-11-15T00:00:00Z", to: "2026-11-29T00:00:00Z", end: "2026-11-30T00:00:00Z"},
		{name: "an explicit window, floored to its buckets", since: at("2026-11-29T08:59:59Z"), until: at("2026-11-29T10:00:00Z"), from: "2026-11-29T08:00:00Z", to: "2026-11-29T10:00:00Z", end: "2026-11-29T11:00:00Z"},
		{name: "until in the future stops at now", since: at("2026-11-29T18:30:00Z"), until: at("2027-01-01T00:00:00Z"), from: "2026-11-29T18:00:00Z", to: "2026-11-29T19:00:00Z", end: "2026-11-29T20:00:00Z"},
		{name: "since before the counters' retention is cut to it", granularity: "day", since: at("2026-01-01T00:00:00Z"), from: "2026-11-14T00:00:00Z", to: "2026-11-29T00:00:00Z", end: "2026-11-30T00:00:00Z"},
		{name: "until == since is the bucket that holds it", since: at("2026-11-29T10:00:00Z"), until: at("2026-11-29T10:00:00Z"), from: "2026-11-29T10:00:00Z", to: "2026-11-29T10:00:00Z", end: "2026-11-29T11:00:00Z"},
		{name: "until before since", since: at("2026-11-29T10:00:00Z"), until: at("2026-11-29T09:59:59.999Z"), field: "until"},
		{name: "since after a default until", since: at("2026-12-01T00:00:00Z"), field: "until"},
		{name: "until before the counters' retention", until: at("2026-11-01T00:00:00Z"), field: "until"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, field, problem := webhook.NewStatsWindow(c.granularity, c.since, c.until, now)
			if field != c.field {
				t.Fatalf("field %q (%s), want %q", field, problem, c.field)
			}
			if c.field != "" {
				return
			}
			got := fmt.Sprint(w.From.Format(time.RFC3339), " ", w.To.Format(time.RFC3339), " ", w.End().Format(time.RFC3339))
			if want := c.from + " " + c.to + " " + c.end; got != want {
				t.Fatalf("window %s, want %s", got, want)
			}
		})
	}
}

func TestStatsBuckets(t *testing.T) {
	hour := func(d, h int) time.Time { return time.Date(2026, 11, d, h, 0, 0, 0, time.UTC) }
	hours := []webhook.HourCounts{
		{Hour: hour(27, 23), Counts: webhook.Counts{Delivered: 1}}, // before the window
		{Hour: hour(28, 0), Counts: webhook.Counts{Delivered: 2, Dead: 1, Deliveries: 2}},
		{Hour: hour(28, 23), Counts: webhook.Counts{Retrying: 4, Deliveries: 1}},
		{Hour: hour(29, 5), Counts: webhook.Counts{Delivered: 7}},
	}
	for _, c := range []struct {
		name string
		w    webhook.StatsWindow
		want string
	}{
		{"by day: every day of the window, the empty ones at zero", webhook.StatsWindow{Granularity: "day", From: hour(28, 0), To: hour(30, 0)},
			"[28:{2 4 1 3} 29:{7 0 0 0} 30:{0 0 0 0}]"},
		{"by hour: every hour, in order", webhook.StatsWindow{Granularity: "hour", From: hour(28, 22), To: hour(29, 1)},
			"[22:{0 0 0 0} 23:{0 4 0 1} 0:{0 0 0 0} 1:{0 0 0 0}]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, b := range c.w.Buckets(hours) {
				n := b.Start.Hour()
				if c.w.Granularity == "day" {
					n = b.Start.Day()
				}
				c := b.Counts
				got = append(got, fmt.Sprintf("%d:{%d %d %d %d}", n, c.Delivered, c.Retrying, c.Dead, c.Deliveries))
			}
			if fmt.Sprint(got) != c.want {
				t.Fatalf("buckets %v, want %s", got, c.want)
			}
		})
	}
}

// TestCountAttempt: an attempt counts as its outcome; only a delivery's
// first scheduled attempt counts the delivery too.
func TestCountAttempt(t *testing.T) {
	for _, c := range []struct {
		name string
		a    webhook.Attempt
		left webhook.Status
		want webhook.Counts
	}{
		{"first attempt, failed", webhook.Attempt{Attempt: 1, Kind: webhook.KindScheduled}, webhook.StatusRetrying, webhook.Counts{Retrying: 1, Deliveries: 1}},
		{"a retry that delivers", webhook.Attempt{Attempt: 4, Kind: webhook.KindScheduled}, webhook.StatusDelivered, webhook.Counts{Delivered: 1}},
		{"a redriven round's first attempt", webhook.Attempt{Attempt: 6, Round: 2, Kind: webhook.KindScheduled}, webhook.StatusDead, webhook.Counts{Dead: 1}},
		{"a manual retry", webhook.Attempt{Attempt: 1, Kind: webhook.KindManual}, webhook.StatusDelivered, webhook.Counts{Delivered: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := webhook.CountAttempt(c.a, c.left); got != c.want {
				t.Fatalf("%+v, want %+v", got, c.want)
			}
		})
	}
}

// TestLatency: answers count in the bucket of their response time; the
// percentiles are the bounds they fall under; nothing answered has none.
func TestLatency(t *testing.T) {
	of := func(ms ...int64) webhook.Latency {
		var l webhook.Latency
		for _, m := range ms {
			l[webhook.LatencyBucket(m)]++
		}
		return l
	}
	many := func(n int, ms int64) []int64 { return slices.Repeat([]int64{ms}, n) }
	for _, c := range []struct {
		name string
		l    webhook.Latency
		want string
	}{
		{"nothing answered", of(), `{"answered":0,"p50_ms":null,"p95_ms":null}`},
		{"one fast answer", of(40), `{"answered":1,"p50_ms":50,"p95_ms":50}`},
		{"a bound counts in its own bucket", of(50, 100, 250), `{"answered":3,"p50_ms":100,"p95_ms":250}`},
		{"95 fast answers and 5 slow: p95 is still fast", of(append(many(95, 40), many(5, 4000)...)...), `{"answered":100,"p50_ms":50,"p95_ms":50}`},
		{"94 fast answers and 6 slow: p95 is slow", of(append(many(94, 40), many(6, 4000)...)...), `{"answered":100,"p50_ms":50,"p95_ms":5000}`},
		{"a 4 s receiver and a 40 ms one differ", of(many(10, 4000)...), `{"answered":10,"p50_ms":5000,"p95_ms":5000}`},
		{"beyond the last bound: the last bucket", of(90000), `{"answered":1,"p50_ms":60000,"p95_ms":60000}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := json.Marshal(c.l)
			if err != nil || string(got) != c.want {
				t.Fatalf("%s (%v), want %s", got, err, c.want)
			}
		})
	}
	t.Run("an answered attempt counts its time; a timeout does not", func(t *testing.T) {
		answered := webhook.CountAttempt(webhook.Attempt{Attempt: 1, StatusCode: 200, DurationMs: 300}, webhook.StatusDelivered)
		if answered.Latency != of(300) {
			t.Fatalf("%v", answered.Latency)
		}
		timeout := webhook.CountAttempt(webhook.Attempt{Attempt: 1, DurationMs: 30000, ErrorClass: webhook.ClassReadTimeout}, webhook.StatusRetrying)
		if timeout.Latency.Answered() != 0 {
			t.Fatalf("a timeout counted: %v", timeout.Latency)
		}
		if sum := answered.Add(answered); sum.Latency.Answered() != 2 {
			t.Fatalf("Add: %v", sum.Latency)
		}
	})
}
