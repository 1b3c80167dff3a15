package webhook

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"sync"
	"time"

	"github.com/botix/public-api/internal/metrics"
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
	starts := make([]Start, len(idx))
	for k, i := range idx {
		starts[k] = Start{Number: msgs[i].Number, NotBefore: msgs[i].NotBefore}
	}
	ep, plan, err := d.pace(ctx, project, ep, starts, now)
	var take Leases
	if err == nil && ep.MaxConcurrency > 0 {
		take, err = d.lease(ctx, project, ep, plan, now, until)
	}
	if err != nil {
		d.Log.ErrorContext(ctx, "flow control not reached; the queue will retry", "endpoint_id", endpointID, "error", err.Error())
		for _, i := range idx {
			out[i] = failed
		}
		return
	}
	var later []Deferred
	var laterIdx []int
	for k, a := range plan {
		if a.Run {
			continue
		}
		m := msgs[idx[k]]
		if m.expired(now) {
			// Its round has ended: it is dead, not deferred (attempt).
			d.spawn(ctx, &wg, m, &out[idx[k]], nil)
			continue
		}
		m.Number, m.NotBefore = a.Start.Number, a.Start.NotBefore
		later, laterIdx = append(later, Deferred{Message: m, Delay: a.Wait}), append(laterIdx, idx[k])
	}
	if len(later) > 0 {
		held := 0
		for k, err := range d.Queue.Defer(ctx, later) {
			out[laterIdx[k]] = done
			if err != nil {
				d.Log.WarnContext(ctx, "deferral not sent; the message returns after its visibility timeout", "delivery_id", later[k].Message.DeliveryID, "error", err.Error())
				out[laterIdx[k]] = failed
				continue
			}
			held++
		}
		if ep.Flow.PausedUntil > now.UnixMilli() && held > 0 {
			// Put back behind a receiver's Retry-After, not only paced.
			metrics.Put(ctx, d.Log, metrics.EndpointPauses, float64(held))
		}
	}
	var slots chan int
	if len(take) > 0 {
		slots = make(chan int, len(take))
		for s := range take {
			slots <- s
		}
		defer func() {
			wg.Wait()
			if err := d.Endpoints.Release(context.WithoutCancel(ctx), project, endpointID, take); err != nil {
				d.Log.WarnContext(ctx, "concurrency leases not released; they end with their claims", "endpoint_id", endpointID, "error", err.Error())
				return
			}
			d.cache.release(project, endpointID, take)
		}()
	}
	for k, a := range plan {
		if a.Run {
			m := msgs[idx[k]]
			m.Number, m.NotBefore = 0, 0
			d.spawnAt(ctx, &wg, project, endpointID, m, &out[idx[k]], slots, a.At)
		}
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
			m.NotBefore = ep.Flow.PausedUntil
			pause := Deferred{Message: m, Delay: time.Duration(ep.Flow.PausedUntil-now.UnixMilli()) * time.Millisecond}
			if err := d.Queue.Defer(ctx, []Deferred{pause})[0]; err != nil {
				*out = failed
			}
			metrics.Put(ctx, d.Log, metrics.EndpointPauses, 1)
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

// pace plans the starts of a batch's deliveries to a limited endpoint. A
// paced one writes the endpoint's schedule when it must (the first time, or
// after its rate limit changed: one conditional write) and gives numbers
// to the deliveries without a valid one, with one write that cannot lose
// to another batch's; an endpoint without a pace only holds them for the
// receiver's pause. It returns the endpoint as last seen.
func (d *Deliverer) pace(ctx context.Context, project string, ep Endpoint, starts []Start, now time.Time) (Endpoint, []Admission, error) {
	if ep.Pace(now) == 0 {
		return ep, PlanStarts(ep, Flow{}, starts, now), nil
	}
	f, write := ep.Schedule(now)
	for try := 0; write; try++ {
		if try == admitTries {
			return ep, nil, errors.New("webhook: the endpoint's schedule kept changing under its writes")
		}
		got, ok, err := d.Endpoints.WriteFlow(ctx, project, ep.ID, ep.Flow.Version, &f, nil, now)
		if err != nil {
			return ep, nil, err
		}
		d.remember(project, got)
		if ep = got; ok {
			break
		}
		f, write = ep.Schedule(now)
	}
	if need := NeedNumbers(f, starts, now); len(need) > 0 {
		got, first, err := d.Endpoints.TakeNumbers(ctx, project, ep.ID, len(need), ep.CatchUp(f, now))
		if err != nil {
			return ep, nil, err
		}
		d.remember(project, got)
		if ep = got; got.Flow.R0 > 0 && got.Flow.Version != f.Version {
			// A slow-down landed meanwhile: its schedule applies.
			f = got.Flow
		}
		for k, i := range need {
			starts[i].Number = first + int64(k)
		}
	}
	return ep, PlanStarts(ep, f, starts, now), nil
}

// lease takes a concurrency slot for each delivery of plan that runs, as
// many as are free, with one conditional write (a lost race returns the
// slots as they are, and it tries the free ones again); the deliveries
// beyond the slots it got run after them in turn. With every slot busy it
// defers the batch for BusyWait, keeping each delivery's place.
func (d *Deliverer) lease(ctx context.Context, project string, ep Endpoint, plan []Admission, now, until time.Time) (Leases, error) {
	n := 0
	for _, a := range plan {
		if a.Run {
			n++
		}
	}
	if n == 0 {
		return nil, nil
	}
	rnd := rand.New(rand.NewPCG(rand.Uint64(), uint64(now.UnixNano())))
	for range admitTries {
		// The view is at most a cache lifetime old (admit just read it
		// through the cache), and a lost write returns the leases as they
		// are: no slot free in it defers the batch without reading again.
		take := PlanLeases(ep, n, now, until, rnd)
		if len(take) == 0 {
			break
		}
		got, ok, err := d.Endpoints.WriteFlow(ctx, project, ep.ID, 0, nil, take, now)
		if err != nil {
			return nil, err
		}
		d.remember(project, got)
		if ok {
			return take, nil
		}
		ep = got
	}
	for k, a := range plan {
		if a.Run {
			// All in one second, so that they come back together, as one
			// batch that takes its slots with one write.
			plan[k] = Admission{Wait: BusyWait, Start: a.Start}
		}
	}
	return nil, nil
}

// BusyWait is how long a batch that found every concurrency slot busy is
// deferred.
const BusyWait = time.Second

// throttle records that the receiver asked the endpoint to slow down: it
// pauses the endpoint for retryAfter and lowers its rate (PlanThrottle),
// with the same conditional write as admissions.
func (d *Deliverer) throttle(ctx context.Context, project string, ep Endpoint, answer string, retryAfter time.Duration, now time.Time) {
	metrics.Put(ctx, d.Log, metrics.Throttles, 1)
	for range admitTries {
		next, change := PlanThrottle(ep, answer, retryAfter, now)
		if !change {
			return
		}
		got, ok, err := d.Endpoints.WriteFlow(ctx, project, ep.ID, ep.Flow.Version, &next, nil, now)
		if errors.Is(err, ErrEndpointNotFound) {
			return
		}
		if err != nil {
			d.Log.WarnContext(ctx, "the receiver's slow-down was not recorded", "endpoint_id", ep.ID, "error", err.Error())
			return
		}
		d.remember(project, got)
		if ok {
			return
		}
		ep = got
	}
}
