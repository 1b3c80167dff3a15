package browser_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestDashboardSaysWhyDeliveriesWait: a delivery's page says of each
// scheduled attempt that started a minute or more after it was due how
// late it was and what holds the endpoint's deliveries back (its limits,
// the receiver's slow-down), or, with none, a backlog or an ended pause;
// the overview says of an endpoint's backlog when it drains at the pace of
// the last hours, and how fast its receiver answers. The pages' own
// functions are run in the page on data made up to the minute: a real
// attempt twenty minutes late would take twenty minutes, a real pace hours.
func TestDashboardSaysWhyDeliveriesWait(t *testing.T) {
	t.Parallel() // its own runtime and browser: nothing shared with the other tests
	sys := start(t)
	o := sys.owner(t)
	o.open("/")
	t.Run("the late attempt", func(t *testing.T) { lateAttempts(t, o) })
	t.Run("the backlog's pace", func(t *testing.T) { backlogPace(t, o) })
	t.Run("the response time", func(t *testing.T) {
		for _, c := range []struct{ name, totals, want string }{
			{"stats that could not be read", "null", "—"},
			{"nothing answered", "{ latency: { answered: 0, p50_ms: null, p95_ms: null } }", "no answers"},
			{"milliseconds and seconds", "{ latency: { answered: 12, p50_ms: 100, p95_ms: 2500 } }", "p50 ≤ 100 msp95 ≤ 2.5 s12 answers"},
			{"one answer", "{ latency: { answered: 1, p50_ms: 50, p95_ms: 50 } }", "p50 ≤ 50 msp95 ≤ 50 ms1 answer"},
		} {
			t.Run(c.name, func(t *testing.T) {
				if got := pageFunction(t, o, "overview.js", "responseTime", c.totals); got != c.want {
					t.Fatalf("the cell says %q; want %q", got, c.want)
				}
			})
		}
	})
}

// inPage imports the page's module (as the page loads it) and returns the
// string that body, JavaScript that names the module m, returns.
func inPage(t *testing.T, o *owner, module, body string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(o.tab, 10*time.Second)
	defer cancel()
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`(async () => {
		const href = document.querySelector('link[rel=modulepreload][href*="/%s"]').getAttribute('href');
		const m = await import(href);
		%s
	})()`, module, body), chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pageFunction runs the page module's exported function on arguments (as
// JavaScript) and returns the text of what it shows.
func pageFunction(t *testing.T, o *owner, module, function, args string) string {
	t.Helper()
	return inPage(t, o, module, fmt.Sprintf(`const shown = [m.%s(%s)].flat();
		return shown.map(n => (typeof n === 'string' ? n : n.textContent)).join('');`, function, args))
}

// backlogPace: the overview's Waiting cell for backlogs and hour buckets
// made up relative to now.
func backlogPace(t *testing.T, o *owner) {
	// bucket is an hour bucket that started h hours ago with n delivered.
	bucket := func(h float64, n int) string {
		return fmt.Sprintf(`{ start: new Date(Date.now() - %g * 3600e3).toISOString(), delivered: %d }`, h, n)
	}
	stats := func(buckets ...string) string { return `{ buckets: [` + strings.Join(buckets, ",") + `] }` }
	backlog := func(n int) string {
		return fmt.Sprintf(`{ n: %d, oldest: new Date(Date.now() - 600e3).toISOString() }`, n)
	}
	cases := []struct {
		name, b, capped, stats string
		want                   string
	}{
		{"no backlog", "undefined", "false", stats(), "none"},
		{"60 delivered in the last hour, 30 waiting: about half an hour",
			backlog(30), "false", stats(bucket(1, 60)), "30 waiting, oldest from 10 min agodrains in about 30 min at the last hours' pace"},
		{"60 delivered in the buckets of the last 90 minutes, 120 waiting: about 3 h",
			backlog(120), "false", stats(bucket(1.5, 30), bucket(0.5, 30)), "drains in about 3 h"},
		{"none delivered in the last hours: not draining",
			backlog(5), "false", stats(bucket(1, 0)), "5 waiting, oldest from 10 min agonot draining: none delivered in the last hours"},
		{"what was delivered more than two hours ago is no pace",
			backlog(5), "false", stats(bucket(3, 500)), "not draining"},
		{"beyond the pages read, the count says so", backlog(1000), "true", stats(bucket(1, 10)), "1000+ waiting"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := pageFunction(t, o, "overview.js", "waiting", c.b+", "+c.capped+", "+c.stats)
			if !strings.Contains(got, c.want) {
				t.Fatalf("the cell says %q; want %q", got, c.want)
			}
		})
	}
}

