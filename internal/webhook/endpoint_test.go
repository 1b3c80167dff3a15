package webhook

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestEndpointInputValidation(t *testing.T) {
	s := func(v string) *string { return &v }
	n := func(v int) OptionalInt { return OptionalInt{Set: true, Value: &v} }
	null := OptionalInt{Set: true}
	url, all := s("https://example.com"), []string{"*"}
	yes := true
	cases := []struct {
		name   string
		in     EndpointInput
		create bool
		field  string
	}{
		{"create needs a url", EndpointInput{Events: []string{"*"}}, true, "url"},
		{"create needs events", EndpointInput{URL: s("https://example.com")}, true, "events"},
		{"an empty event list", EndpointInput{URL: s("https://example.com"), Events: []string{}}, true, "events"},
		{"an unknown event type", EndpointInput{URL: s("https://example.com"), Events: []string{"contact.deleted"}}, true, "events"},
		{"a type twice", EndpointInput{URL: s("https://example.com"), Events: []string{"message.sent", "message.sent"}}, true, "events"},
		{"* with another type", EndpointInput{URL: s("https://example.com"), Events: []string{"*", "message.sent"}}, true, "events"},
		{"a description of 501 characters", EndpointInput{URL: s("https://example.com"), Events: []string{"*"}, Description: s(strings.Repeat("я", 501))}, true, "description"},
		{"enabled is set with PATCH", EndpointInput{URL: s("https://example.com"), Events: []string{"*"}, Enabled: &yes}, true, "enabled"},
		{"an update that changes nothing", EndpointInput{}, false, "body"},
		{"a valid creation", EndpointInput{URL: s("https://example.com"), Events: []string{"contact.created", "webhook.test"}}, true, ""},
		{"a valid update", EndpointInput{Enabled: &yes}, false, ""},
		{"a rate limit of 0", EndpointInput{URL: url, Events: all, RateLimit: n(0)}, true, "rate_limit"},
		{"a rate limit past the bound", EndpointInput{URL: url, Events: all, RateLimit: n(MaxRateLimit + 1)}, true, "rate_limit"},
		{"a concurrency past the bound", EndpointInput{URL: url, Events: all, MaxConcurrency: n(MaxMaxConcurrency + 1)}, true, "max_concurrency"},
		{"a negative concurrency", EndpointInput{MaxConcurrency: n(-1)}, false, "max_concurrency"},
		{"both limits at their bounds", EndpointInput{URL: url, Events: all, RateLimit: n(MaxRateLimit), MaxConcurrency: n(1)}, true, ""},
		{"an update that only removes a limit", EndpointInput{RateLimit: null}, false, ""},
		{"an update that only sets a concurrency", EndpointInput{MaxConcurrency: n(4)}, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.in.Validate(c.create)
			if c.field == "" {
				if len(p) != 0 {
					t.Fatalf("problems %v", p)
				}
				return
			}
			if _, ok := p[c.field]; !ok || len(p) != 1 {
				t.Fatalf("problems %v, want one with %s", p, c.field)
			}
		})
	}
}

func TestSecretRotation(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	url := "https://example.com"
	ep := NewEndpoint(EndpointInput{URL: &url, Events: []string{"*"}}, "we_1", t0)
	first := ep.Secrets[0].Value
	if !ep.Enabled || len(ep.Secrets) != 1 || !strings.HasPrefix(first, SecretPrefix) {
		t.Fatalf("new endpoint %+v", ep)
	}
	t1 := t0.Add(time.Hour)
	second, secrets, ends := ep.Rotate(t1)
	ep.Secrets = secrets
	t.Run("the new secret signs first; the previous one until the overlap ends", func(t *testing.T) {
		if !ends.Equal(t1.Add(SecretOverlap)) || secrets[0].Value != second || second == first {
			t.Fatalf("rotation: %v %+v", ends, secrets)
		}
		if got := ep.ActiveSecrets(t1); len(got) != 2 || got[0] != second || got[1] != first {
			t.Fatalf("active at rotation %v", got)
		}
		if got := ep.ActiveSecrets(ends); len(got) != 1 || got[0] != second {
			t.Fatalf("active at the overlap's end %v", got)
		}
	})
	t2 := t1.Add(2 * time.Hour)
	third, secrets, _ := ep.Rotate(t2)
	ep.Secrets = secrets
	t.Run("a second rotation within the overlap keeps the first previous secret to its own end", func(t *testing.T) {
		if got := ep.ActiveSecrets(t2); len(got) != 3 || got[0] != third || got[1] != second || got[2] != first {
			t.Fatalf("active after two rotations %v", got)
		}
		if got := ep.ActiveSecrets(ends.Add(-time.Second)); len(got) != 3 {
			t.Fatalf("the first previous secret stopped early: %v", got)
		}
		if got := ep.ActiveSecrets(ends); len(got) != 2 || got[1] != second {
			t.Fatalf("after the first overlap %v", got)
		}
	})
	t.Run("a rotation after every overlap ended keeps only the current secret as previous", func(t *testing.T) {
		_, secrets, _ := ep.Rotate(t2.Add(48 * time.Hour))
		if len(secrets) != 2 || secrets[1].Value != third {
			t.Fatalf("secrets %+v", secrets)
		}
	})
}

