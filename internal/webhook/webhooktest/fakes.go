// Package webhooktest holds in-memory implementations of the ports that
// pillar 3 declares (deliveries, endpoints, queue, scheduler, dead
// letters, poster), with fault injection, for fast tests of the
// dispatcher, deliverer and redriver; and the contracts of the storage
// ports (TestDeliveries, TestEndpoints), which the fakes and the DynamoDB
// adapter both pass — so the fakes cannot drift from the engine.
package webhooktest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/botix/public-api/internal/clock"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
)

// ErrFault is the error an injected fault reports unless it names another.
var ErrFault = errors.New("webhooktest: injected fault")

// Faults makes named operations of a fake fail.
type Faults struct {
	mu    sync.Mutex
	armed map[string][]fault
}

type fault struct {
	err   error
	times int // <= 0: every call
}

// Fail makes the next times calls of op fail with err (ErrFault when nil;
// every call when times is 0).
func (f *Faults) Fail(op string, err error, times int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		err = ErrFault
	}
	if f.armed == nil {
		f.armed = map[string][]fault{}
	}
	f.armed[op] = append(f.armed[op], fault{err: err, times: times})
}

// Heal disarms every fault.
func (f *Faults) Heal() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.armed = nil
}

func (f *Faults) take(op string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, x := range f.armed[op] {
		if x.times == 1 {
			f.armed[op] = slices.Delete(f.armed[op], i, i+1)
		} else if x.times > 1 {
			f.armed[op][i].times--
		}
		return x.err
	}
	return nil
}

// Deliveries is an in-memory webhook.Deliveries.
type Deliveries struct {
	Faults
	mu       sync.Mutex
	items    map[string]webhook.Delivery
	attempts map[string][]webhook.Attempt
	// counts: project/endpoint ("" for the project) -> hour -> counts
	counts map[string]map[time.Time]webhook.Counts
	// outcomes: project/recovery id -> how its rounds ended
	outcomes map[string]webhook.RecoveryOutcomes
	// Now stamps updated_at; time.Now when nil.
	Now func() time.Time
	// Pages counts FailedPage calls.
	Pages int
}

var _ webhook.Deliveries = (*Deliveries)(nil)

func deliveryKey(project, id string) string { return project + "/" + id }

func (s *Deliveries) now() string { return ids.Timestamp(s.clock()) }

func (s *Deliveries) clock() time.Time {
	return clock.Or(s.Now)()
}

// Create implements webhook.Deliveries.
func (s *Deliveries) Create(_ context.Context, d webhook.Delivery) (bool, error) {
	if err := s.take("Create"); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := deliveryKey(d.ProjectID, d.ID)
	if _, ok := s.items[k]; ok {
		return false, nil
	}
	if s.items == nil {
		s.items = map[string]webhook.Delivery{}
	}
	s.items[k] = d
	return true, nil
}

