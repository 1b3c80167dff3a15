package webhook

import (
	"fmt"
	"time"
)

// DeliveryLifetime bounds a delivery's round: a round that has not
// delivered within it is dead — in the dead-letter queue, counted and
// announced like any other dead delivery — whatever kept it from ending:
// a receiver that answers 429 or 503 with a long Retry-After (throttled
// attempts keep the round's place in the schedule), a pause its receiver
// keeps renewing, or a pace that a backlog waits behind.
//
// Three days, as Stripe retries live-mode webhooks for up to three days:
// the whole retry schedule (about 25 h) fits with two days to spare for a
// receiver's pauses, an owner still finds the dead delivery (and its dead
// letter) within the 14-day DeliveryRetention, with time to redrive it,
// and a dead letter well inside it leaves time for the fresh round a
// redrive starts (up to DeliveryRetention - keptDead after creation).
const DeliveryLifetime = 72 * time.Hour

// keptDead is how long before its deliveries' retention ends a round ends
// at the latest, whatever its start: an owner reads a dead delivery in
// the log for at least this long before the store forgets it.
const keptDead = 24 * time.Hour

// ClassExpired is the class of an attempt that did not run because its
// round's lifetime had ended: the delivery is dead without a request.
const ClassExpired = "expired"

// expiredReason and lifetimeReason explain a delivery the lifetime ended.
var (
	expiredReason  = fmt.Sprintf("not delivered within its lifetime (%.0f h): the round ended before this attempt", DeliveryLifetime.Hours())
	lifetimeReason = fmt.Sprintf("not delivered within its lifetime (%.0f h): the next attempt would come after the round ends", DeliveryLifetime.Hours())
)

// roundEnds is when the round of rec that msg belongs to ends: what msg
// carries (every message after a round's first carries it); for a first
// round, its creation plus DeliveryLifetime; for a round a redrive just
// started, now plus DeliveryLifetime. Never later than keptDead before
// the delivery's retention ends.
func roundEnds(msg Message, rec Delivery, now time.Time) time.Time {
	created, err := time.Parse(time.RFC3339Nano, rec.CreatedAt)
	if err != nil {
		created = now
	}
	var ends time.Time
	switch {
	case msg.RoundEnds > 0:
		ends = time.Unix(msg.RoundEnds, 0)
	case rec.Round <= 1:
		ends = created.Add(DeliveryLifetime)
	default:
		ends = now.Add(DeliveryLifetime)
	}
	if last := created.Add(DeliveryRetention - keptDead); last.Before(ends) {
		ends = last
	}
	return ends
}

// expired reports whether m's round has ended at now (false when m does
// not say when it ends: its claim decides, see roundEnds).
func (m Message) expired(now time.Time) bool {
	return m.RoundEnds > 0 && !now.Before(time.Unix(m.RoundEnds, 0))
}

// withinLifetime returns dec, or a dead verdict when dec is a retry that
// would come at or after ends: the round ends now rather than wait for an
// attempt it may not make.
func withinLifetime(dec Decision, ends, now time.Time) Decision {
	if dec.Verdict != Retry || nextSecond(now.Add(dec.Wait)).Before(ends) {
		return dec
	}
	return Decision{Verdict: Dead, Class: dec.Class, Reason: lifetimeReason}
}