// lateAttempts: the delivery page's note on late attempts.
func lateAttempts(t *testing.T, o *owner) {
	// late(d, eps)(attempt) for attempt i of d, as the page's text ("" for none).
	notes := func(d, eps string) []string {
		t.Helper()
		out := inPage(t, o, "delivery.js", fmt.Sprintf(`const d = %s;
			const say = m.late(d, %s);
			return d.attempts.map(a => { const n = say(a); return n ? n.textContent : ''; }).join('\n');`, d, eps))
		return strings.Split(out, "\n")
	}
	delivery := func(attempts ...string) string {
		return `{ endpoint_id: 'we_1', created_at: '2026-12-01T09:00:00Z', attempts: [` + strings.Join(attempts, ",") + `] }`
	}
	attempt := func(n, round int, kind, started, next string) string {
		a := fmt.Sprintf(`{ attempt: %d, round: %d, kind: '%s', started_at: '%s'`, n, round, kind, started)
		if next != "" {
			a += `, next_attempt_at: '` + next + `'`
		}
		return a + ` }`
	}
	limited := `[{ id: 'we_1', rate_limit: 2, max_concurrency: 4, throttle: { paused_until: '2026-12-01T10:00:00Z', throttled_by: 'http_429' } }]`

	cases := []struct {
		name      string
		d, eps    string
		want      []string // a substring of each attempt's note ("" for none)
		forbidden string
	}{
		{"a first attempt 20 minutes after its delivery: late, with the endpoint's limits and pause",
			delivery(attempt(1, 1, "scheduled", "2026-12-01T09:20:00Z", "")), limited,
			[]string{"Started 20 min after it was due"}, ""},
		{"the causes named", delivery(attempt(1, 1, "scheduled", "2026-12-01T09:20:00Z", "")), limited,
			[]string{"paused it (http_429)"}, ""},
		{"a first attempt 10 s after its delivery: nothing said",
			delivery(attempt(1, 1, "scheduled", "2026-12-01T09:00:10Z", "")), limited, []string{""}, ""},
		{"a retry 2 hours after the time its predecessor set: late",
			delivery(attempt(1, 1, "scheduled", "2026-12-01T09:00:01Z", "2026-12-01T09:01:00Z"), attempt(2, 1, "scheduled", "2026-12-01T11:01:00Z", "")), limited,
			[]string{"", "Started 2 h after it was due"}, ""},
		{"no limits and no slow-down: a backlog or an ended pause",
			delivery(attempt(1, 1, "scheduled", "2026-12-01T09:05:00Z", "")), `[{ id: 'we_1' }]`,
			[]string{"a backlog"}, "rate limit"},
		{"a manual attempt has no due time",
			delivery(attempt(1, 1, "manual", "2026-12-03T09:00:00Z", "")), limited, []string{""}, ""},
		{"a redriven round's first attempt has no due time; its retry's is the time the first set",
			delivery(attempt(1, 1, "scheduled", "2026-12-01T09:00:01Z", ""), attempt(1, 2, "redrive", "2026-12-02T09:00:00Z", "2026-12-02T09:01:00Z"), attempt(2, 2, "scheduled", "2026-12-02T09:31:00Z", "")), limited,
			[]string{"", "", "Started 30 min after it was due"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := notes(c.d, c.eps)
			if len(got) != len(c.want) {
				t.Fatalf("%d notes %q; want %d", len(got), got, len(c.want))
			}
			for i, w := range c.want {
				if (w == "") != (got[i] == "") || !strings.Contains(got[i], w) {
					t.Fatalf("attempt %d: %q; want %q", i+1, got[i], w)
				}
				if c.forbidden != "" && strings.Contains(got[i], c.forbidden) {
					t.Fatalf("attempt %d: %q names %q", i+1, got[i], c.forbidden)
				}
			}
		})
	}
}
