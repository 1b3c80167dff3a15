package webhook

// The ports: every interface this pillar declares for its adapters to
// implement, with the types their methods speak and their errors. DynamoDB
// (package store), SQS and EventBridge Scheduler (package awsqueue) and
// net/http (Sender) implement them; webhooktest holds the fakes and the
// storage ports' contracts. doc.go lists them, and a test keeps the list
// equal to this file.

import (
	"context"
	"errors"
	"time"

	"github.com/botix/public-api/internal/domain"
)

// Deliveries is where deliveries and their attempt logs are kept. Every
// method is one atomic operation of the engine.
type Deliveries interface {
	// Create stores d unless a delivery with its id exists (ids are derived
	// from the event and the endpoint, see DeliveryID), and reports whether
	// it created it. An existing delivery is left exactly as it is. A d
	// with a ClaimToken is stored claimed (until ClaimExpiresAt): the
	// deliverer creates a bulk lane's delivery as it claims its first
	// attempt, in one write (see Pending). A delivery stored claimed may
	// enter the status and endpoint lists only when its attempt is
	// recorded (Finish, RecordExtra) or it is claimed again (a worker that
	// crashed mid-attempt): until then it is found by id and in the
	// unfiltered list.
	Create(ctx context.Context, d Delivery) (bool, error)
	// Get returns a delivery of project, or ErrDeliveryNotFound.
	Get(ctx context.Context, project, id string) (Delivery, error)
	// Claim stores c.Apply(d) if c.Allows(d) and returns it with true;
	// otherwise it changes nothing and returns the delivery as it is (nil
	// when there is none) with false. The condition and the change are one
	// write, and the answer comes from it (no second read).
	Claim(ctx context.Context, c Claim) (*Delivery, bool, error)
	// Finish records a claimed attempt: r.Apply to the delivery and the
	// attempt log a, together, on condition that the delivery still holds
	// the claim token. It returns ErrClaimLost when it does not.
	Finish(ctx context.Context, d Delivery, token string, r Result, a Attempt) error
	// RecordExtra logs a manual or redirected attempt a and applies
	// MarkExtra(delivered) to the delivery, together; ErrDeliveryNotFound
	// if the delivery is gone.
	RecordExtra(ctx context.Context, d Delivery, delivered bool, a Attempt) error
	// Attempts returns a delivery's attempt log, oldest first.
	Attempts(ctx context.Context, project, id string) ([]Attempt, error)
	// FailedPage reads one page of an endpoint's deliveries created in
	// [since, until], oldest first, starting after the delivery with id
	// after (from since when empty): at most limit deliveries are read (a
	// Query's Limit, counted before the filter) and the failed ones among
	// them (Delivery.Failed) returned, their payloads left out. last is
	// the id of the last delivery read, where the next page starts; ""
	// when the window has no more.
	FailedPage(ctx context.Context, project, endpointID string, since, until time.Time, after string, limit int) (failed []Delivery, last string, err error)
	// Stats returns the counts of the hours in [from, to] (both truncated
	// to the hour) of a project, or of one of its endpoints when
	// endpointID is set; hours without attempts are left out. Finish and
	// RecordExtra count each attempt (not a redirect) in the hour it
	// started, by the status it left its delivery in (CountOf), exactly
	// once with the write that records it.
	Stats(ctx context.Context, project, endpointID string, from, to time.Time) ([]HourCounts, error)
	// RecoveryOutcomes returns how the rounds recovery recoveryID started
	// ended so far: Finish counts a round that a recovery started
	// (Delivery.RecoveryID) once, when it ends delivered or dead, in the
	// write that records the attempt.
	RecoveryOutcomes(ctx context.Context, project, recoveryID string) (RecoveryOutcomes, error)
}

// RecoveryOutcomes are how a recovery's rounds ended: Delivered, or Dead
// (failed again, to the dead-letter queue). The others it queued are
// still on their way.
type RecoveryOutcomes struct {
	Delivered int `json:"delivered"`
	Dead      int `json:"failed"`
}

// ErrClaimLost reports that an attempt's claim ended and another worker
// took the attempt over; the other worker's record stands.
var ErrClaimLost = errors.New("webhook: the claim on the attempt was lost")

// Endpoints is where webhook endpoints and their health are kept.
type Endpoints interface {
	// Get returns an endpoint of project, or ErrEndpointNotFound.
	Get(ctx context.Context, project, id string) (Endpoint, error)
	// ForProject returns every endpoint of a project (there are at most
	// MaxEndpointsPerProject), in one read.
	ForProject(ctx context.Context, project string) ([]Endpoint, error)
	// RecordSuccess ends the endpoint's failure streak; RecordFailure
	// extends it (FailingSince keeps when it began). Both return the
	// endpoint as it is after the change, or ErrEndpointNotFound.
	RecordSuccess(ctx context.Context, project, id string, at time.Time) (Endpoint, error)
	RecordFailure(ctx context.Context, project, id string, at time.Time) (Endpoint, error)
	// Disable disables an enabled endpoint with a reason the owner sees; an
	// endpoint already disabled or gone is left alone, without an error.
	Disable(ctx context.Context, project, id, reason string, at time.Time) error
	// WriteFlow stores next as the endpoint's flow state, on condition that
	// the stored state is at version seen (no state yet when 0), and takes
	// the leases of take, on condition that every slot of take is free (no
	// lease, or one that ended before now); with next nil it only takes
	// the leases, whatever the state's version. It returns the endpoint as
	// stored after the write with true, or as it is with false when a
	// condition failed; ErrEndpointNotFound if it is gone.
	WriteFlow(ctx context.Context, project, id string, seen int64, next *Flow, take Leases, now time.Time) (Endpoint, bool, error)
	// TakeNumbers gives n consecutive numbers of the endpoint's virtual
	// queue (Endpoint.Taken is the last given): after the last given, or,
	// when after is above it (the endpoint was idle), after after. It
	// returns the endpoint after the write and the first number; no other
	// writer's number can make it fail, so concurrent batches never retry.
	TakeNumbers(ctx context.Context, project, id string, n int, after int64) (Endpoint, int64, error)
	// Release frees the leases that still hold the values given (a lease
	// that ended and was taken by another holder is left to it).
	Release(ctx context.Context, project, id string, leases Leases) error
}

