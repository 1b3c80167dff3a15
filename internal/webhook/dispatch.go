package webhook

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/botix/public-api/internal/clock"
	"github.com/botix/public-api/internal/ids"
)

// Hooks let tests crash the pipeline between its steps. Production leaves
// them nil.
type Hooks struct {
	// BeforeSend runs after the dispatcher stored the deliveries of a batch
	// and before it sends their messages; an error fails the whole batch.
	BeforeSend func(ctx context.Context) error
	// AfterPost runs after the deliverer POSTed an attempt and before it
	// records the result; an error leaves the message to the queue.
	AfterPost func(ctx context.Context, deliveryID string) error
}

// Dispatcher fans outbox items out: each event becomes one delivery per
// target endpoint and one delivery queue message (a flood's deliveries
// are stored by the deliverer instead, see createDeliveries); a retry or
// redirect request becomes one message; a step of a recovery becomes the
// redrive messages it lists (each starts a fresh round, and the claim makes a
// second redrive of the same round a no-op) and, while the recovery runs,
// the delayed continuation that asks for its next step.
type Dispatcher struct {
	Endpoints  Endpoints
	Deliveries Deliveries
	Queue      Queue
	Log        *slog.Logger
	Hooks      Hooks
	Now        func() time.Time
}

// dispatchConcurrency bounds the parallel writes of one batch.
const dispatchConcurrency = 16

// dispatchJob is one outbox item on its way to the delivery queue.
type dispatchJob struct {
	item      Outgoing
	endpoints []Endpoint
	msgs      []Message
	err       error
}

// Dispatch handles a batch and returns one error per item (nil: done).
// Items are independent (webhook order is not guaranteed), so a batch is
// handled concurrently: one endpoint read per project, the deliveries'
// conditional creates in parallel, the messages sent together. Every step
// is idempotent: an item dispatched again finds its deliveries as they are
// (delivered ones stay delivered) and sends their messages again, which
// the deliverer de-duplicates.
func (d *Dispatcher) Dispatch(ctx context.Context, items []Outgoing) []error {
	jobs := make([]dispatchJob, len(items))
	byProject := map[string][]int{}
	for i, it := range items {
		jobs[i].item = it
		switch {
		case it.Event != nil:
			byProject[it.Event.ProjectID] = append(byProject[it.Event.ProjectID], i)
		case it.Request != nil && it.Request.Kind != RequestRecover:
			r := it.Request
			// A manual retry goes to the endpoint, through its limits.
			jobs[i].msgs = []Message{{DeliveryID: r.DeliveryID, ProjectID: r.ProjectID, EndpointID: r.EndpointID, Request: &MessageRequest{ID: r.ID, Kind: r.Kind, TargetURL: r.TargetURL}}}
		}
	}
	for project, idx := range byProject {
		endpoints, err := d.Endpoints.ForProject(ctx, project)
		for _, i := range idx {
			jobs[i].endpoints, jobs[i].err = endpoints, err
		}
	}
	d.createDeliveries(ctx, jobs)
	errs := make([]error, len(jobs))
	if d.Hooks.BeforeSend != nil {
		if err := d.Hooks.BeforeSend(ctx); err != nil {
			for i := range errs {
				errs[i] = err
			}
			return errs
		}
	}
	d.sendAll(ctx, jobs)
	d.continueAll(ctx, jobs)
	for i, j := range jobs {
		errs[i] = j.err
	}
	return errs
}

// createDeliveries plans one delivery per event and target endpoint (and
// takes each recovery step's redrives), puts a project's flood of them on
// the bulk lane (bulkProjects), and stores, in parallel, the deliveries whose
// messages go on the delivery queue. A bulk lane's deliveries are not
// stored here: each travels in its message (Message.Pending), and the
// deliverer stores it as it claims its first attempt, so that a flood's
// writes come at the pace of its deliveries, not all at once ahead of
// every other project's events in the stream.
func (d *Dispatcher) createDeliveries(ctx context.Context, jobs []dispatchJob) {
	var all []Message
	var created []time.Time
	for i := range jobs {
		j := &jobs[i]
		switch {
		case j.err != nil:
			continue
		case j.item.Request != nil && j.item.Request.Kind == RequestRecover:
			j.msgs, j.err = d.recover(ctx, *j.item.Request)
		case j.item.Event != nil:
			j.msgs, j.err = d.plan(j.item, j.endpoints)
		}
		traceAll(j.msgs, j.item.Trace)
		var at time.Time
		if ev := j.item.Event; ev != nil {
			at, _ = time.Parse(time.RFC3339Nano, ev.CreatedAt)
		}
		for _, m := range j.msgs {
			all, created = append(all, m), append(created, at)
		}
	}
	bulk := bulkProjects(all, created)
	sem := make(chan struct{}, dispatchConcurrency)
	var wg sync.WaitGroup
	for i := range jobs {
		j := &jobs[i]
		if j.err != nil {
			continue
		}
		for n := range j.msgs {
			j.msgs[n].Bulk = bulk[j.msgs[n].ProjectID]
		}
		if !slices.ContainsFunc(j.msgs, storedHere) {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			j.err = d.store(ctx, j.msgs)
		}()
	}
	wg.Wait()
}

