package delivery

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/streamimage"
	"github.com/botix/public-api/internal/webhook"
)

// Hooks let tests crash the pipeline between its steps. Production leaves
// them nil.
type Hooks struct {
	// BeforeSend runs after the dispatcher stored the deliveries of an
	// event and before it sends their messages.
	BeforeSend func(ctx context.Context) error
	// AfterPost runs after the deliver function POSTed an attempt and
	// before it records the result.
	AfterPost func(ctx context.Context, deliveryID string) error
}

// Dispatcher consumes the data table's stream (inserted events and
// delivery requests only, filtered in the template): each event becomes one
// delivery per enabled, subscribed endpoint, and one delivery queue message.
type Dispatcher struct {
	Store    *store.Store
	SQS      *sqs.Client
	QueueURL string
	Log      *slog.Logger
	Hooks    Hooks
	Now      func() time.Time
}

type streamItem struct {
	Entity string `dynamodbav:"entity"`
}

// Handle is the Lambda handler. Records are independent (webhook order is
// not guaranteed), so a batch is handled concurrently: one endpoint Query
// per project, the deliveries' conditional puts in parallel, the messages
// sent ten at a time. A record that fails is reported in BatchItemFailures
// (Lambda retries it); every step is idempotent, so a replayed record finds
// its deliveries and sends their messages again, which the deliver
// function de-duplicates.
func (d *Dispatcher) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	jobs := make([]dispatchJob, len(ev.Records))
	byProject := map[string][]int{}
	for i, rec := range ev.Records {
		jobs[i].seq = rec.Change.SequenceNumber
		jobs[i].err = d.decode(rec, &jobs[i])
		if jobs[i].err == nil && jobs[i].event != nil {
			byProject[jobs[i].event.ProjectID] = append(byProject[jobs[i].event.ProjectID], i)
		}
	}
	for project, idx := range byProject {
		endpoints, err := d.Store.ProjectEndpoints(ctx, project)
		for _, i := range idx {
			if err != nil {
				jobs[i].err = err
				continue
			}
			jobs[i].endpoints = endpoints
		}
	}
	d.createDeliveries(ctx, jobs)
	if d.Hooks.BeforeSend != nil {
		if err := d.Hooks.BeforeSend(ctx); err != nil {
			return failAll(ev), nil
		}
	}
	d.sendAll(ctx, jobs)
	var resp events.DynamoDBEventResponse
	for _, j := range jobs {
		if j.err != nil {
			d.Log.ErrorContext(ctx, "dispatch failed; the stream will retry", "sequence_number", j.seq, "error", j.err.Error())
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: j.seq})
		}
	}
	return resp, nil
}

// dispatchJob is one stream record on its way to the delivery queue.
type dispatchJob struct {
	seq       string
	event     *store.EventRecord
	endpoints []store.EndpointRecord
	msgs      []Message
	err       error
}

func failAll(ev events.DynamoDBEvent) events.DynamoDBEventResponse {
	var resp events.DynamoDBEventResponse
	for _, rec := range ev.Records {
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: rec.Change.SequenceNumber})
	}
	return resp
}

// decode reads a record: an event to fan out, or a delivery request whose
// message is known at once.
func (d *Dispatcher) decode(rec events.DynamoDBEventRecord, j *dispatchJob) error {
	var kind streamItem
	if err := streamimage.Decode(rec.Change.NewImage, &kind); err != nil {
		return err
	}
	switch kind.Entity {
	case store.EntityEvent:
		var ev store.EventRecord
		if err := streamimage.Decode(rec.Change.NewImage, &ev); err != nil {
			return err
		}
		j.event = &ev
	case store.EntityDeliveryRequest:
		var r store.DeliveryRequest
		if err := streamimage.Decode(rec.Change.NewImage, &r); err != nil {
			return err
		}
		j.msgs = []Message{{DeliveryID: r.DeliveryID, ProjectID: r.ProjectID, Request: &Request{ID: r.ID, Kind: r.Kind, TargetURL: r.TargetURL}}}
	}
	return nil // other entities are not ours: the template's filter keeps them out
}

