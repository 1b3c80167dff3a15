package webhook

import (
	"context"
	"errors"
	"time"
)

// The bounds of a recovery. A security review found that ten recover
// calls over 20 dead deliveries made 280 POSTs: every call started its
// own recovery, each re-sent everything still failed (including what the
// previous one had just re-sent), and read the whole window at once.
const (
	// MaxRecoveryBatch is how many deliveries one recover call queues at
	// most; the rest waits for the next call (HasMore). 100 keeps a call
	// to ten SQS batches of the dispatcher and its step item to a few KB,
	// and lets a receiver that just came back take its backlog in bites
	// it can see coming, instead of every dead delivery of two weeks at
	// once.
	MaxRecoveryBatch = 100
	// RecoveryPageSize is the Limit of each Query of the endpoint's
	// deliveries (counted before the failed ones are filtered).
	RecoveryPageSize = 100
	// MaxRecoveryPages bounds the Queries of one call: in a window of
	// mostly delivered deliveries a page yields few failed ones, and a
	// call stops after this many pages (1,000 deliveries read) whatever
	// it found, with HasMore.
	MaxRecoveryPages = 10
	// RecoveryCooldown is how long a delivery whose round a recovery
	// started is left alone by later recoveries: whatever is called, a
	// recovery sends a delivery at most once per cooldown (its fresh
	// round's own retries aside).
	RecoveryCooldown = 15 * time.Minute
)

// RecoveryStatus is where a recovery stands.
type RecoveryStatus string

// Recovery statuses.
const (
	// RecoveryRunning: the window is not read to its end; the next recover
	// call of the endpoint continues it (and starts no other).
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
	// Queued counts the deliveries queued by every call so far; Skipped
	// the failed ones left alone because a recovery re-queued them less
	// than RecoveryCooldown before.
	Queued, Skipped int
	// After is the position: the id of the last delivery read, where the
	// next call reads on ("" before the first page).
	After string
	// Version counts the recovery writes of the endpoint (of every
	// recovery it had): each Save is conditioned on the previous one.
	Version   int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Recoveries is where the endpoints' recoveries are kept.
type Recoveries interface {
	// Current returns the latest recovery of an endpoint (running or
	// completed), read strongly consistently; nil when it never had one.
	Current(ctx context.Context, project, endpointID string) (*Recovery, error)
	// Save stores r as the endpoint's latest recovery, together with a
	// step that queues the redrives msgs (none when empty), in one atomic
	// write conditioned on the stored version being r.Version-1 (no
	// recovery at all when r.Version is 1). It returns ErrRecoveryRace
	// when the condition fails: another call wrote first.
	Save(ctx context.Context, r Recovery, msgs []Message) error
}

// ErrRecoveryRace reports that another recover call of the endpoint
// saved its recovery first.
var ErrRecoveryRace = errors.New("webhook: another recover call of the endpoint won")

// Recoverer runs recover calls: it starts or continues an endpoint's one
// recovery and queues at most MaxRecoveryBatch deliveries per call.
type Recoverer struct {
	Deliveries Deliveries
	Recoveries Recoveries
	// NewID names a new recovery (rcv_<ulid>).
	NewID func(now time.Time) string
}

// RecoveryCall is what one recover call did: the recovery as it stands
// after it, and how many deliveries this call queued.
type RecoveryCall struct {
	Recovery
	Queued int
}

// HasMore reports whether the recovery's window is not read to its end.
func (c RecoveryCall) HasMore() bool { return c.Status == RecoveryRunning }

// Recover starts a recovery of the endpoint's failed deliveries created in
// [since, now], or continues the running one (in its own window: a
// second call while a recovery runs returns that recovery, moved on by
// this call), and queues at most MaxRecoveryBatch of them. A call that
// loses the race to save (another instance saved first) queues nothing
// and returns the recovery the other call saved.
func (rc *Recoverer) Recover(ctx context.Context, project, endpointID string, since, now time.Time) (RecoveryCall, error) {
	cur, err := rc.Recoveries.Current(ctx, project, endpointID)
	if err != nil {
		return RecoveryCall{}, err
	}
	var r Recovery
	switch {
	case cur != nil && cur.Status == RecoveryRunning:
		r = *cur
	default:
		r = Recovery{ID: rc.NewID(now), ProjectID: project, EndpointID: endpointID, Since: since, Until: now, Status: RecoveryRunning, CreatedAt: now}
		if cur != nil {
			r.Version = cur.Version
		}
	}
	r.Version++
	r.UpdatedAt = now
	msgs, err := rc.step(ctx, &r, now)
	if err != nil {
		return RecoveryCall{}, err
	}
	switch err := rc.Recoveries.Save(ctx, r, msgs); {
	case errors.Is(err, ErrRecoveryRace):
		won, err := rc.Recoveries.Current(ctx, project, endpointID)
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
	return RecoveryCall{Recovery: r, Queued: len(msgs)}, nil
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
