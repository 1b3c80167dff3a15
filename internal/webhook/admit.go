package webhook

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"sync"
	"time"
)

// admitTries bounds the conditional writes one batch makes to admit its
// deliveries to an endpoint (each failed one returns the state it lost to).
const admitTries = 4

// HandleBatch processes a batch of delivery queue messages, one
// disposition per message. The attempts of a batch run in parallel; those
// to a flow-controlled endpoint are admitted together, with one write per
// endpoint, and the ones without capacity are deferred (put back on the
// queue with a delay, no attempt counted). A panic is contained to its
// message, which then returns to the queue.
func (d *Deliverer) HandleBatch(ctx context.Context, msgs []Message) []Disposition {
	out := make([]Disposition, len(msgs))
	groups := map[[2]string][]int{}
	var wg sync.WaitGroup
	for i, m := range msgs {
		if m.EndpointID != "" && (m.Request == nil || m.Request.Kind == RequestRetry) {
			k := [2]string{m.ProjectID, m.EndpointID}
			groups[k] = append(groups[k], i)
			continue
		}
		d.spawn(ctx, &wg, m, &out[i], nil)
	}
	for k, idx := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.admit(ctx, k[0], k[1], msgs, idx, out)
		}()
	}
	wg.Wait()
	return out
}

// spawn runs Handle for m in its own goroutine, writing its disposition to
// *out; with slots, it holds one of them while it runs.
func (d *Deliverer) spawn(ctx context.Context, wg *sync.WaitGroup, m Message, out *Disposition, slots chan int) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		d.run(ctx, m, out, slots)
	}()
}

