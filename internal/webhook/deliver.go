package webhook

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/botix/public-api/internal/clock"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/logs"
	"github.com/botix/public-api/internal/tracing"
)

// Config is the deliverer's policy.
type Config struct {
	// Schedule is the wait before attempts 2..len+1 (DefaultSchedule).
	Schedule []time.Duration
	// AutoDisableAfter disables an endpoint whose deliveries all failed
	// for this long (DefaultAutoDisableAfter).
	AutoDisableAfter time.Duration
}

// DefaultAutoDisableAfter is how long an endpoint may fail every delivery
// before it is disabled: 5 days, longer than a whole retry round.
const DefaultAutoDisableAfter = 120 * time.Hour

// Deliverer POSTs webhooks: it runs the attempt a queue message names,
// decides what follows (delivered, a scheduled retry, or dead and a dead
// letter), and records it.
type Deliverer struct {
	Deliveries Deliveries
	Endpoints  Endpoints
	Queue      Queue
	Scheduler  Scheduler
	Poster     Poster
	Config     Config
	Log        *slog.Logger
	Hooks      Hooks
	Now        func() time.Time
	// Sleep waits for a paced start within Nearby (nil: a timer, cut
	// short by the context); tests with a clock of their own set it.
	Sleep func(time.Duration)
	// Announcer sends the health events (nil: none are sent).
	Announcer *Announcer
	// BulkCalls bounds the database calls (claims, records) that this
	// instance's bulk lane attempts have in flight at once (0:
	// DefaultBulkCalls).
	BulkCalls int

	cache    endpointCache
	bulkOnce sync.Once
	bulkSlot chan struct{}
}

// DefaultBulkCalls is how many database calls of a flood's attempts one
// deliver instance has in flight at once. A bulk lane batch's ten
// attempts start together, and without a bound their claims, then their
// records, reach the table in bursts of ten, which every other project's
// calls queue behind (locally: one DynamoDB Local for everyone). One at a
// time spreads them evenly over the time the flood's POSTs take: a flood
// still waits on its receiver, not on the table, unless the receiver
// answers faster than two of its calls take (then an instance's flood
// goes at one delivery per two calls' time).
const DefaultBulkCalls = 1

// call runs one database call of an attempt: a bulk lane attempt's waits
// for one of the instance's BulkCalls slots (or its context's end).
func (d *Deliverer) call(ctx context.Context, bulk bool, f func() error) error {
	if !bulk {
		return f()
	}
	d.bulkOnce.Do(func() {
		n := d.BulkCalls
		if n <= 0 {
			n = DefaultBulkCalls
		}
		d.bulkSlot = make(chan struct{}, n)
	})
	select {
	case d.bulkSlot <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-d.bulkSlot }()
	return f()
}

// Disposition is what becomes of a queue message after Handle.
type Disposition struct {
	// Done: the message is finished with (recorded, or obsolete): delete it.
	Done bool
	// RetryIn, when not Done, asks to see the message again after this
	// long; zero leaves it to the queue's visibility timeout.
	RetryIn time.Duration
}

var (
	done = Disposition{Done: true}
	// failed leaves the message to the queue: it returns after its
	// visibility timeout, and after maxReceiveCount receives goes to the
	// dead-letter queue.
	failed = Disposition{}
)

// earlyDelay is how long a message that arrived before its delivery was
// ready waits before it is seen again.
const earlyDelay = 2 * time.Second

// Handle processes one delivery queue message.
func (d *Deliverer) Handle(ctx context.Context, msg Message) Disposition {
	ctx = d.handling(ctx, msg)
	if msg.Request != nil {
		if err := d.extra(ctx, msg); err != nil {
			d.Log.ErrorContext(ctx, "extra attempt failed; the queue will retry", "delivery_id", msg.DeliveryID, "error", err.Error())
			return failed
		}
		return done
	}
	return d.scheduled(ctx, msg)
}

