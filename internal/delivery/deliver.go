package delivery

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	schedtypes "github.com/aws/aws-sdk-go-v2/service/scheduler/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
)

// Config is the deliver function's configuration.
type Config struct {
	QueueURL, QueueARN string
	DeadLetterURL      string
	ScheduleGroup      string
	SchedulerRoleARN   string
	// Schedule is the wait before attempts 2..len+1.
	Schedule []time.Duration
	// AutoDisableAfter disables an endpoint whose deliveries all failed
	// for this long (5 days).
	AutoDisableAfter time.Duration
}

// Deliverer is the deliver function: an SQS consumer that POSTs webhooks.
type Deliverer struct {
	Store     *store.Store
	SQS       *sqs.Client
	Scheduler *scheduler.Client
	Sender    *Sender
	Config    Config
	Log       *slog.Logger
	Hooks     Hooks
	Now       func() time.Time

	cache endpointCache
}

// outcome of one message.
type outcome int

const (
	ack    outcome = iota // done or obsolete: delete the message
	later                 // come back after a short delay
	failed                // leave it: SQS retries after the visibility timeout
)

// earlyDelay is how long a message that arrived before its delivery was
// ready waits before it is seen again.
const earlyDelay = 2 * time.Second

// Handle is the Lambda handler (SQS source, ReportBatchItemFailures):
// the messages of a batch are processed in parallel; the ones not done are
// reported so that only they return to the queue.
func (d *Deliverer) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	results := make([]outcome, len(ev.Records))
	delays := make([]time.Duration, len(ev.Records))
	var wg sync.WaitGroup
	for i, rec := range ev.Records {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A panic would kill the whole instance (it runs outside the
			// handler's goroutine); contain it to its message, which SQS
			// then redelivers.
			defer func() {
				if p := recover(); p != nil {
					d.Log.ErrorContext(ctx, "delivery crashed; the message returns to the queue", "message_id", rec.MessageId, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
					results[i] = failed
				}
			}()
			results[i], delays[i] = d.process(ctx, rec)
		}()
	}
	wg.Wait()
	var resp events.SQSEventResponse
	for i, rec := range ev.Records {
		if results[i] == ack {
			continue
		}
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId})
		if results[i] == later {
			d.delay(ctx, rec.ReceiptHandle, delays[i])
		}
	}
	return resp, nil
}

func (d *Deliverer) process(ctx context.Context, rec events.SQSMessage) (outcome, time.Duration) {
	msg, err := parseMessage(rec.Body)
	if err != nil || msg.DeliveryID == "" || msg.ProjectID == "" {
		d.Log.ErrorContext(ctx, "unreadable delivery message dropped", "message_id", rec.MessageId)
		return ack, 0
	}
	if msg.Request != nil {
		err = d.extra(ctx, msg)
		if err != nil {
			d.Log.ErrorContext(ctx, "extra attempt failed; SQS will retry", "delivery_id", msg.DeliveryID, "error", err.Error())
			return failed, 0
		}
		return ack, 0
	}
	return d.scheduled(ctx, msg)
}

// scheduled runs one attempt of a delivery's round.
func (d *Deliverer) scheduled(ctx context.Context, msg Message) (outcome, time.Duration) {
	token := newToken()
	until := d.now().Add(time.Minute)
	if dl, ok := ctx.Deadline(); ok {
		until = dl
	}
	rec, claim, err := d.Store.ClaimAttempt(ctx, store.Claim{
		Project: msg.ProjectID, ID: msg.DeliveryID, Round: msg.Round, Attempt: msg.Attempt,
		RedriveOfRound: msg.RedriveOfRound, Token: token, Until: until,
	})
	switch {
	case err != nil:
		d.Log.ErrorContext(ctx, "claim failed; SQS will retry", "delivery_id", msg.DeliveryID, "error", err.Error())
		return failed, 0
	case claim == store.Stale:
		return ack, 0
	case claim == store.Early:
		return later, earlyDelay
	case claim == store.Busy:
		// Another worker holds this attempt; come back when its claim
		// ends, in case it crashed.
		return later, time.Until(time.UnixMilli(rec.ClaimExpiresAt)) + time.Second
	}
	if err := d.attempt(ctx, rec, token); err != nil {
		d.Log.ErrorContext(ctx, "attempt not recorded; SQS will retry", "delivery_id", rec.ID, "error", err.Error())
		return failed, 0
	}
	return ack, 0
}