// Get implements webhook.Deliveries.
func (s *Deliveries) Get(_ context.Context, project, id string) (webhook.Delivery, error) {
	if err := s.take("Get"); err != nil {
		return webhook.Delivery{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.items[deliveryKey(project, id)]
	if !ok {
		return webhook.Delivery{}, webhook.ErrDeliveryNotFound
	}
	return d, nil
}

// Claim implements webhook.Deliveries.
func (s *Deliveries) Claim(_ context.Context, c webhook.Claim) (*webhook.Delivery, bool, error) {
	if err := s.take("Claim"); err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.items[deliveryKey(c.Project, c.ID)]
	if !ok {
		return nil, false, nil
	}
	if !c.Allows(d) {
		return &d, false, nil
	}
	d = c.Apply(d)
	s.items[deliveryKey(c.Project, c.ID)] = d
	return &d, true, nil
}

// Finish implements webhook.Deliveries.
func (s *Deliveries) Finish(_ context.Context, d webhook.Delivery, token string, r webhook.Result, a webhook.Attempt) error {
	if err := s.take("Finish"); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := deliveryKey(d.ProjectID, d.ID)
	cur, ok := s.items[k]
	if !ok || cur.ClaimToken != token {
		return webhook.ErrClaimLost
	}
	s.items[k] = r.Apply(cur, s.now())
	s.logAttempt(k, a)
	s.count(cur, a, r.Status)
	if cur.RecoveryID != "" && (r.Status == webhook.StatusDelivered || r.Status == webhook.StatusDead) {
		if s.outcomes == nil {
			s.outcomes = map[string]webhook.RecoveryOutcomes{}
		}
		o := s.outcomes[d.ProjectID+"/"+cur.RecoveryID]
		if r.Status == webhook.StatusDelivered {
			o.Delivered++
		} else {
			o.Dead++
		}
		s.outcomes[d.ProjectID+"/"+cur.RecoveryID] = o
	}
	return nil
}

// RecoveryOutcomes implements webhook.Deliveries.
func (s *Deliveries) RecoveryOutcomes(_ context.Context, project, recoveryID string) (webhook.RecoveryOutcomes, error) {
	if err := s.take("RecoveryOutcomes"); err != nil {
		return webhook.RecoveryOutcomes{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.outcomes[project+"/"+recoveryID], nil
}

// count adds an attempt to its hour's counts, of the project and of the
// endpoint.
func (s *Deliveries) count(d webhook.Delivery, a webhook.Attempt, left webhook.Status) {
	if s.counts == nil {
		s.counts = map[string]map[time.Time]webhook.Counts{}
	}
	hour := webhook.AttemptHour(a, s.clock())
	for _, k := range []string{d.ProjectID + "/", d.ProjectID + "/" + d.EndpointID} {
		if s.counts[k] == nil {
			s.counts[k] = map[time.Time]webhook.Counts{}
		}
		s.counts[k][hour] = s.counts[k][hour].Add(webhook.CountAttempt(a, left))
	}
}

// RecordExtra implements webhook.Deliveries.
func (s *Deliveries) RecordExtra(_ context.Context, d webhook.Delivery, delivered bool, a webhook.Attempt) error {
	if err := s.take("RecordExtra"); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := deliveryKey(d.ProjectID, d.ID)
	cur, ok := s.items[k]
	if !ok {
		return webhook.ErrDeliveryNotFound
	}
	after := webhook.MarkExtra(cur, delivered, s.now())
	s.items[k] = after
	s.logAttempt(k, a)
	if a.Kind != webhook.KindRedirect {
		s.count(cur, a, after.Status)
	}
	return nil
}

func (s *Deliveries) logAttempt(k string, a webhook.Attempt) {
	if s.attempts == nil {
		s.attempts = map[string][]webhook.Attempt{}
	}
	s.attempts[k] = append(s.attempts[k], a)
}

// Attempts implements webhook.Deliveries.
func (s *Deliveries) Attempts(_ context.Context, project, id string) ([]webhook.Attempt, error) {
	if err := s.take("Attempts"); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.attempts[deliveryKey(project, id)]), nil
}

// FailedPage implements webhook.Deliveries; Pages counts its calls.
func (s *Deliveries) FailedPage(_ context.Context, project, endpointID string, since, until time.Time, after string, limit int) ([]webhook.Delivery, string, error) {
	if err := s.take("FailedPage"); err != nil {
		return nil, "", err
	}
	s.mu.Lock()
	s.Pages++
	s.mu.Unlock()
	var out []webhook.Delivery
	read := 0
	for _, d := range s.All() {
		u, err := ids.Parse(ids.Delivery, d.ID)
		at := ids.Time(u)
		if err != nil || d.ProjectID != project || d.EndpointID != endpointID || at.Before(since.Truncate(time.Millisecond)) || at.After(until) || d.ID <= after {
			continue
		}
		read++
		if d.Failed() {
			d.Payload = ""
			out = append(out, d)
		}
		if read == limit {
			// Like DynamoDB, a page that reaches its Limit names its last
			// item, whether or not more follow.
			return out, d.ID, nil
		}
	}
	return out, "", nil
}

// Stats implements webhook.Deliveries.
func (s *Deliveries) Stats(_ context.Context, project, endpointID string, from, to time.Time) ([]webhook.HourCounts, error) {
	if err := s.take("Stats"); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	from, to = from.UTC().Truncate(time.Hour), to.UTC().Truncate(time.Hour)
	var out []webhook.HourCounts
	for hour, c := range s.counts[project+"/"+endpointID] {
		if !hour.Before(from) && !hour.After(to) {
			out = append(out, webhook.HourCounts{Hour: hour, Counts: c})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Hour.Before(out[j].Hour) })
	return out, nil
}

// All returns every delivery, ordered by id.
func (s *Deliveries) All() []webhook.Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]webhook.Delivery, 0, len(s.items))
	for _, d := range s.items {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Endpoints is an in-memory webhook.Endpoints.
type Endpoints struct {
	Faults
	mu    sync.Mutex
	items map[string]webhook.Endpoint
	// Reads counts Get and ForProject calls.
	Reads int
}

var _ webhook.Endpoints = (*Endpoints)(nil)

// Put stores an endpoint of project as it is.
func (s *Endpoints) Put(project string, ep webhook.Endpoint) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.items == nil {
		s.items = map[string]webhook.Endpoint{}
	}
	s.items[deliveryKey(project, ep.ID)] = ep
}

// Delete removes an endpoint.
func (s *Endpoints) Delete(project, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.items, deliveryKey(project, id))
}