// scheduled runs one attempt of a delivery's round.
func (d *Deliverer) scheduled(ctx context.Context, msg Message) Disposition {
	now := d.now()
	c := Claim{Project: msg.ProjectID, ID: msg.DeliveryID, Round: msg.Round, Attempt: msg.Attempt,
		RedriveOfRound: msg.RedriveOfRound, Recovery: msg.RecoveryID, Token: rand.Text(), Until: now.Add(time.Minute), Now: now, Endpoint: msg.EndpointID}
	if dl, ok := ctx.Deadline(); ok {
		c.Until = dl
	}
	if msg.Pending != nil {
		// A bulk lane's delivery, not stored yet: stored claimed, in one
		// write. If it exists (this message came again, or the dispatcher
		// ran the event again and stored it), the claim below decides.
		rec := c.Apply(msg.delivery())
		var created bool
		err := d.call(ctx, msg.Bulk, func() (err error) {
			created, err = d.Deliveries.Create(ctx, rec)
			return err
		})
		if err != nil {
			d.Log.ErrorContext(ctx, "delivery not stored; the queue will retry", "delivery_id", msg.DeliveryID, "error", err.Error())
			return failed
		}
		if created {
			return d.runClaimed(ctx, msg, rec, c.Token)
		}
	}
	var rec *Delivery
	var claimed bool
	err := d.call(ctx, msg.Bulk, func() (err error) {
		rec, claimed, err = d.Deliveries.Claim(ctx, c)
		return err
	})
	if err != nil {
		d.Log.ErrorContext(ctx, "claim failed; the queue will retry", "delivery_id", msg.DeliveryID, "error", err.Error())
		return failed
	}
	if !claimed {
		switch c.Diagnose(rec) {
		case Early:
			return Disposition{RetryIn: earlyDelay}
		case Busy:
			// Another worker holds this attempt; come back when its claim
			// ends, in case it crashed.
			return Disposition{RetryIn: rec.ClaimExpiresAt.Sub(now) + time.Second}
		}
		return done
	}
	return d.runClaimed(ctx, msg, *rec, c.Token)
}

// runClaimed runs the attempt of rec that token claimed for msg.
func (d *Deliverer) runClaimed(ctx context.Context, msg Message, rec Delivery, token string) Disposition {
	ctx = logs.With(ctx, logs.EventID, rec.EventID)
	if err := d.attempt(ctx, rec, token, msg.Bulk, roundEnds(msg, rec, d.now())); err != nil {
		d.Log.ErrorContext(ctx, "attempt not recorded; the queue will retry", "delivery_id", rec.ID, "error", err.Error())
		return failed
	}
	return done
}

