package webhook_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/webhook"
)

// TestEveryDeliveryEndsVisibly walks deliveries that their receivers keep
// from ending (throttled rounds, a pause that outlasts them) to their dead
// letter at the end of their lifetime.
func TestEveryDeliveryEndsVisibly(t *testing.T) {
	t.Run("days of 429s with a 2-hour Retry-After: dead within its lifetime, in the dead-letter queue, the endpoint's failure counted", func(t *testing.T) {
		p, ep := firstAttempt(t, answer(429, "7200"))
		created := p.clock()
		for handled := 0; p.only().Status != webhook.StatusDead; handled++ {
			sched := p.scheduler.All()
			if handled >= len(sched) || handled > 2*webhook.MaxThrottles {
				t.Fatalf("after %d retries: delivery %+v, %d schedules", handled, p.only(), len(sched))
			}
			next := sched[handled]
			p.advance(next.At.Sub(p.clock()))
			if d := p.deliverer.Handle(context.Background(), next.Message); !d.Done {
				t.Fatalf("retry %d: %+v", handled+1, d)
			}
		}
		got := p.only()
		log := p.attempts(got)
		dead := p.queue.Dead()
		if got.Attempts < 30 || got.LastErrorClass != "http_429" || !strings.Contains(got.DeadReason, "lifetime") || len(dead) != 1 || dead[0].RedriveOfRound != 1 {
			t.Fatalf("delivery %+v after %d attempts, dead letters %+v", got, len(log), dead)
		}
		for _, a := range log {
			if at, _ := time.Parse(time.RFC3339Nano, a.StartedAt); !at.Before(created.Add(webhook.DeliveryLifetime)) {
				t.Fatalf("attempt %d at %s, after the lifetime ended", a.Attempt, a.StartedAt)
			}
		}
		if last := p.scheduler.All(); !last[len(last)-1].At.Before(created.Add(webhook.DeliveryLifetime)) {
			t.Fatalf("a retry scheduled at %s, after the lifetime", last[len(last)-1].At)
		}
		if e, _ := p.endpoints.Get(context.Background(), project, ep.ID); e.ConsecutiveFailures != 1 {
			t.Fatalf("endpoint health %+v: the dead delivery is a failure", e)
		}
	})
	t.Run("a delivery held past its lifetime behind a receiver's pause: dead without a request, in the dead-letter queue", func(t *testing.T) {
		p := newPipeline(t)
		ep := p.endpoint(webhook.AllEvents)
		ep.Flow.PausedUntil, ep.Flow.Cause = p.clock().Add(10*24*time.Hour).UnixMilli(), "http_503"
		p.endpoints.Put(project, ep)
		p.dispatch(p.event(domain.EventContactCreated))
		m := p.queue.Sent()[0]
		for range 2 {
			// Deferred while its round lasts, then dead.
			if d := p.deliverer.HandleBatch(context.Background(), []webhook.Message{m}); !d[0].Done {
				t.Fatalf("disposition %+v", d)
			}
			later := p.queue.Deferred()
			if len(later) == 0 {
				break
			}
			m = later[len(later)-1].Message
			p.advance(webhook.DeliveryLifetime)
		}
		got := p.only()
		if got.Status != webhook.StatusDead || got.LastErrorClass != webhook.ClassExpired || len(p.poster.Posted()) != 0 || len(p.queue.Dead()) != 1 || len(p.queue.Deferred()) != 1 {
			t.Fatalf("delivery %+v, posted %d, dead letters %d, deferred %d", got, len(p.poster.Posted()), len(p.queue.Dead()), len(p.queue.Deferred()))
		}
	})
}
