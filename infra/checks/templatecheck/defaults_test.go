package templatecheck_test

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/botix/public-api/internal/pagination"
	"github.com/botix/public-api/internal/webhook"
)

// TestTemplateDefaultsAreTheCodesDefaults: each policy is declared once, in
// code; the template's parameter defaults (what a deploy gets unless told
// otherwise) must say the same.
func TestTemplateDefaultsAreTheCodesDefaults(t *testing.T) {
	tpl, _ := load(t)
	duration := func(s string) any { d, err := time.ParseDuration(s); return errOr(d, err) }
	date := func(s string) any { d, err := time.Parse(time.RFC3339, s); return errOr(d, err) }
	o := pagination.DefaultOffset
	cases := []struct {
		param string
		parse func(string) any
		code  any
	}{
		{"WebhookRetrySchedule", func(s string) any { d, err := webhook.ParseSchedule(s); return errOr(d, err) }, webhook.DefaultSchedule},
		{"WebhookConnectTimeout", duration, webhook.DefaultConnectTimeout},
		{"WebhookReadTimeout", duration, webhook.DefaultReadTimeout},
		{"WebhookAutoDisableAfter", duration, webhook.DefaultAutoDisableAfter},
		{"WebhookRecoveryPace", func(s string) any { p, err := strconv.ParseFloat(s, 64); return errOr(webhook.RecoveryPace(p), err) }, webhook.RecoveryPace(webhook.DefaultRecoveryPace)},
		{"OffsetMax", func(s string) any { n, err := strconv.Atoi(s); return errOr(n, err) }, o.Max},
		{"OffsetTimeBudget", duration, o.TimeBudget},
		{"OffsetDeprecatedAt", date, o.DeprecatedAt},
		{"OffsetSunsetAt", date, o.SunsetAt},
		{"OffsetDocsUrl", func(s string) any { return s }, o.DocsURL},
	}
	for _, c := range cases {
		t.Run(c.param, func(t *testing.T) {
			p, ok := tpl.Parameters[c.param]
			if !ok {
				t.Fatalf("template.yaml has no parameter %s", c.param)
			}
			got := c.parse(fmt.Sprint(p["Default"]))
			if !equal(got, c.code) {
				t.Fatalf("template default %v, the code's %v", got, c.code)
			}
		})
	}
}

func errOr[T any](v T, err error) any {
	if err != nil {
		return err
	}
	return v
}

func equal(a, b any) bool {
	switch x := a.(type) {
	case []time.Duration:
		y, ok := b.([]time.Duration)
		return ok && slices.Equal(x, y)
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	}
	return a == b
}