// attempt POSTs a claimed attempt, decides what follows, arranges it
// (schedule or dead letter; bulk: on the bulk lane) and records it all.
// A round that ends (ends) before its next attempt is dead.
func (d *Deliverer) attempt(ctx context.Context, rec Delivery, token string, bulk bool, ends time.Time) error {
	now := d.now()
	ep, err := d.current(ctx, rec.ProjectID, rec.EndpointID, bulk)
	var resp Response
	var decision Decision
	var requestID string
	switch {
	case errors.Is(err, ErrEndpointNotFound):
		decision = Decision{Verdict: DeadEndpointGone, Class: ClassEndpointDeleted, Reason: "the webhook endpoint was deleted"}
	case err != nil:
		return err
	case !ep.Enabled:
		decision = Decision{Verdict: Dead, Class: ClassEndpointDisabled, Reason: "the webhook endpoint is disabled: " + ep.DisabledReason}
	case !now.Before(ends):
		decision = Decision{Verdict: Dead, Class: ClassExpired, Reason: expiredReason}
	default:
		requestID = ids.New(ids.Request, now)
		ctx = logs.With(ctx, logs.RequestID, requestID) // the attempt's lines, as the receiver's header names it
		resp, err = d.post(ctx, rec, ep, ep.URL, requestID, now)
		if err != nil {
			return err
		}
		decision = Decide(resp, rec.NextAttempt-rec.Throttles, d.Config.Schedule, d.now())
		if slow, after := Throttled(resp, now); slow {
			d.throttle(ctx, rec.ProjectID, ep, decision.Class, after, now)
			if rec.Throttles < MaxThrottles-1 {
				// Not a failure: the same place in the schedule, after the
				// receiver's Retry-After, at the lowered pace.
				decision = Decision{Verdict: Retry, Wait: max(after, time.Second), Class: decision.Class, Throttled: true}
			}
		}
		decision = withinLifetime(decision, ends, now)
		if d.Hooks.AfterPost != nil {
			if err := d.Hooks.AfterPost(ctx, rec.ID); err != nil {
				return err
			}
		}
	}
	result, err := d.follow(ctx, rec, bulk, decision, ends)
	if err != nil {
		return err
	}
	result.LastStatus, result.LastClass = resp.Status, decision.Class
	log := Attempt{
		DeliveryID: rec.ID, Attempt: rec.Attempts + 1, Round: rec.Round, Kind: KindScheduled, URL: ep.URL, RequestID: requestID,
		StatusCode: resp.Status, ResponseBody: resp.Body, StartedAt: ids.Timestamp(now), DurationMs: resp.Duration.Milliseconds(),
		ErrorClass: decision.Class, Error: errText(resp, decision), NextAttemptAt: result.NextAttemptAt,
	}
	err = d.call(ctx, bulk, func() error { return d.Deliveries.Finish(ctx, rec, token, result, log) })
	if errors.Is(err, ErrClaimLost) {
		d.Log.WarnContext(ctx, "attempt ran after its claim expired; the other worker's result stands", "delivery_id", rec.ID)
	} else if err != nil {
		return err
	}
	if err == nil {
		d.counted(ctx, rec, bulk, resp, requestID, result)
	}
	if (requestID != "" || decision.Class == ClassExpired) && !decision.Throttled {
		d.health(ctx, rec.ProjectID, ep, decision, now)
	}
	return nil
}

// follow arranges what a decision asks for — the next attempt's schedule
// (on the lane the attempt came on), or the dead letter — and returns the delivery's new state. It runs
// before the attempt is recorded: if recording fails, the message returns
// and the attempt runs again, and a schedule or dead letter sent twice is
// harmless (schedules are named by attempt; a redriven duplicate finds the
// delivery's round moved on).
func (d *Deliverer) follow(ctx context.Context, rec Delivery, bulk bool, decision Decision, ends time.Time) (Result, error) {
	switch decision.Verdict {
	case Delivered:
		return Result{Status: StatusDelivered}, nil
	case Retry:
		at := nextSecond(d.now().Add(decision.Wait))
		next := Message{DeliveryID: rec.ID, ProjectID: rec.ProjectID, EndpointID: rec.EndpointID, Round: rec.Round, Attempt: rec.NextAttempt + 1, Bulk: bulk, RoundEnds: ends.Unix()}
		next.Trace = tracing.Traceparent(ctx)
		if decision.Throttled && decision.Wait <= MaxDefer {
			// A short wait the receiver asked for: on the queue itself.
			if err := d.Queue.Defer(ctx, []Deferred{{Message: next, Delay: at.Sub(d.now())}})[0]; err != nil {
				return Result{}, err
			}
		} else if err := d.Scheduler.Schedule(ctx, next, at); err != nil {
			return Result{}, err
		}
		return Result{Status: StatusRetrying, NextAttemptAt: ids.Timestamp(at), Throttled: decision.Throttled}, nil
	case DeadEndpointGone:
		return Result{Status: StatusDead, DeadReason: decision.Reason}, nil
	}
	m := Message{DeliveryID: rec.ID, ProjectID: rec.ProjectID, RedriveOfRound: rec.Round, EndpointID: rec.EndpointID, EventType: rec.EventType, Reason: decision.Reason}
	m.Trace = tracing.Traceparent(ctx)
	if err := d.Queue.DeadLetter(ctx, m); err != nil {
		return Result{}, err
	}
	return Result{Status: StatusDead, DeadReason: decision.Reason}, nil
}

