package webhook

import (
	"context"
	"errors"
	"time"

	"github.com/botix/public-api/internal/metrics"
	"github.com/botix/public-api/internal/tracing"
)

// The bounds of a recovery. A security review found that ten recover
// calls over 20 dead deliveries made 280 POSTs: every call started its
// own recovery, each re-sent everything still failed (including what the
// previous one had just re-sent), and read the whole window at once.
const (
	// MaxRecoveryBatch is how many deliveries one step of a recovery
	// queues at most (the recover call takes the first step, continuations
	// the rest, paced: see RecoveryPace). 100 keeps a step to ten SQS
	// batches of the dispatcher and its step item to a few KB, and lets a
	// receiver that just came back take its backlog in bites it can see
	// coming, instead of every dead delivery of two weeks at once.
	MaxRecoveryBatch = 100
	// RecoveryPageSize is the Limit of each Query of the endpoint's
	// deliveries (counted before the failed ones are filtered).
	RecoveryPageSize = 100
	// MaxRecoveryPages bounds the Queries of one step: in a window of
	// mostly delivered deliveries a page yields few failed ones, and a
	// step stops after this many pages (1,000 deliveries read) whatever
	// it found, with HasMore.
	MaxRecoveryPages = 10
	// RecoveryCooldown is how long a delivery whose round a recovery
	// started is left alone by later recoveries: whatever is called, a
	// recovery sends a delivery at most once per cooldown (its fresh
	// round's own retries aside).
	RecoveryCooldown = 15 * time.Minute
	// RecoveryStall is how late a running recovery's next step may be
	// before a recover call takes it itself (its continuation was lost:
	// dead-lettered, or its endpoint was disabled meanwhile). Taking it
	// never queues a delivery twice: the step moves the version on, and
	// the late continuation, naming the old one, is dropped.
	RecoveryStall = 2 * time.Minute
)

// RecoveryStatus is where a recovery stands.
type RecoveryStatus string

// Recovery statuses.
const (
	// RecoveryRunning: the window is not read to its end; the recovery
	// continues by itself, step by step (a recover call meanwhile starts
	// no other).
	RecoveryRunning RecoveryStatus = "running"
	// RecoveryCompleted: every failed delivery of the window was queued or
	// skipped; the next recover call starts a new recovery.
	RecoveryCompleted RecoveryStatus = "completed"
)