// run is Handle for m, its disposition written to *out: with slots, it
// holds one of them while it runs; a panic is contained to m.
func (d *Deliverer) run(ctx context.Context, m Message, out *Disposition, slots chan int) {
	if slots != nil {
		s := <-slots
		defer func() { slots <- s }()
	}
	defer func() {
		if p := recover(); p != nil {
			d.Log.ErrorContext(ctx, "delivery crashed; the message returns to the queue", "delivery_id", m.DeliveryID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			*out = failed
		}
	}()
	*out = d.Handle(ctx, m)
}

// admit runs or defers the messages idx of msgs, all to one endpoint.
func (d *Deliverer) admit(ctx context.Context, project, endpointID string, msgs []Message, idx []int, out []Disposition) {
	var wg sync.WaitGroup
	defer wg.Wait()
	now := d.now()
	ep, err := d.endpoint(ctx, project, endpointID)
	if err != nil || !ep.Limited(now) {
		// Gone, unreadable (Handle decides and reports), or not limited.
		for _, i := range idx {
			d.spawn(ctx, &wg, msgs[i], &out[i], nil)
		}
		return
	}
	until := now.Add(time.Minute)
	if dl, ok := ctx.Deadline(); ok {
		until = dl
	}
	tickets := make([]Ticket, len(idx))
	for k, i := range idx {
		tickets[k] = Ticket{Slot: msgs[i].Slot, Of: msgs[i].SlotOf}
	}
	plan, err := d.plan(ctx, project, ep, tickets, now, until)
	if err != nil {
		d.Log.ErrorContext(ctx, "flow control not reached; the queue will retry", "endpoint_id", endpointID, "error", err.Error())
		for _, i := range idx {
			out[i] = failed
		}
		return
	}
	var later []Deferred
	var laterIdx []int
	var run []int
	var at []int64
	for k, a := range plan.Admissions {
		if a.Run {
			run, at = append(run, idx[k]), append(at, a.At)
			continue
		}
		m := msgs[idx[k]]
		m.Slot, m.SlotOf = a.Ticket.Slot, a.Ticket.Of
		later, laterIdx = append(later, Deferred{Message: m, Delay: a.Wait}), append(laterIdx, idx[k])
	}
	if len(later) > 0 {
		for k, err := range d.Queue.Defer(ctx, later) {
			out[laterIdx[k]] = done
			if err != nil {
				d.Log.WarnContext(ctx, "deferral not sent; the message returns after its visibility timeout", "delivery_id", later[k].Message.DeliveryID, "error", err.Error())
				out[laterIdx[k]] = failed
			}
		}
	}
	var slots chan int
	if len(plan.Take) > 0 {
		slots = make(chan int, len(plan.Take))
		for s := range plan.Take {
			slots <- s
		}
		defer func() {
			wg.Wait()
			if err := d.Endpoints.Release(context.WithoutCancel(ctx), project, endpointID, plan.Take); err != nil {
				d.Log.WarnContext(ctx, "concurrency leases not released; they end with their claims", "endpoint_id", endpointID, "error", err.Error())
				return
			}
			d.cache.release(project, endpointID, plan.Take)
		}()
	}
	for k, i := range run {
		m := msgs[i]
		m.Slot, m.SlotOf = 0, 0
		d.spawnAt(ctx, &wg, project, endpointID, m, &out[i], slots, at[k])
	}
}

// spawnAt is spawn for a start at (epoch ms) within Nearby: it waits for
// it, then looks at the endpoint as this instance last saw it, and defers
// the delivery instead if the receiver paused the endpoint meanwhile (its
// 429 came while this one waited).
func (d *Deliverer) spawnAt(ctx context.Context, wg *sync.WaitGroup, project, endpointID string, m Message, out *Disposition, slots chan int, at int64) {
	wait := time.Duration(at-d.now().UnixMilli()) * time.Millisecond
	if at == 0 || wait <= 0 {
		d.spawn(ctx, wg, m, out, slots)
		return
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		d.sleep(ctx, wait)
		now := d.now()
		if ep, ok := d.cache.get(project, endpointID, now); ok && ep.Flow.PausedUntil > now.UnixMilli() {
			*out = done
			pause := Deferred{Message: m, Delay: time.Duration(ep.Flow.PausedUntil-now.UnixMilli()) * time.Millisecond}
			if err := d.Queue.Defer(ctx, []Deferred{pause})[0]; err != nil {
				*out = failed
			}
			return
		}
		d.run(ctx, m, out, slots)
	}()
}

func (d *Deliverer) sleep(ctx context.Context, wait time.Duration) {
	if d.Sleep != nil {
		d.Sleep(wait)
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// plan admits a batch: it plans against the endpoint as last seen and
// writes the plan on condition that the state is still what it saw; a lost
// race returns the state that won, and the batch plans again. After
// admitTries lost races it defers the batch for a second or two.
func (d *Deliverer) plan(ctx context.Context, project string, ep Endpoint, tickets []Ticket, now, until time.Time) (AdmitPlan, error) {
	rnd := rand.New(rand.NewPCG(rand.Uint64(), uint64(now.UnixNano())))
	fresh := false
	for range admitTries {
		plan := PlanAdmit(ep, tickets, now, until, rnd)
		if plan.Busy && !fresh {
			// The slots were busy as this instance last saw them, which may
			// be seconds old: look again before deferring.
			got, err := d.Endpoints.Get(ctx, project, ep.ID)
			if err != nil {
				return AdmitPlan{}, err
			}
			ep, fresh = got, true
			d.cache.put(project, ep, now)
			continue
		}
		if plan.Next == nil {
			return plan, nil
		}
		got, ok, err := d.Endpoints.WriteFlow(ctx, project, ep.ID, ep.Flow.Version, *plan.Next, plan.Take, now)
		if err != nil {
			return AdmitPlan{}, err
		}
		d.cache.put(project, got, now)
		if ok {
			return plan, nil
		}
		ep, fresh = got, true
	}
	plan := AdmitPlan{Admissions: make([]Admission, len(tickets))}
	for k, t := range tickets {
		plan.Admissions[k] = Admission{Wait: time.Second + time.Duration(rnd.IntN(1000))*time.Millisecond, Ticket: t}
	}
	return plan, nil
}

// throttle records that the receiver asked the endpoint to slow down: it
// pauses the endpoint for retryAfter and lowers its rate (PlanThrottle),
// with the same conditional write as admissions.
func (d *Deliverer) throttle(ctx context.Context, project string, ep Endpoint, answer string, retryAfter time.Duration, now time.Time) {
	for range admitTries {
		next, change := PlanThrottle(ep, answer, retryAfter, now)
		if !change {
			return
		}
		got, ok, err := d.Endpoints.WriteFlow(ctx, project, ep.ID, ep.Flow.Version, next, nil, now)
		if errors.Is(err, ErrEndpointNotFound) {
			return
		}
		if err != nil {
			d.Log.WarnContext(ctx, "the receiver's slow-down was not recorded", "endpoint_id", ep.ID, "error", err.Error())
			return
		}
		d.cache.put(project, got, now)
		if ok {
			return
		}
		ep = got
	}
}