// Get implements webhook.Endpoints.
func (s *Endpoints) Get(_ context.Context, project, id string) (webhook.Endpoint, error) {
	if err := s.take("Get"); err != nil {
		return webhook.Endpoint{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Reads++
	ep, ok := s.items[deliveryKey(project, id)]
	if !ok {
		return webhook.Endpoint{}, webhook.ErrEndpointNotFound
	}
	return ep, nil
}

// ForProject implements webhook.Endpoints.
func (s *Endpoints) ForProject(_ context.Context, project string) ([]webhook.Endpoint, error) {
	if err := s.take("ForProject"); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Reads++
	var out []webhook.Endpoint
	for k, ep := range s.items {
		if k == deliveryKey(project, ep.ID) {
			out = append(out, ep)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out, nil
}

func (s *Endpoints) update(op, project, id string, change func(*webhook.Endpoint)) (webhook.Endpoint, error) {
	if err := s.take(op); err != nil {
		return webhook.Endpoint{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := deliveryKey(project, id)
	ep, ok := s.items[k]
	if !ok {
		return webhook.Endpoint{}, webhook.ErrEndpointNotFound
	}
	change(&ep)
	s.items[k] = ep
	return ep, nil
}

// RecordSuccess implements webhook.Endpoints.
func (s *Endpoints) RecordSuccess(_ context.Context, project, id string, at time.Time) (webhook.Endpoint, error) {
	return s.update("RecordSuccess", project, id, func(ep *webhook.Endpoint) {
		ep.LastSuccessAt, ep.ConsecutiveFailures, ep.FailingSince = ids.Timestamp(at), 0, ""
	})
}

// RecordFailure implements webhook.Endpoints.
func (s *Endpoints) RecordFailure(_ context.Context, project, id string, at time.Time) (webhook.Endpoint, error) {
	return s.update("RecordFailure", project, id, func(ep *webhook.Endpoint) {
		ep.LastFailureAt = ids.Timestamp(at)
		if ep.FailingSince == "" {
			ep.FailingSince = ids.Timestamp(at)
		}
		ep.ConsecutiveFailures++
	})
}

// Disable implements webhook.Endpoints.
func (s *Endpoints) Disable(_ context.Context, project, id, reason string, at time.Time) error {
	_, err := s.update("Disable", project, id, func(ep *webhook.Endpoint) {
		if ep.Enabled {
			ep.Enabled, ep.DisabledReason, ep.DisabledAt, ep.UpdatedAt = false, reason, ids.Timestamp(at), ids.Timestamp(at)
		}
	})
	if errors.Is(err, webhook.ErrEndpointNotFound) {
		return nil
	}
	return err
}

// WriteFlow implements webhook.Endpoints.
func (s *Endpoints) WriteFlow(_ context.Context, project, id string, seen int64, next *webhook.Flow, take webhook.Leases, now time.Time) (webhook.Endpoint, bool, error) {
	if err := s.take("WriteFlow"); err != nil {
		return webhook.Endpoint{}, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ep, ok := s.items[deliveryKey(project, id)]
	if !ok {
		return webhook.Endpoint{}, false, webhook.ErrEndpointNotFound
	}
	if next != nil && ep.Flow.Version != seen {
		return clone(ep), false, nil
	}
	for slot := range take {
		if exp, held := ep.Leases[slot]; held && exp >= now.UnixMilli() {
			return clone(ep), false, nil
		}
	}
	if next != nil {
		ep.Flow = *next
	}
	if len(take) > 0 {
		leases := maps.Clone(ep.Leases)
		if leases == nil {
			leases = webhook.Leases{}
		}
		maps.Copy(leases, take)
		ep.Leases = leases
	}
	s.items[deliveryKey(project, id)] = ep
	return clone(ep), true, nil
}

// TakeNumbers implements webhook.Endpoints.
func (s *Endpoints) TakeNumbers(_ context.Context, project, id string, n int, after int64) (webhook.Endpoint, int64, error) {
	if err := s.take("TakeNumbers"); err != nil {
		return webhook.Endpoint{}, 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ep, ok := s.items[deliveryKey(project, id)]
	if !ok {
		return webhook.Endpoint{}, 0, webhook.ErrEndpointNotFound
	}
	first := max(ep.Taken, after) + 1
	ep.Taken = first + int64(n) - 1
	s.items[deliveryKey(project, id)] = ep
	return clone(ep), first, nil
}

// Release implements webhook.Endpoints.
func (s *Endpoints) Release(_ context.Context, project, id string, leases webhook.Leases) error {
	if err := s.take("Release"); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ep, ok := s.items[deliveryKey(project, id)]
	if !ok {
		return nil
	}
	kept := maps.Clone(ep.Leases)
	for slot, v := range leases {
		if kept[slot] == v {
			delete(kept, slot)
		}
	}
	ep.Leases = kept
	s.items[deliveryKey(project, id)] = ep
	return nil
}

func clone(ep webhook.Endpoint) webhook.Endpoint {
	ep.Leases = maps.Clone(ep.Leases)
	return ep
}

// Queue is an in-memory webhook.Queue.
type Queue struct {
	Faults
	mu   sync.Mutex
	sent []webhook.Message
	// deferred are the messages put back with a delay (also in sent).
	deferred []webhook.Deferred
	dead     []webhook.Message
}

var _ webhook.Queue = (*Queue)(nil)

// Enqueue implements webhook.Queue; a fault fails the whole call.
func (q *Queue) Enqueue(_ context.Context, msgs []webhook.Message) []error {
	errs := make([]error, len(msgs))
	if err := q.take("Enqueue"); err != nil {
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sent = append(q.sent, msgs...)
	return errs
}

// Defer implements webhook.Queue: the messages are among Sent at once
// (the fake does not hold them back) and among Deferred with their delays;
// a fault fails the whole call.
func (q *Queue) Defer(_ context.Context, msgs []webhook.Deferred) []error {
	errs := make([]error, len(msgs))
	if err := q.take("Defer"); err != nil {
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.deferred = append(q.deferred, msgs...)
	for _, m := range msgs {
		q.sent = append(q.sent, m.Message)
	}
	return errs
}

// Deferred returns the messages deferred so far, in order.
func (q *Queue) Deferred() []webhook.Deferred {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.deferred)
}

// DeadLetter implements webhook.Queue.
func (q *Queue) DeadLetter(_ context.Context, m webhook.Message) error {
	if err := q.take("DeadLetter"); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.dead = append(q.dead, m)
	return nil
}

// Sent returns what was enqueued, in order.
func (q *Queue) Sent() []webhook.Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.sent)
}

// Dead returns what was dead-lettered, in order.
func (q *Queue) Dead() []webhook.Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.dead)
}

// Scheduled is one schedule a Scheduler holds.
type Scheduled struct {
	Message webhook.Message
	At      time.Time
}

// Scheduler is an in-memory webhook.Scheduler: one schedule per delivery,
// round and attempt.
type Scheduler struct {
	Faults
	mu    sync.Mutex
	items []Scheduled
}

var _ webhook.Scheduler = (*Scheduler)(nil)

// Schedule implements webhook.Scheduler.
func (s *Scheduler) Schedule(_ context.Context, m webhook.Message, at time.Time) error {
	if err := s.take("Schedule"); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.items {
		if x.Message.DeliveryID == m.DeliveryID && x.Message.Round == m.Round && x.Message.Attempt == m.Attempt {
			return nil
		}
	}
	s.items = append(s.items, Scheduled{Message: m, At: at})
	return nil
}

// All returns the schedules, in the order they were made.
func (s *Scheduler) All() []Scheduled {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.items)
}

// DeadLetterQueue is an in-memory webhook.DeadLetters; Requeue moves a
// body to Requeued.
type DeadLetterQueue struct {
	Faults
	mu       sync.Mutex
	next     int
	letters  map[string]string // handle -> body
	order    []string
	hidden   map[string]bool
	requeued []string
}

var _ webhook.DeadLetters = (*DeadLetterQueue)(nil)

// Add puts a body on the queue.
func (q *DeadLetterQueue) Add(body string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.letters == nil {
		q.letters, q.hidden = map[string]string{}, map[string]bool{}
	}
	q.next++
	h := "h" + strconv.Itoa(q.next)
	q.letters[h] = body
	q.order = append(q.order, h)
}

// Receive implements webhook.DeadLetters.
func (q *DeadLetterQueue) Receive(_ context.Context, max int, _ time.Duration) ([]webhook.DeadLetter, error) {
	if err := q.take("Receive"); err != nil {
		return nil, err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []webhook.DeadLetter
	for _, h := range q.order {
		if len(out) == max {
			break
		}
		if body, ok := q.letters[h]; ok && !q.hidden[h] {
			q.hidden[h] = true
			out = append(out, webhook.DeadLetter{Body: body, Handle: h})
		}
	}
	return out, nil
}

// Requeue implements webhook.DeadLetters.
func (q *DeadLetterQueue) Requeue(_ context.Context, l webhook.DeadLetter) error {
	if err := q.take("Requeue"); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.requeued = append(q.requeued, l.Body)
	delete(q.letters, l.Handle)
	return nil
}

// Delete implements webhook.DeadLetters.
func (q *DeadLetterQueue) Delete(_ context.Context, l webhook.DeadLetter) error {
	if err := q.take("Delete"); err != nil {
		return err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.letters, l.Handle)
	return nil
}

// Release implements webhook.DeadLetters.
func (q *DeadLetterQueue) Release(_ context.Context, ls []webhook.DeadLetter) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, l := range ls {
		delete(q.hidden, l.Handle)
	}
	return nil
}

// Len returns how many dead letters the queue holds.
func (q *DeadLetterQueue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.letters)
}

// Requeued returns the bodies moved back to the delivery queue.
func (q *DeadLetterQueue) Requeued() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.requeued)
}

// Posted is one request a Poster received.
type Posted struct {
	URL     string
	Body    []byte
	Headers map[string]string
}

// Poster answers webhook requests with Answer (200 when nil) and records
// them.
type Poster struct {
	mu     sync.Mutex
	posted []Posted
	// Answer decides the answer to the n-th request (0-based).
	Answer func(n int, p Posted) webhook.Response
}

var _ webhook.Poster = (*Poster)(nil)

// Post implements webhook.Poster.
func (p *Poster) Post(_ context.Context, url string, body []byte, headers map[string]string) webhook.Response {
	p.mu.Lock()
	n := len(p.posted)
	req := Posted{URL: url, Body: slices.Clone(body), Headers: headers}
	p.posted = append(p.posted, req)
	answer := p.Answer
	p.mu.Unlock()
	if answer == nil {
		return webhook.Response{Status: 200}
	}
	return answer(n, req)
}

// Posted returns the requests so far.
func (p *Poster) Posted() []Posted {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.posted)
}