// plan returns the first message of each delivery of an event, one per
// target endpoint, each carrying its delivery (Pending).
func (d *Dispatcher) plan(o Outgoing, endpoints []Endpoint) ([]Message, error) {
	ev := *o.Event
	body, err := Body(ev)
	if err != nil {
		return nil, err
	}
	at := d.now()
	now, ends := ids.Timestamp(at), at.Add(DeliveryLifetime).Unix()
	var msgs []Message
	for _, ep := range endpoints {
		if !ep.Targets(o) {
			continue
		}
		id, err := DeliveryID(ev.ID, ep.ID)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, Message{DeliveryID: id, ProjectID: ev.ProjectID, EndpointID: ep.ID, EventType: ev.Type, Round: 1, Attempt: 1, RoundEnds: ends,
			Pending: &PendingDelivery{EventID: ev.ID, Payload: string(body), CreatedAt: now}})
	}
	return msgs, nil
}

// storedHere reports whether the dispatcher stores m's delivery: one it
// planned (Pending) that goes on the delivery queue.
func storedHere(m Message) bool { return m.Pending != nil && !m.Bulk }

// store creates the deliveries of msgs that go on the delivery queue,
// whose messages then name them only. A message is sent whether its
// delivery is new or not: if a previous run stored it and crashed before
// sending, this is what delivers it.
func (d *Dispatcher) store(ctx context.Context, msgs []Message) error {
	for i, m := range msgs {
		if !storedHere(m) {
			continue
		}
		if _, err := d.Deliveries.Create(ctx, m.delivery()); err != nil {
			return err
		}
		msgs[i].Pending = nil
	}
	return nil
}

// recover returns the redrives of one step of a recovery: the Recoverer
// chose them (a bounded batch) when it wrote the step, so the dispatcher
// reads nothing and a replayed step sends the same messages again, which
// the claims de-duplicate.
func (d *Dispatcher) recover(_ context.Context, r DeliveryRequest) ([]Message, error) {
	return r.Messages, nil
}

// sendAll puts the jobs' messages, on their lanes, on the delivery queue
// in one call of the port; a job fails if any of its messages was not
// sent.
func (d *Dispatcher) sendAll(ctx context.Context, jobs []dispatchJob) {
	var all []Message
	var owner []int
	for i, j := range jobs {
		if j.err != nil {
			continue
		}
		for _, m := range j.msgs {
			all, owner = append(all, m), append(owner, i)
		}
	}
	if len(all) == 0 {
		return
	}
	for k, err := range d.Queue.Enqueue(ctx, all) {
		if err != nil && jobs[owner[k]].err == nil {
			jobs[owner[k]].err = err
		}
	}
}

// continueAll puts the continuation of each recovery step whose redrives
// were sent on the delivery queue, delayed to when the next step is due.
// It goes after them: a step that failed is dispatched again whole, and a
// continuation sent twice is handled once (Continuation.Next).
func (d *Dispatcher) continueAll(ctx context.Context, jobs []dispatchJob) {
	for i := range jobs {
		j := &jobs[i]
		r := j.item.Request
		if j.err != nil || r == nil || r.Kind != RequestRecover || r.Continuation == nil {
			continue
		}
		m := Message{ProjectID: r.ProjectID, Continuation: r.Continuation}
		j.err = d.Queue.Defer(ctx, []Deferred{{Message: m, Delay: r.Continuation.At.Sub(d.now())}})[0]
	}
}

func (d *Dispatcher) now() time.Time {
	return clock.Or(d.Now)()
}
