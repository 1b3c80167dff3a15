package browser_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestDashboardSaysWhyAnAttemptWasLate: a delivery's page says of each
// scheduled attempt that started a minute or more after it was due how
// late it was and what holds the endpoint's deliveries back (its limits,
// the receiver's slow-down), or, with none, a backlog or an ended pause.
// The page's own function is run in the page on deliveries made up to the
// minute: a real one twenty minutes late would take twenty minutes.
func TestDashboardSaysWhyAnAttemptWasLate(t *testing.T) {
	t.Parallel() // its own runtime and browser: nothing shared with the other tests
	sys := start(t)
	o := sys.owner(t)
	o.open("/")
	// late(d, eps)(attempt) for attempt i of d, as the page's text ("" for none).
	notes := func(d, eps string) []string {
		t.Helper()
		ctx, cancel := context.WithTimeout(o.tab, 10*time.Second)
		defer cancel()
		out, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`(async () => {
			const href = document.querySelector('link[rel=modulepreload][href*="/delivery.js"]').getAttribute('href');
			const { late } = await import(href);
			const d = %s;
			const say = late(d, %s);
			return d.attempts.map(a => { const n = say(a); return n ? n.textContent : ''; }).join('\n');
		})()`, d, eps), chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
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