// Recoveries is an in-memory webhook.Recoveries: the version condition is
// checked under a lock, as DynamoDB checks it in one write. Steps are the
// redrives of every successful Save, in order; Requests the step requests
// those Saves wrote (what the stream carries to the dispatcher).
type Recoveries struct {
	Faults
	mu       sync.Mutex
	items    map[string]webhook.Recovery
	Steps    [][]webhook.Message
	Requests []webhook.DeliveryRequest
	// BeforeSave, when set, runs at the start of each Save (without the
	// lock): tests put a concurrent caller's Save there.
	BeforeSave func()
}

var _ webhook.Recoveries = (*Recoveries)(nil)

// Current implements webhook.Recoveries.
func (s *Recoveries) Current(_ context.Context, project, endpointID string) (*webhook.Recovery, error) {
	if err := s.take("Current"); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.items[project+"/"+endpointID]
	if !ok {
		return nil, nil
	}
	return &r, nil
}

// Save implements webhook.Recoveries.
func (s *Recoveries) Save(_ context.Context, r webhook.Recovery, msgs []webhook.Message) error {
	if f := s.BeforeSave; f != nil {
		s.BeforeSave = nil
		f()
	}
	if err := s.take("Save"); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := r.ProjectID + "/" + r.EndpointID
	if s.items == nil {
		s.items = map[string]webhook.Recovery{}
	}
	if cur, ok := s.items[k]; (ok && cur.Version != r.Version-1) || (!ok && r.Version != 1) {
		return webhook.ErrRecoveryRace
	}
	s.items[k] = r
	if len(msgs) > 0 {
		s.Steps = append(s.Steps, slices.Clone(msgs))
	}
	if step := r.Step(slices.Clone(msgs)); step != nil {
		s.Requests = append(s.Requests, *step)
	}
	return nil
}
