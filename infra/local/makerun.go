package local

import (
	"context"
	"fmt"
	"time"

	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/idempotency"
)

// MakeRunConfig is the configuration `make run` starts the runtime with,
// from its environment: WEBHOOK_RETRY_SCHEDULE is passed to the template
// parameter, BOTIX_LOCAL_MUTATION_DELAY holds every mutation after it took
// its key (to watch IDEMPOTENCY_KEY_IN_PROGRESS), and webhooks may target
// http:// and loopback receivers (never so in the template).
func MakeRunConfig(getenv func(string) string) (Config, error) {
	cfg := Config{
		Parameters: map[string]string{},
		Env:        map[string]string{app.EnvAllowLoopback: "true"},
	}
	if s := getenv("WEBHOOK_RETRY_SCHEDULE"); s != "" {
		cfg.Parameters["WebhookRetrySchedule"] = s
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