// dispatchConcurrency bounds the parallel writes of one batch.
const dispatchConcurrency = 16

// createDeliveries stores one delivery per event and target endpoint, in
// parallel, and queues each one's first message.
func (d *Dispatcher) createDeliveries(ctx context.Context, jobs []dispatchJob) {
	sem := make(chan struct{}, dispatchConcurrency)
	var wg sync.WaitGroup
	for i := range jobs {
		j := &jobs[i]
		if j.err != nil || j.event == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			j.msgs, j.err = d.fanOut(ctx, *j.event, j.endpoints)
		}()
	}
	wg.Wait()
}

func (d *Dispatcher) fanOut(ctx context.Context, ev store.EventRecord, endpoints []store.EndpointRecord) ([]Message, error) {
	body, err := webhook.Body(ev.Event())
	if err != nil {
		return nil, err
	}
	now := d.now()
	var msgs []Message
	for _, ep := range endpoints {
		if !targets(ep, ev) {
			continue
		}
		id, err := webhook.DeliveryID(ev.ID, ep.ID)
		if err != nil {
			return nil, err
		}
		_, err = d.Store.CreateDelivery(ctx, store.DeliveryRecord{
			ProjectID: ev.ProjectID, ID: id, EventID: ev.ID, EventType: ev.Type, EndpointID: ep.ID,
			Status: store.DeliveryPending, Round: 1, NextAttempt: 1, Payload: string(body),
			CreatedAt: ids.Timestamp(now), UpdatedAt: ids.Timestamp(now), ExpiresAt: now.Add(store.DeliveryRetention).Unix(),
		})
		if err != nil {
			return nil, err
		}
		// Sent whether the delivery is new or not: if a previous run
		// stored it and crashed before sending, this is what delivers it.
		msgs = append(msgs, Message{DeliveryID: id, ProjectID: ev.ProjectID, Round: 1, Attempt: 1})
	}
	return msgs, nil
}

// targets reports whether an event goes to an endpoint: enabled and
// subscribed, or named by the event (webhook.test).
func targets(ep store.EndpointRecord, ev store.EventRecord) bool {
	if ev.TargetEndpoint != "" {
		return ev.TargetEndpoint == ep.ID
	}
	return ep.Enabled && ep.Subscribed(ev.Type)
}

// sendAll puts the jobs' messages on the delivery queue, ten per call,
// calls in parallel; a job fails if any of its messages was not sent.
func (d *Dispatcher) sendAll(ctx context.Context, jobs []dispatchJob) {
	type entry struct {
		job int
		msg Message
	}
	var all []entry
	for i, j := range jobs {
		if j.err == nil {
			for _, m := range j.msgs {
				all = append(all, entry{i, m})
			}
		}
	}
	var mu sync.Mutex
	sem := make(chan struct{}, dispatchConcurrency)
	var wg sync.WaitGroup
	for start := 0; start < len(all); start += 10 {
		chunk := all[start:min(start+10, len(all))]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			entries := make([]sqstypes.SendMessageBatchRequestEntry, len(chunk))
			for k, e := range chunk {
				entries[k] = sqstypes.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(k)), MessageBody: aws.String(e.msg.String())}
			}
			out, err := d.SQS.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(d.QueueURL), Entries: entries})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				for _, e := range chunk {
					jobs[e.job].err = err
				}
				return
			}
			for _, f := range out.Failed {
				k, _ := strconv.Atoi(aws.ToString(f.Id))
				jobs[chunk[k].job].err = fmt.Errorf("delivery: message not sent: %s", aws.ToString(f.Message))
			}
		}()
	}
	wg.Wait()
}

func (d *Dispatcher) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}