// post signs and sends one attempt, request requestID.
func (d *Deliverer) post(ctx context.Context, rec Delivery, ep Endpoint, url, requestID string, now time.Time) (Response, error) {
	headers, err := SignedHeaders(ep.ActiveSecrets(now), rec.EventID, now.Unix(), []byte(rec.Payload))
	if err != nil {
		return Response{}, err
	}
	headers[HeaderEvent] = rec.EventType
	headers[HeaderRequestID] = requestID
	headers[HeaderAttempt] = strconv.Itoa(rec.Attempts + 1)
	if tp := tracing.Traceparent(ctx); tp != "" {
		headers[tracing.Header] = tp
	}
	return d.Poster.Post(ctx, url, []byte(rec.Payload), headers), nil
}

// health updates the endpoint's success/failure record, disables an
// endpoint that answered 410 or has failed for AutoDisableAfter, and
// announces the health events that are due (health.go). A success after a
// recent success is not written (last_success_at is precise to a minute),
// which keeps a healthy delivery at two writes and no health event.
func (d *Deliverer) health(ctx context.Context, project string, ep Endpoint, decision Decision, now time.Time) {
	var err error
	switch decision.Verdict {
	case Delivered:
		if succeededLately(ep, now) {
			return
		}
		if !d.cache.markSuccess(project, ep.ID, now) {
			return // another attempt of this instance writes this success
		}
		ep, err = d.Announcer.afterSuccess(ctx, d.Endpoints, project, ep, now)
	default:
		ep, err = d.Endpoints.RecordFailure(ctx, project, ep.ID, now)
		if err == nil {
			ep, err = d.Announcer.afterFailure(ctx, d.Endpoints, project, ep, decision, now, d.Config.AutoDisableAfter)
		}
	}
	if err != nil {
		d.Log.WarnContext(ctx, "endpoint health not updated", "endpoint_id", ep.ID, "error", err.Error())
		return
	}
	d.remember(project, ep)
}

