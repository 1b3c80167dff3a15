package webhook_test

import (
	"testing"
	"time"

	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
)

func TestEndpointHealth(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) string { return ids.Timestamp(now.Add(d)) }
	base := webhook.Endpoint{ID: "we_1", Enabled: true, CreatedAt: at(-time.Hour), UpdatedAt: at(-time.Hour)}
	failing := base
	failing.ConsecutiveFailures, failing.FailingSince, failing.LastFailureAt = 4, at(-10*time.Minute), at(-time.Minute)
	paused := failing
	paused.Flow = webhook.Flow{PausedUntil: now.Add(30 * time.Second).UnixMilli(), DecreasedAt: now.Add(-5 * time.Second).UnixMilli(), Cause: "http_429"}
	pauseOver := paused
	pauseOver.Flow.PausedUntil = now.Add(-time.Second).UnixMilli()
	gone := failing
	gone.Enabled, gone.DisabledReason, gone.DisabledAt = false, "the endpoint answered 410 Gone", at(-time.Minute)
	byHand := base
	byHand.Enabled, byHand.UpdatedAt = false, at(-2*time.Minute)
	recovered := base
	recovered.LastFailureAt, recovered.LastSuccessAt = at(-time.Minute), at(-time.Second)
	for _, c := range []struct {
		name  string
		ep    webhook.Endpoint
		class string
		want  webhook.Health
	}{
		{"never failed → healthy", base, "", webhook.Health{State: webhook.HealthHealthy}},
		{"failed, then succeeded → healthy, the old failure forgotten", recovered, "http_503", webhook.Health{State: webhook.HealthHealthy}},
		{"last attempt failed → failing since the streak began, with the last class", failing, "http_403",
			webhook.Health{State: webhook.HealthFailing, Cause: "http_403", Since: failing.FailingSince, FailedAttempts: 4}},
		{"receiver's Retry-After running → paused, by its answer, until its end", paused, "http_503",
			webhook.Health{State: webhook.HealthPaused, Cause: "http_429", Since: at(-5 * time.Second), Until: at(30 * time.Second), FailedAttempts: 4}},
		{"pause over, still failing → failing", pauseOver, "http_429",
			webhook.Health{State: webhook.HealthFailing, Cause: "http_429", Since: failing.FailingSince, FailedAttempts: 4}},
		{"disabled after failures → disabled with reason, cause and when", gone, "http_410",
			webhook.Health{State: webhook.HealthDisabled, Cause: "http_410", Since: at(-time.Minute), Reason: "the endpoint answered 410 Gone", FailedAttempts: 4}},
		{"disabled by hand → disabled, said so, since its update", byHand, "",
			webhook.Health{State: webhook.HealthDisabled, Since: at(-2 * time.Minute), Reason: webhook.DisabledManually}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := webhook.EndpointHealth(c.ep, c.class, now); got != c.want {
				t.Fatalf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestPatchRecordsWhenAnEndpointWasDisabled(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	off, on := false, true
	ep := webhook.Endpoint{ID: "we_1", Enabled: true, ConsecutiveFailures: 2, FailingSince: ids.Timestamp(now)}
	ep = ep.Patch(webhook.EndpointInput{Enabled: &off}, now)
	if ep.DisabledAt != ids.Timestamp(now) {
		t.Fatalf("disabled at %q", ep.DisabledAt)
	}
	if again := ep.Patch(webhook.EndpointInput{Enabled: &off}, now.Add(time.Hour)); again.DisabledAt != ep.DisabledAt {
		t.Fatalf("a second disable moved disabled_at to %q", again.DisabledAt)
	}
	if ep = ep.Patch(webhook.EndpointInput{Enabled: &on}, now); ep.DisabledAt != "" || ep.ConsecutiveFailures != 0 {
		t.Fatalf("enabled %+v", ep)
	}
}