// attempt POSTs a claimed attempt, decides what follows, arranges it
// (schedule or dead letter) and records it all.
func (d *Deliverer) attempt(ctx context.Context, rec store.DeliveryRecord, token string) error {
	now := d.now()
	ep, err := d.endpoint(ctx, rec.ProjectID, rec.EndpointID)
	var resp Response
	var decision webhook.Decision
	var requestID string
	url := ""
	switch {
	case store.IsEndpointNotFound(err):
		decision = webhook.Decision{Verdict: webhook.Dead, Class: "endpoint_deleted", Reason: "the webhook endpoint was deleted"}
	case err != nil:
		return err
	case !ep.Enabled:
		decision = webhook.Decision{Verdict: webhook.Dead, Class: "endpoint_disabled", Reason: "the webhook endpoint is disabled: " + ep.DisabledReason}
		url = ep.URL
	default:
		url = ep.URL
		requestID, resp, err = d.post(ctx, rec, ep, url, rec.Attempts+1, now)
		if err != nil {
			return err
		}
		decision = webhook.Decide(webhook.Outcome{Status: resp.Status, Class: resp.Class, RetryAfter: resp.RetryAfter}, rec.NextAttempt, d.Config.Schedule, d.now())
		if d.Hooks.AfterPost != nil {
			if err := d.Hooks.AfterPost(ctx, rec.ID); err != nil {
				return err
			}
		}
	}
	result := store.Result{LastStatus: resp.Status, LastClass: decision.Class}
	switch decision.Verdict {
	case webhook.Delivered:
		result.Status = store.DeliveryDelivered
	case webhook.Retry:
		at := nextSecond(d.now().Add(decision.Wait))
		result.Status, result.NextAttemptAt = store.DeliveryRetrying, ids.Timestamp(at)
		if err := d.schedule(ctx, rec, at); err != nil {
			return err
		}
	default:
		result.Status, result.DeadReason = store.DeliveryDead, decision.Reason
		if decision.Class != "endpoint_deleted" {
			if err := d.deadLetter(ctx, rec, decision.Reason); err != nil {
				return err
			}
		}
	}
	log := store.AttemptRecord{
		DeliveryID: rec.ID, Attempt: rec.Attempts + 1, Round: rec.Round, Kind: "scheduled", URL: url, RequestID: requestID,
		StatusCode: resp.Status, ResponseBody: resp.Body, StartedAt: ids.Timestamp(now), DurationMs: resp.Duration.Milliseconds(),
		ErrorClass: decision.Class, Error: errText(resp, decision), NextAttemptAt: result.NextAttemptAt,
	}
	if err := d.Store.FinishAttempt(ctx, rec, token, result, log); errors.Is(err, store.ErrClaimLost) {
		d.Log.WarnContext(ctx, "attempt ran after its claim expired; the other worker's result stands", "delivery_id", rec.ID)
	} else if err != nil {
		return err
	}
	if url != "" && decision.Class != "endpoint_disabled" {
		d.health(ctx, rec, ep, decision, now)
	}
	return nil
}

// post signs and sends one attempt; it returns the attempt's request id.
func (d *Deliverer) post(ctx context.Context, rec store.DeliveryRecord, ep store.EndpointRecord, url string, attempt int, now time.Time) (string, Response, error) {
	requestID := ids.New(ids.Request, now)
	headers, err := webhook.SignedHeaders(ep.ActiveSecrets(now), rec.EventID, now.Unix(), []byte(rec.Payload))
	if err != nil {
		return "", Response{}, err
	}
	headers[webhook.HeaderEvent] = rec.EventType
	headers[webhook.HeaderRequestID] = requestID
	headers[webhook.HeaderAttempt] = strconv.Itoa(attempt)
	return requestID, d.Sender.Post(ctx, url, []byte(rec.Payload), headers), nil
}

