package local

import (
	"context"
	"fmt"
	"time"

	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/idempotency"
)

// Knobs are the environment variables `make run` passes to template
// parameters, so that a tester can shorten what takes minutes in AWS.
var Knobs = map[string]string{
	"WEBHOOK_RETRY_SCHEDULE":     "WebhookRetrySchedule",
	"WEBHOOK_CONNECT_TIMEOUT":    "WebhookConnectTimeout",
	"WEBHOOK_READ_TIMEOUT":       "WebhookReadTimeout",
	"WEBHOOK_AUTO_DISABLE_AFTER": "WebhookAutoDisableAfter",
	"WEBHOOK_RECOVERY_PACE":      "WebhookRecoveryPace",
	"API_THROTTLING_RATE_LIMIT":  "ApiThrottlingRateLimit",
	"API_THROTTLING_BURST_LIMIT": "ApiThrottlingBurstLimit",
}

// MakeRunConfig is the configuration `make run` starts the runtime with,
// from its environment: the Knobs set template parameters,
// BOTIX_LOCAL_MUTATION_DELAY holds every mutation after it took its key
// (to watch IDEMPOTENCY_KEY_IN_PROGRESS), and webhooks may target http://
// and loopback receivers (never so in the template).
func MakeRunConfig(getenv func(string) string) (Config, error) {
	cfg := Config{
		Parameters: map[string]string{},
		Env:        map[string]string{app.EnvAllowLoopback: "true"},
	}
	for env, param := range Knobs {
		if v := getenv(env); v != "" {
			cfg.Parameters[param] = v
		}
	}
	if d := getenv("BOTIX_LOCAL_MUTATION_DELAY"); d != "" {
		delay, err := time.ParseDuration(d)
		if err != nil {
			return Config{}, fmt.Errorf("BOTIX_LOCAL_MUTATION_DELAY: %w", err)
		}
		cfg.Options = append(cfg.Options, app.WithMutationHooks(idempotency.Hooks{AfterCapture: func(ctx context.Context) error {
			select {
			case <-time.After(delay):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}}))
	}
	return cfg, nil
}
