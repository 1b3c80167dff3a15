package webhook

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"time"

	"github.com/botix/public-api/internal/clock"
)

// DefaultRecoveryPace is the pace of a recovery to an endpoint without a
// rate limit, in deliveries per second: a step of MaxRecoveryBatch
// deliveries every 10 seconds, 10,000 dead deliveries in about 17
// minutes. The template's WebhookRecoveryPace sets it per deployment.
const DefaultRecoveryPace = 10

// RecoveryPace is the deliveries per second a recovery sends to an
// endpoint without a rate limit of its own (DefaultRecoveryPace when 0).
type RecoveryPace float64

// Delay is how long after a step of step deliveries, taken at now, the
// next step of a recovery waits: as long as the endpoint takes to receive
// the step at its rate limit (rate deliveries per second; the pace p when
// it has none), counted from the end of the pause while the receiver
// paused the endpoint (Retry-After) until pausedUntil. A step that queued
// nothing is followed at once (or when the pause ends).
func (p RecoveryPace) Delay(rate float64, pausedUntil time.Time, step int, now time.Time) time.Duration {
	if rate <= 0 {
		rate = float64(p)
	}
	if rate <= 0 {
		rate = DefaultRecoveryPace
	}
	var wait time.Duration
	if pausedUntil.After(now) {
		wait = pausedUntil.Sub(now)
	}
	return wait + time.Duration(math.Ceil(float64(step)/rate*float64(time.Second)))
}

// flowOf is what the pace of an endpoint's recovery depends on at now: the
// rate it is sent to (its rate limit, or lower while the receiver asked to
// slow down; 0 for none) and the end of the pause its receiver asked for.
func flowOf(ep Endpoint, now time.Time) (rate float64, pausedUntil time.Time) {
	if ep.Flow.PausedUntil > now.UnixMilli() {
		pausedUntil = time.UnixMilli(ep.Flow.PausedUntil)
	}
	return ep.Pace(now), pausedUntil
}

// Continuation asks for the next step of a running recovery. The
// dispatcher puts it on the delivery queue after the step before it,
// delayed to At; it names the recovery's version that step saved, so that
// it acts only while that step is the recovery's last: a continuation
// handled twice, or one overtaken by a recover call that took the step
// itself, finds the version moved on and does nothing.
type Continuation struct {
	RecoveryID string `json:"recovery_id"`
	EndpointID string `json:"endpoint_id"`
	Version    int    `json:"version"`
	// At is when the step is due (Recovery.NextStepAt).
	At time.Time `json:"at"`
}

// Continuation is the continuation that asks for r's next step; nil when
// r is not running.
func (r Recovery) Continuation() *Continuation {
	if r.Status != RecoveryRunning {
		return nil
	}
	return &Continuation{RecoveryID: r.ID, EndpointID: r.EndpointID, Version: r.Version, At: r.NextStepAt}
}

// ContinueVerdict is what a continuation does.
type ContinueVerdict int

// Continue verdicts.
const (
	// ContinueStale: the recovery is not at the step the continuation
	// follows (completed, replaced, moved on, or gone): drop it.
	ContinueStale ContinueVerdict = iota + 1
	// ContinueWait: the step is not due yet; see the message again later.
	ContinueWait
	// ContinueStep: take the step now.
	ContinueStep
)

// Next says what k does with the endpoint's recovery cur (nil: none) at
// now, while the endpoint is paused until pausedUntil: the step is due at
// k.At and not before the pause ends; wait is how long to wait for it.
func (k Continuation) Next(cur *Recovery, pausedUntil, now time.Time) (v ContinueVerdict, wait time.Duration) {
	if cur == nil || cur.ID != k.RecoveryID || cur.Status != RecoveryRunning || cur.Version != k.Version {
		return ContinueStale, 0
	}
	due := cur.NextStepAt
	if pausedUntil.After(due) {
		due = pausedUntil
	}
	if now.Before(due) {
		return ContinueWait, due.Sub(now)
	}
	return ContinueStep, 0
}

// Continuer takes the steps continuation messages ask for: the deliver
// function routes them here (Route) and every other message on.
type Continuer struct {
	Recoverer *Recoverer
	Endpoints Endpoints
	Log       *slog.Logger
	Now       func() time.Time
}

// Route returns a batch handler that gives continuations to c and every
// other message of the batch, together, to next (the Deliverer's
// HandleBatch).
func (c *Continuer) Route(next BatchHandler) BatchHandler {
	return Route(func(m Message) bool { return m.Continuation != nil }, c.Handle, next)
}

// BatchHandler handles a batch of the delivery queue: one disposition per
// message.
type BatchHandler = func(context.Context, []Message) []Disposition

// Route returns a batch handler that gives each message mine picks to
// handle, one by one, and every other message of the batch, together, to
// next: the messages of their own (continuations, parked outbox records)
// beside the deliveries.
func Route(mine func(Message) bool, handle func(context.Context, Message) Disposition, next BatchHandler) BatchHandler {
	return func(ctx context.Context, msgs []Message) []Disposition {
		out := make([]Disposition, len(msgs))
		var rest []Message
		var at []int
		for i, m := range msgs {
			if mine(m) {
				out[i] = handle(ctx, m)
				continue
			}
			rest, at = append(rest, m), append(at, i)
		}
		if len(rest) > 0 {
			for k, d := range next(ctx, rest) {
				out[at[k]] = d
			}
		}
		return out
	}
}

// Handle runs one continuation: the next step of its recovery when it is
// due (Continuation.Next), saved as a recover call's step is (the
// redrives, and the continuation after it while the window has more). A
// failed read or save leaves the message to the queue; the version
// condition makes the retry, or a duplicate, queue nothing twice. The
// recovery of an endpoint deleted or disabled meanwhile stops here: a
// recover call once it is enabled again resumes it (Recovery.Stalled).
func (c *Continuer) Handle(ctx context.Context, m Message) Disposition {
	k := *m.Continuation
	now := c.now()
	cur, err := c.Recoverer.Recoveries.Current(ctx, m.ProjectID, k.EndpointID)
	if err != nil {
		c.Log.ErrorContext(ctx, "recovery not read; the queue will retry its continuation", "recovery_id", k.RecoveryID, "error", err.Error())
		return failed
	}
	if v, _ := k.Next(cur, time.Time{}, now); v == ContinueStale {
		return done
	}
	ep, err := c.Endpoints.Get(ctx, m.ProjectID, k.EndpointID)
	switch {
	case errors.Is(err, ErrEndpointNotFound):
		return done
	case err != nil:
		c.Log.ErrorContext(ctx, "endpoint not read; the queue will retry the continuation", "recovery_id", k.RecoveryID, "error", err.Error())
		return failed
	case !ep.Enabled:
		c.Log.InfoContext(ctx, "recovery stopped: its endpoint is disabled; a recover call resumes it", "recovery_id", k.RecoveryID)
		return done
	}
	_, pausedUntil := flowOf(ep, now)
	switch v, wait := k.Next(cur, pausedUntil, now); v {
	case ContinueStale:
		return done
	case ContinueWait:
		return Disposition{RetryIn: wait}
	}
	if _, err := c.Recoverer.take(ctx, ep, *cur, now); err != nil {
		c.Log.ErrorContext(ctx, "recovery step failed; the queue will retry its continuation", "recovery_id", k.RecoveryID, "error", err.Error())
		return failed
	}
	return done
}

func (c *Continuer) now() time.Time {
	return clock.Or(c.Now)()
}
