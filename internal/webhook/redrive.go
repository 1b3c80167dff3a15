package webhook

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/botix/public-api/internal/apierr"
)

// RedriveInput is the redrive function's payload; every filter is
// optional.
type RedriveInput struct {
	ProjectID  string `json:"project_id,omitempty"`
	EndpointID string `json:"endpoint_id,omitempty"`
	EventType  string `json:"event_type,omitempty"`
	// Max bounds how many messages are moved (default DefaultRedriveMax).
	Max int `json:"max,omitempty"`
}

// DefaultRedriveMax is how many dead letters one redrive moves at most
// unless told otherwise.
const DefaultRedriveMax = 1000

// RedriveOutput reports what a redrive did.
type RedriveOutput struct {
	// Moved messages went back to the delivery queue: each starts a fresh
	// round of attempts.
	Moved int `json:"moved"`
	// SkippedDelivered were dead letters of deliveries that were delivered
	// meanwhile (a manual retry): deleted, not resent.
	SkippedDelivered int `json:"skipped_delivered"`
	// SkippedFilter did not match the filters and stay in the queue.
	SkippedFilter int `json:"skipped_filter"`
}

// Redriver moves dead letters back to the delivery queue.
type Redriver struct {
	DeadLetters DeadLetters
	Deliveries  Deliveries
	Log         *slog.Logger
}

// redriveHold keeps examined, non-matching dead letters hidden during a run
// so that each is examined once; they are released at the end.
const redriveHold = 5 * time.Minute

// Redrive moves the dead letters that match in back to the delivery queue,
// until max are moved or two receives in a row come back empty. A delivery
// moved once is not moved again in the same run: if its fresh round dies
// while the run goes on (the receiver is still broken), the new dead letter
// waits for the next redrive instead of being chased round after round.
func (r *Redriver) Redrive(ctx context.Context, in RedriveInput) (RedriveOutput, error) {
	if in.Max < 0 {
		return RedriveOutput{}, apierr.Problems{"max": "must be positive"}.Err()
	}
	if in.Max == 0 {
		in.Max = DefaultRedriveMax
	}
	var out RedriveOutput
	var held []DeadLetter
	moved := map[string]bool{}
	defer func() {
		if len(held) == 0 {
			return
		}
		if err := r.DeadLetters.Release(context.WithoutCancel(ctx), held); err != nil {
			r.Log.WarnContext(ctx, "skipped dead letters stay hidden until their visibility timeout", "error", err.Error())
		}
	}()
	for empty := 0; out.Moved < in.Max && empty < 2; {
		letters, err := r.DeadLetters.Receive(ctx, min(10, in.Max-out.Moved), redriveHold)
		if err != nil {
			return out, err
		}
		if len(letters) == 0 {
			empty++
			continue
		}
		empty = 0
		for _, l := range letters {
			verdict, err := r.one(ctx, in, l, moved)
			if err != nil {
				return out, err
			}
			switch verdict {
			case redriveMoved:
				out.Moved++
			case redriveAgain:
				held = append(held, l)
			case redriveDelivered:
				out.SkippedDelivered++
			default:
				out.SkippedFilter++
				held = append(held, l)
			}
		}
	}
	r.Log.InfoContext(ctx, "redrive done", "moved", out.Moved, "skipped_delivered", out.SkippedDelivered, "skipped_filter", out.SkippedFilter)
	return out, nil
}

type redriveVerdict int

const (
	redriveSkipped redriveVerdict = iota
	redriveMoved
	redriveDelivered
	// redriveAgain: the delivery died again after this run moved it.
	redriveAgain
)

func (r *Redriver) one(ctx context.Context, in RedriveInput, l DeadLetter, moved map[string]bool) (redriveVerdict, error) {
	msg, err := ParseMessage(l.Body)
	if err != nil {
		return redriveSkipped, nil // not ours to judge: left for a human
	}
	if moved[msg.DeliveryID] {
		return redriveAgain, nil
	}
	if (in.ProjectID != "" && msg.ProjectID != in.ProjectID) || (in.EndpointID != "" && msg.EndpointID != in.EndpointID) || (in.EventType != "" && msg.EventType != in.EventType) {
		return redriveSkipped, nil
	}
	if msg.DeliveryID == "" {
		// A message of its own (a parked outbox record, a recovery's
		// continuation): no delivery to look at, back it goes.
		return redriveMoved, r.DeadLetters.Requeue(ctx, l)
	}
	d, err := r.Deliveries.Get(ctx, msg.ProjectID, msg.DeliveryID)
	switch {
	case err == nil && d.Status == StatusDelivered:
		return redriveDelivered, r.DeadLetters.Delete(ctx, l)
	case err != nil && !errors.Is(err, ErrDeliveryNotFound):
		return redriveSkipped, err
	}
	moved[msg.DeliveryID] = true
	return redriveMoved, r.DeadLetters.Requeue(ctx, l)
}