func TestPatch(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	ep := Endpoint{ID: "we_1", URL: "https://a.example", Events: []string{"*"}, Enabled: false, DisabledReason: "the endpoint answered 410 Gone", ConsecutiveFailures: 7, FailingSince: "x"}
	yes, url := true, "https://b.example"
	got := ep.Patch(EndpointInput{URL: &url, Enabled: &yes}, t0)
	if got.URL != url || !got.Enabled || got.DisabledReason != "" || got.ConsecutiveFailures != 0 || got.FailingSince != "" || got.UpdatedAt == "" || got.Events[0] != "*" {
		t.Fatalf("patched %+v", got)
	}
	no := false
	if got := ep.Patch(EndpointInput{Enabled: &no}, t0); got.DisabledReason == "" {
		t.Fatal("disabling cleared the reason")
	}
	four, limited := 4, ep
	limited.RateLimit, limited.MaxConcurrency = 20, 2
	if got := limited.Patch(EndpointInput{RateLimit: OptionalInt{Set: true}, MaxConcurrency: OptionalInt{Set: true, Value: &four}}, t0); got.RateLimit != 0 || got.MaxConcurrency != 4 {
		t.Fatalf("limits patched to %d/s, %d in flight; want none, 4", got.RateLimit, got.MaxConcurrency)
	}
	if got := limited.Patch(EndpointInput{URL: &url}, t0); got.RateLimit != 20 || got.MaxConcurrency != 2 {
		t.Fatalf("a patch without the limits changed them: %d, %d", got.RateLimit, got.MaxConcurrency)
	}
}

func TestOptionalIntTellsAbsentFromNull(t *testing.T) {
	for _, tc := range []struct {
		body     string
		set, nil bool
		value    int
	}{
		{`{}`, false, true, 0},
		{`{"rate_limit": null}`, true, true, 0},
		{`{"rate_limit": 7}`, true, false, 7},
	} {
		var in EndpointInput
		if err := json.Unmarshal([]byte(tc.body), &in); err != nil {
			t.Fatal(err)
		}
		if in.RateLimit.Set != tc.set || (in.RateLimit.Value == nil) != tc.nil || in.RateLimit.Int() != tc.value {
			t.Errorf("%s: %+v", tc.body, in.RateLimit)
		}
	}
	var in EndpointInput
	if err := json.Unmarshal([]byte(`{"rate_limit": 2.5}`), &in); err != nil || in.Validate(false)["rate_limit"] == "" {
		t.Errorf("a fractional rate limit was taken: %v %+v", err, in.RateLimit)
	}
}

func TestARecoveryTakesTheEndpointsFlow(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		ep     Endpoint
		rate   float64
		paused time.Time
	}{
		{"no limit: no rate (the recovery's own pace applies)", Endpoint{}, 0, time.Time{}},
		{"the owner's rate limit", Endpoint{RateLimit: 5}, 5, time.Time{}},
		{"lowered by the receiver and paused", Endpoint{RateLimit: 50, Flow: Flow{R0: 8, Ceiling: 50, T0: now.Add(time.Minute).UnixMilli(), DecreasedAt: now.UnixMilli(), PausedUntil: now.Add(time.Minute).UnixMilli()}}, 8, now.Add(time.Minute)},
		{"a pause that ended", Endpoint{Flow: Flow{PausedUntil: now.Add(-time.Second).UnixMilli()}}, 0, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rate, paused := flowOf(tc.ep, now)
			if rate != tc.rate || !paused.Equal(tc.paused) {
				t.Fatalf("rate %.2f, paused until %s; want %.2f, %s", rate, paused, tc.rate, tc.paused)
			}
		})
	}
}

func TestEndpointCacheKeepsTheNewerView(t *testing.T) {
	var c endpointCache
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	c.put("prj", Endpoint{ID: "we_1", MaxConcurrency: 2, Leases: Leases{0: 1}}, t0.Add(time.Second))
	// A batch that began earlier keeps what it read then: not over the newer view.
	c.put("prj", Endpoint{ID: "we_1", MaxConcurrency: 2}, t0)
	if got, ok := c.get("prj", "we_1", t0.Add(time.Second)); !ok || len(got.Leases) != 1 {
		t.Fatalf("view %+v (%v): the older one replaced the newer", got, ok)
	}
	// A paced endpoint's view lives a second, a concurrency-only one's five.
	c.put("prj", Endpoint{ID: "we_2", RateLimit: 5}, t0)
	c.put("prj", Endpoint{ID: "we_3", MaxConcurrency: 5}, t0)
	if _, ok := c.get("prj", "we_2", t0.Add(limitedCacheTTL)); ok {
		t.Fatal("a paced endpoint's view outlived limitedCacheTTL")
	}
	if _, ok := c.get("prj", "we_3", t0.Add(endpointCacheTTL-time.Millisecond)); !ok {
		t.Fatal("a concurrency-only endpoint's view ended before endpointCacheTTL")
	}
}