// extra runs a manual retry or a redirect: one more attempt, logged, that
// leaves the delivery's round alone (a manual success marks it delivered).
func (d *Deliverer) extra(ctx context.Context, msg Message) error {
	rec, err := d.Deliveries.Get(ctx, msg.ProjectID, msg.DeliveryID)
	if errors.Is(err, ErrDeliveryNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	now := d.now()
	ep, err := d.Endpoints.Get(ctx, rec.ProjectID, rec.EndpointID)
	deleted := errors.Is(err, ErrEndpointNotFound)
	if err != nil && !deleted {
		return err
	}
	url, kind := ep.URL, KindManual
	if msg.Request.Kind == RequestRedirect {
		url, kind = msg.Request.TargetURL, KindRedirect
	}
	log := Attempt{DeliveryID: rec.ID, Attempt: rec.Attempts + 1, Round: rec.Round, Kind: kind, URL: url, StartedAt: ids.Timestamp(now)}
	delivered := false
	if deleted {
		// Without the endpoint there is no secret to sign with.
		log.ErrorClass, log.Error = ClassEndpointDeleted, "the webhook endpoint was deleted"
	} else {
		requestID := ids.New(ids.Request, now)
		ctx = logs.With(ctx, logs.RequestID, requestID)
		resp, err := d.post(ctx, rec, ep, url, requestID, now)
		if err != nil {
			return err
		}
		decision := Decide(resp, 1, d.Config.Schedule, now)
		log.RequestID, log.StatusCode, log.ResponseBody, log.DurationMs = requestID, resp.Status, resp.Body, resp.Duration.Milliseconds()
		log.ErrorClass, log.Error = decision.Class, errText(resp, decision)
		delivered = kind == KindManual && decision.Verdict == Delivered
		if kind == KindManual {
			d.health(ctx, rec.ProjectID, ep, decision, now)
		}
	}
	err = d.Deliveries.RecordExtra(ctx, rec, delivered, log)
	if err == nil {
		d.countedExtra(ctx, log, delivered)
	}
	if errors.Is(err, ErrDeliveryNotFound) {
		return nil
	}
	return err
}

// remember keeps ep, just read or written, as this instance's view of it
// (as of now: a batch that started earlier does not date it back).
func (d *Deliverer) remember(project string, ep Endpoint) {
	d.cache.put(project, ep, d.now())
}

// endpoint returns an endpoint, cached for a few seconds per instance (a
// disabled or edited endpoint takes effect within endpointCacheTTL).
func (d *Deliverer) endpoint(ctx context.Context, project, id string) (Endpoint, error) {
	now := d.now()
	if ep, ok := d.cache.get(project, id, now); ok {
		return ep, nil
	}
	ep, err := d.Endpoints.Get(ctx, project, id)
	if err != nil {
		return ep, err
	}
	d.remember(project, ep)
	return ep, nil
}

func (d *Deliverer) now() time.Time {
	return clock.Or(d.Now)()
}

func errText(r Response, dec Decision) string {
	switch {
	case r.Err != nil:
		return r.Err.Error()
	case dec.Reason != "":
		return dec.Reason
	}
	return ""
}

// succeededLately: the endpoint is healthy and its last success is
// within a minute (last_success_at is precise to a minute), so a success
// now need not be written.
func succeededLately(ep Endpoint, now time.Time) bool {
	return ep.ConsecutiveFailures == 0 && recent(ep.LastSuccessAt, now, time.Minute)
}

func recent(ts string, now time.Time, within time.Duration) bool {
	t, err := time.Parse(time.RFC3339Nano, ts)
	return err == nil && now.Sub(t) < within
}

// nextSecond rounds up to a whole second: schedules fire at second
// precision.
func nextSecond(t time.Time) time.Time {
	if t.Truncate(time.Second).Equal(t) {
		return t
	}
	return t.Truncate(time.Second).Add(time.Second)
}

// endpointCacheTTL bounds how stale an instance's view of an endpoint is.
const endpointCacheTTL = 5 * time.Second

// limitedCacheTTL is endpointCacheTTL for a paced endpoint.
const limitedCacheTTL = time.Second

type endpointCache struct {
	mu sync.Mutex
	m  map[string]cachedEndpoint
}

type cachedEndpoint struct {
	ep      Endpoint
	at, exp time.Time
}

func (c *endpointCache) get(project, id string, now time.Time) (Endpoint, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[project+"/"+id]
	return e.ep, ok && now.Before(e.exp)
}

func (c *endpointCache) put(project string, ep Endpoint, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) > 10000 {
		c.m = map[string]cachedEndpoint{}
	}
	if e, ok := c.m[project+"/"+ep.ID]; ok && e.at.After(now) {
		return // a newer view is kept
	}
	ttl := endpointCacheTTL
	if ep.Pace(now) > 0 || ep.Flow.PausedUntil > now.UnixMilli() {
		// A pace moves fast (a receiver's slow-down moves the starts not
		// yet due): look again each second. Concurrency leases need not:
		// a lease write that loses returns them as they are.
		ttl = limitedCacheTTL
	}
	c.m[project+"/"+ep.ID] = cachedEndpoint{ep: ep, at: now, exp: now.Add(ttl)}
}

// markSuccess notes in this instance's view of an endpoint a success
// about to be written, and reports whether it is the first one of the
// minute there: the attempts of a batch that succeed together against a
// fresh or recovering endpoint, each holding the view from before any of
// them succeeded, then write it (and announce a recovery) once, not once
// each. Without a view (none cached) every one writes, as before.
func (c *endpointCache) markSuccess(project, id string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[project+"/"+id]
	if !ok {
		return true
	}
	if succeededLately(e.ep, now) {
		return false
	}
	e.ep.LastSuccessAt, e.ep.ConsecutiveFailures, e.ep.FailingSince = ids.Timestamp(now), 0, ""
	c.m[project+"/"+id] = e
	return true
}

// release drops leases this instance gave back from its view of the
// endpoint, so that its next batch does not wait for them.
func (c *endpointCache) release(project, id string, leases Leases) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[project+"/"+id]
	if !ok {
		return
	}
	kept := Leases{}
	for s, v := range e.ep.Leases {
		if leases[s] != v {
			kept[s] = v
		}
	}
	e.ep.Leases = kept
	c.m[project+"/"+id] = e
}