// Recovery is the recovery of an endpoint's failed deliveries created in
// [Since, Until]. An endpoint has at most one running recovery: the
// Recoveries port keeps the latest one per endpoint, written on
// condition of its version.
type Recovery struct {
	ID, ProjectID, EndpointID string
	Since, Until              time.Time
	Status                    RecoveryStatus
	// Queued counts the deliveries queued by every step so far; Skipped
	// the failed ones left alone because a recovery re-queued them less
	// than RecoveryCooldown before.
	Queued, Skipped int
	// After is the position: the id of the last delivery read, where the
	// next step reads on ("" before the first page).
	After string
	// NextStepAt is when the next step is due (paced: RecoveryPace.Delay);
	// zero once completed.
	NextStepAt time.Time
	// Version counts the recovery writes of the endpoint (of every
	// recovery it had): each Save is conditioned on the previous one.
	Version   int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Recoverer runs recover calls and continuations: it starts an endpoint's
// one recovery and takes its steps, each queuing at most MaxRecoveryBatch
// deliveries.
type Recoverer struct {
	Deliveries Deliveries
	Recoveries Recoveries
	// NewID names a new recovery (rcv_<ulid>).
	NewID func(now time.Time) string
	// Pace paces the steps (DefaultRecoveryPace when zero).
	Pace RecoveryPace
}

// RecoveryCall is what one recover call (or continuation) did: the
// recovery as it stands after it, and how many deliveries it queued.
type RecoveryCall struct {
	Recovery
	Queued int
}

// HasMore reports whether the recovery's window is not read to its end:
// the recovery continues by itself, its next step due at NextStepAt.
func (c RecoveryCall) HasMore() bool { return c.Status == RecoveryRunning }

// Stalled reports whether r is running and its next step is more than
// RecoveryStall late at now.
func (r Recovery) Stalled(now time.Time) bool {
	return r.Status == RecoveryRunning && now.Sub(r.NextStepAt) > RecoveryStall
}

// Recover starts a recovery of the endpoint's failed deliveries created in
// [since, now] and takes its first step: at most MaxRecoveryBatch of them
// queued; the steps after it are the continuations' (see Continuer). A
// call while a recovery runs returns it as it stands (in its own window),
// unless it stalled: then the call takes its next step. A call that
// loses the race to save (another instance saved first) queues nothing
// and returns the recovery the other call saved.
func (rc *Recoverer) Recover(ctx context.Context, project string, ep Endpoint, since, now time.Time) (RecoveryCall, error) {
	cur, err := rc.Recoveries.Current(ctx, project, ep.ID)
	if err != nil {
		return RecoveryCall{}, err
	}
	switch {
	case cur != nil && cur.Status == RecoveryRunning && !cur.Stalled(now):
		return RecoveryCall{Recovery: *cur}, nil
	case cur != nil && cur.Status == RecoveryRunning:
		return rc.take(ctx, ep, *cur, now)
	}
	r := Recovery{ID: rc.NewID(now), ProjectID: project, EndpointID: ep.ID, Since: since, Until: now, Status: RecoveryRunning, CreatedAt: now}
	if cur != nil {
		r.Version = cur.Version
	}
	return rc.take(ctx, ep, r, now)
}

// take runs the next step of r (as last saved) at now and saves it, with
// when the step after it is due while the recovery still runs.
func (rc *Recoverer) take(ctx context.Context, ep Endpoint, r Recovery, now time.Time) (RecoveryCall, error) {
	r.Version++
	r.UpdatedAt = now
	msgs, err := rc.step(ctx, &r, now)
	if err != nil {
		return RecoveryCall{}, err
	}
	traceAll(msgs, tracing.Traceparent(ctx))
	r.NextStepAt = time.Time{}
	if r.Status == RecoveryRunning {
		rate, pausedUntil := flowOf(ep, now)
		r.NextStepAt = now.Add(rc.Pace.Delay(rate, pausedUntil, len(msgs), now))
	}
	switch err := rc.Recoveries.Save(ctx, r, msgs); {
	case errors.Is(err, ErrRecoveryRace):
		won, err := rc.Recoveries.Current(ctx, r.ProjectID, r.EndpointID)
		if err != nil {
			return RecoveryCall{}, err
		}
		if won == nil {
			return RecoveryCall{}, errors.New("webhook: a recovery race without a winner")
		}
		return RecoveryCall{Recovery: *won}, nil
	case err != nil:
		return RecoveryCall{}, err
	}
	metrics.Put(ctx, nil, metrics.Recoveries, float64(len(msgs)))
	return RecoveryCall{Recovery: r, Queued: len(msgs)}, nil
}

// Step is the delivery request a save of r writes with the redrives msgs:
// them and, while r runs, the continuation that asks for its next step;
// nil when there is neither (a completing step that queued nothing).
func (r Recovery) Step(msgs []Message) *DeliveryRequest {
	k := r.Continuation()
	if len(msgs) == 0 && k == nil {
		return nil
	}
	return &DeliveryRequest{ID: r.ID, ProjectID: r.ProjectID, Kind: RequestRecover, EndpointID: r.EndpointID, Messages: msgs, Continuation: k}
}

// step reads r's window on from its position, page by page, and returns
// the redrives of at most MaxRecoveryBatch failed deliveries, moving r's
// position, counts and status along.
func (rc *Recoverer) step(ctx context.Context, r *Recovery, now time.Time) ([]Message, error) {
	var msgs []Message
	for range MaxRecoveryPages {
		failed, last, err := rc.Deliveries.FailedPage(ctx, r.ProjectID, r.EndpointID, r.Since, r.Until, r.After, RecoveryPageSize)
		if err != nil {
			return nil, err
		}
		for i, d := range failed {
			if !d.RecoveredAt.IsZero() && now.Sub(d.RecoveredAt) < RecoveryCooldown {
				r.Skipped++
				continue
			}
			msgs = append(msgs, Message{DeliveryID: d.ID, ProjectID: d.ProjectID, RedriveOfRound: d.Round, RecoveryID: r.ID,
				EndpointID: d.EndpointID, EventType: d.EventType, Reason: "recovery " + r.ID})
			if len(msgs) == MaxRecoveryBatch {
				if i < len(failed)-1 || last != "" {
					r.Queued, r.After = r.Queued+len(msgs), d.ID
					return msgs, nil
				}
			}
		}
		if last == "" {
			r.Queued, r.Status = r.Queued+len(msgs), RecoveryCompleted
			return msgs, nil
		}
		r.After = last
	}
	r.Queued += len(msgs)
	return msgs, nil
}