// schedule creates the one-shot schedule that puts the next attempt on
// the delivery queue at at. Its name is derived from the delivery, round
// and attempt, so creating it twice is a harmless conflict.
func (d *Deliverer) schedule(ctx context.Context, rec store.DeliveryRecord, at time.Time) error {
	next := Message{DeliveryID: rec.ID, ProjectID: rec.ProjectID, Round: rec.Round, Attempt: rec.NextAttempt + 1}
	_, err := d.Scheduler.CreateSchedule(ctx, &scheduler.CreateScheduleInput{
		Name:                       aws.String(fmt.Sprintf("%s-r%d-a%d", rec.ID, rec.Round, rec.NextAttempt+1)),
		GroupName:                  aws.String(d.Config.ScheduleGroup),
		ScheduleExpression:         aws.String("at(" + at.UTC().Format("2006-01-02T15:04:05") + ")"),
		ScheduleExpressionTimezone: aws.String("UTC"),
		FlexibleTimeWindow:         &schedtypes.FlexibleTimeWindow{Mode: schedtypes.FlexibleTimeWindowModeOff},
		ActionAfterCompletion:      schedtypes.ActionAfterCompletionDelete,
		Target:                     &schedtypes.Target{Arn: aws.String(d.Config.QueueARN), RoleArn: aws.String(d.Config.SchedulerRoleARN), Input: aws.String(next.String())},
	})
	var conflict *schedtypes.ConflictException
	if errors.As(err, &conflict) {
		return nil
	}
	return err
}

// deadLetter sends a dead delivery to the dead-letter queue, where ops see
// it and from where a redrive starts a fresh round.
func (d *Deliverer) deadLetter(ctx context.Context, rec store.DeliveryRecord, reason string) error {
	m := Message{DeliveryID: rec.ID, ProjectID: rec.ProjectID, RedriveOfRound: rec.Round, EndpointID: rec.EndpointID, EventType: rec.EventType, Reason: reason}
	_, err := d.SQS.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl: aws.String(d.Config.DeadLetterURL), MessageBody: aws.String(m.String()),
		MessageAttributes: map[string]sqstypes.MessageAttributeValue{
			"project_id":  {DataType: aws.String("String"), StringValue: aws.String(rec.ProjectID)},
			"endpoint_id": {DataType: aws.String("String"), StringValue: aws.String(rec.EndpointID)},
			"event_type":  {DataType: aws.String("String"), StringValue: aws.String(rec.EventType)},
		},
	})
	return err
}

// health updates the endpoint's success/failure record and disables an
// endpoint that answered 410 or has failed for AutoDisableAfter. A success
// after a recent success is not written (last_success_at is precise to a
// minute), which keeps a healthy delivery at two DynamoDB writes.
func (d *Deliverer) health(ctx context.Context, rec store.DeliveryRecord, ep store.EndpointRecord, decision webhook.Decision, now time.Time) {
	var err error
	switch decision.Verdict {
	case webhook.Delivered:
		if ep.ConsecutiveFailures == 0 && recent(ep.LastSuccessAt, now, time.Minute) {
			return
		}
		ep, err = d.Store.RecordEndpointSuccess(ctx, rec.ProjectID, ep.ID, now)
	default:
		ep, err = d.Store.RecordEndpointFailure(ctx, rec.ProjectID, ep.ID, now)
		if err == nil && ep.Enabled {
			reason := ""
			switch {
			case decision.Verdict == webhook.DeadAndDisable:
				reason = "the endpoint answered 410 Gone"
			case ep.FailingSince != "" && !recent(ep.FailingSince, now, d.Config.AutoDisableAfter):
				reason = fmt.Sprintf("every delivery failed for %s (since %s)", d.Config.AutoDisableAfter, ep.FailingSince)
			}
			if reason != "" {
				err = d.Store.DisableEndpoint(ctx, rec.ProjectID, ep.ID, reason)
				ep.Enabled, ep.DisabledReason = false, reason
			}
		}
	}
	if err != nil {
		d.Log.WarnContext(ctx, "endpoint health not updated", "endpoint_id", ep.ID, "error", err.Error())
		return
	}
	d.cache.put(rec.ProjectID, ep, now)
}