// Queue is the delivery queue and its dead-letter queue, as the
// dispatcher and the deliverer write to them.
type Queue interface {
	// Enqueue puts messages on the delivery queue, those marked Bulk on its
	// bulk lane. It returns one error per message, nil for each one sent.
	Enqueue(ctx context.Context, msgs []Message) []error
	// Defer puts messages on their lane as Enqueue does, each hidden for
	// its delay (at most MaxDefer). It returns one error per message, nil
	// for each one sent.
	Defer(ctx context.Context, msgs []Deferred) []error
	// DeadLetter puts the message of a dead delivery on the dead-letter
	// queue, where ops see it and from where a redrive starts a fresh round.
	// The deliverer records the delivery dead only after it returned nil.
	DeadLetter(ctx context.Context, m Message) error
}

// Deferred is a message to put on the delivery queue after a delay.
type Deferred struct {
	Message Message
	Delay   time.Duration
}

// Scheduler arranges future attempts.
type Scheduler interface {
	// Schedule puts m on the delivery queue at at (whole seconds).
	// Scheduling the same delivery, round and attempt twice is not an error.
	// The deliverer records a retry only after it returned nil.
	Schedule(ctx context.Context, m Message, at time.Time) error
}

// DeadLetters is the dead-letter queue as the redriver reads it.
type DeadLetters interface {
	// Receive takes up to max dead letters, hidden from other readers for
	// hold (an empty answer means the queue is empty, or everything in it
	// is hidden).
	Receive(ctx context.Context, max int, hold time.Duration) ([]DeadLetter, error)
	// Requeue sends a dead letter's body back to the delivery queue, then
	// deletes it from the dead-letter queue; it deletes nothing it did not
	// send, so an error never loses the letter.
	Requeue(ctx context.Context, l DeadLetter) error
	// Delete removes a dead letter.
	Delete(ctx context.Context, l DeadLetter) error
	// Release makes received dead letters visible again at once; its error
	// joins those of the letters it could not release, which show again
	// when their hold ends.
	Release(ctx context.Context, ls []DeadLetter) error
}

// DeadLetter is a message received from the dead-letter queue.
type DeadLetter struct {
	Body string
	// Handle is the queue's receipt handle of this receive.
	Handle string
}

// Poster sends one webhook request and reports what it observed; it never
// fails: a request without an answer is a Response with a Class.
type Poster interface {
	Post(ctx context.Context, url string, body []byte, headers map[string]string) Response
}

// Announcement is a health event on its way to the outbox: Event, of type
// Kind, about endpoint Endpoint's streak of failures that began at Streak.
type Announcement struct {
	Kind     string
	Endpoint string
	Streak   string
	Event    domain.Event
}

// HealthEvents is where the deliver function writes health events: into
// the outbox, each at most once per endpoint, streak and type, however
// many instances announce it at once. A false answer is no error.
type HealthEvents interface {
	// Announce writes a.Event (failing or disabling_soon) into the outbox
	// unless an event of a.Kind was written for a.Endpoint and a.Streak, or
	// the endpoint is no longer enabled and in that streak (failing_since =
	// a.Streak). It reports whether it wrote the event.
	Announce(ctx context.Context, a Announcement) (bool, error)
	// Recover records the success at at that ends a.Streak (as
	// Endpoints.RecordSuccess does) and writes a.Event (recovered), in one
	// atomic write, on condition that the endpoint is still in that streak
	// and the streak's failing event was written. It reports whether it
	// did; on false nothing changed, and the caller records the success.
	Recover(ctx context.Context, a Announcement, at time.Time) (bool, error)
	// Disable disables a.Endpoint with reason and writes a.Event (a
	// disabled event) in one atomic write, on condition that the endpoint
	// is enabled; it reports whether it did (false: already disabled, or
	// gone).
	Disable(ctx context.Context, a Announcement, reason string, at time.Time) (bool, error)
}

// Recoveries is where the endpoints' recoveries are kept.
type Recoveries interface {
	// Current returns the latest recovery of an endpoint (running or
	// completed), read strongly consistently; nil when it never had one.
	Current(ctx context.Context, project, endpointID string) (*Recovery, error)
	// Save stores r as the endpoint's latest recovery, together with its
	// step r.Step(msgs) (the redrives msgs and the continuation; none when
	// nil), in one atomic write conditioned on the stored version being
	// r.Version-1 (no recovery at all when r.Version is 1). It returns
	// ErrRecoveryRace when the condition fails: another call wrote first.
	Save(ctx context.Context, r Recovery, msgs []Message) error
}

// ErrRecoveryRace reports that another recover call of the endpoint
// saved its recovery first.
var ErrRecoveryRace = errors.New("webhook: another recover call of the endpoint won")
