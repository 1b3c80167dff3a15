package api

import (
	"context"
	"math"
	"time"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
)

// cooldown refuses a manual retry of a delivery retried by hand less than
// webhook.ManualRetryCooldown ago (429 RETRY_COOLDOWN, Retry-After: the
// rest of it), and otherwise adds the cooldown this retry starts to plan.
// The read answers with the time left; the plan's conditional write
// decides between retries that race past it (the loser waits a whole
// cooldown, an upper bound). A 429 is not an idempotent request's final
// answer: the same key, sent again after Retry-After, runs the retry.
func (d *Deliveries) cooldown(ctx context.Context, project, delivery string, plan *store.Plan) error {
	now := d.now()
	left, err := d.Store.RetryCooldown(ctx, project, delivery, now)
	if err != nil {
		return err
	}
	if left > 0 {
		return cooldownError(left)
	}
	return d.Store.AddRetryCooldown(plan, project, delivery, now, cooldownError(webhook.ManualRetryCooldown))
}

func cooldownError(left time.Duration) error {
	e := apierr.New(apierr.RetryCooldown, "this delivery was retried by hand less than %d s ago; retry after Retry-After seconds", int(webhook.ManualRetryCooldown.Seconds()))
	e.RetryAfter = int(math.Ceil(left.Seconds()))
	return e
}