// extra runs a manual retry or a redirect: one more attempt, logged, that
// leaves the delivery's round alone (a manual success marks it delivered).
func (d *Deliverer) extra(ctx context.Context, msg Message) error {
	rec, err := d.Store.GetDelivery(ctx, msg.ProjectID, msg.DeliveryID)
	if store.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	now := d.now()
	ep, err := d.Store.GetEndpoint(ctx, rec.ProjectID, rec.EndpointID)
	deleted := store.IsEndpointNotFound(err)
	if err != nil && !deleted {
		return err
	}
	url, kind := ep.URL, "manual"
	if msg.Request.Kind == store.RequestRedirect {
		url, kind = msg.Request.TargetURL, "redirect"
	}
	log := store.AttemptRecord{DeliveryID: rec.ID, Attempt: rec.Attempts + 1, Round: rec.Round, Kind: kind, URL: url, StartedAt: ids.Timestamp(now)}
	delivered := false
	if deleted {
		// Without the endpoint there is no secret to sign with.
		log.ErrorClass, log.Error = "endpoint_deleted", "the webhook endpoint was deleted"
	} else {
		requestID, resp, err := d.post(ctx, rec, ep, url, rec.Attempts+1, now)
		if err != nil {
			return err
		}
		decision := webhook.Decide(webhook.Outcome{Status: resp.Status, Class: resp.Class}, 1, d.Config.Schedule, now)
		log.RequestID, log.StatusCode, log.ResponseBody, log.DurationMs = requestID, resp.Status, resp.Body, resp.Duration.Milliseconds()
		log.ErrorClass, log.Error = decision.Class, errText(resp, decision)
		delivered = kind == "manual" && decision.Verdict == webhook.Delivered
		if kind == "manual" {
			d.health(ctx, rec, ep, decision, now)
		}
	}
	return d.Store.RecordExtraAttempt(ctx, rec, delivered, log)
}

// endpoint returns an endpoint, cached for a few seconds per instance (a
// disabled or edited endpoint takes effect within endpointCacheTTL).
func (d *Deliverer) endpoint(ctx context.Context, project, id string) (store.EndpointRecord, error) {
	now := d.now()
	if ep, ok := d.cache.get(project, id, now); ok {
		return ep, nil
	}
	ep, err := d.Store.GetEndpoint(ctx, project, id)
	if err != nil {
		return ep, err
	}
	d.cache.put(project, ep, now)
	return ep, nil
}

func (d *Deliverer) delay(ctx context.Context, receipt string, wait time.Duration) {
	secs := int32(min(max(wait, time.Second), 12*time.Hour) / time.Second)
	if _, err := d.SQS.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl: aws.String(d.Config.QueueURL), ReceiptHandle: aws.String(receipt), VisibilityTimeout: secs,
	}); err != nil {
		d.Log.WarnContext(ctx, "could not shorten a message's visibility; it returns after the queue's timeout", "error", err.Error())
	}
}

func (d *Deliverer) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

func errText(r Response, dec webhook.Decision) string {
	switch {
	case r.Err != nil:
		return r.Err.Error()
	case dec.Reason != "":
		return dec.Reason
	}
	return ""
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

func newToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// endpointCacheTTL bounds how stale an instance's view of an endpoint is.
const endpointCacheTTL = 5 * time.Second

type endpointCache struct {
	mu sync.Mutex
	m  map[string]cachedEndpoint
}

type cachedEndpoint struct {
	ep  store.EndpointRecord
	exp time.Time
}

func (c *endpointCache) get(project, id string, now time.Time) (store.EndpointRecord, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[project+"/"+id]
	return e.ep, ok && now.Before(e.exp)
}

func (c *endpointCache) put(project string, ep store.EndpointRecord, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) > 10000 {
		c.m = map[string]cachedEndpoint{}
	}
	c.m[project+"/"+ep.ID] = cachedEndpoint{ep: ep, exp: now.Add(endpointCacheTTL)}
}
