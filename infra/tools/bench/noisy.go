package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
)

// NoisyConfig sizes the noisy-neighbour benchmark.
type NoisyConfig struct {
	// Flood is how many events project A sends to its slow receiver, which
	// takes Slow to answer each request.
	Flood int
	Slow  time.Duration
	// Quiet is how many events project B sends to its fast receiver, one
	// every QuietEvery.
	Quiet      int
	QuietEvery time.Duration
	Pollers    int
}

// NoisyBound is issue 23's bound: B's p99 with A's flood at most this
// many times B's p99 alone.
const NoisyBound = 1.5

// Noisy measures how much one project's flood delays another project's
// webhooks: project B's enqueue-to-delivery time (from its delivery's
// created_at, which the dispatcher writes just before it enqueues, to the
// request's arrival at B's receiver), first with B alone, then while
// project A's flood to a slow receiver fills the delivery queue, in one
// run of the local pipeline (whose SQS serves MessageGroupId = project
// as SQS fair queues do). It also times every DynamoDB call of the
// dispatch and deliver functions in both phases: the database's share.
func Noisy(ctx context.Context, endpoint string, cfg NoisyConfig, out io.Writer) error {
	tpl, err := template.LoadRepo()
	if err != nil {
		return err
	}
	var floodArrived atomic.Int64
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(cfg.Slow)
		floodArrived.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer slow.Close()
	fast := &arrivals{}
	fastServer := httptest.NewServer(fast)
	defer fastServer.Close()
	calls := &callTimes{}
	rt, err := local.Start(ctx, local.Config{
		Template: tpl, DynamoDBEndpoint: endpoint, TablePrefix: dynamotest.UniquePrefix(),
		Env:          map[string]string{app.EnvAllowLoopback: "true"},
		QueuePollers: cfg.Pollers,
		Options:      []app.Option{app.WithLogger(functionLogger())},
		FunctionOptions: map[string][]app.Option{
			"DispatchFunction": {app.WithDynamoDB(calls.option())},
			"DeliverFunction":  {app.WithDynamoDB(calls.option())},
		},
	})
	if err != nil {
		return err
	}
	defer rt.Close()
	s := store.New(rt.DynamoDB(), dynamotest.TablesOf(rt.Tables()))
	a, err := benchProject(ctx, rt, s, "noisy-a", slow.URL)
	if err != nil {
		return err
	}
	b, err := benchProject(ctx, rt, s, "quiet-b", fastServer.URL)
	if err != nil {
		return err
	}

	calls.watch(b.project)
	fprintf(out, "\n## Noisy neighbour: project A floods %d events to a receiver that takes %s per request; project B sends %d (one per %s) to a fast one; %d deliver pollers (x10 messages)\n\n",
		cfg.Flood, cfg.Slow, cfg.Quiet, cfg.QuietEvery, cfg.Pollers)
	quiet := func() (latencies, error) {
		fast.reset()
		if err := paceEvents(ctx, s, b.project, cfg.Quiet, cfg.QuietEvery); err != nil {
			return latencies{}, err
		}
		if err := waitFor(ctx, 15*time.Minute, func() bool { return fast.count() >= cfg.Quiet }); err != nil {
			return latencies{}, fmt.Errorf("project B's webhooks: %w", err)
		}
		return fast.latencies(ctx, s, b)
	}
	// A first round warms DynamoDB Local's JVM and the pipeline up; it is
	// not counted.
	if _, err := quiet(); err != nil {
		return err
	}
	aloneFrom := time.Now()
	alone, err := quiet()
	if err != nil {
		return err
	}
	start := time.Now()
	_, bCallsAlone := calls.between(aloneFrom, start)
	if err := writeEvents(ctx, s, a.project, cfg.Flood); err != nil {
		return err
	}
	fast.watch(func() (int, error) { return rt.QueueDepth(ctx, "BulkDeliveryQueue") })
	crowded, err := quiet()
	if err != nil {
		return err
	}
	crowdedEnd := time.Now()
	callsCrowded, bCallsCrowded := calls.between(start, crowdedEnd)
	floodLeft := int64(cfg.Flood) - floodArrived.Load()
	if err := waitFor(ctx, 30*time.Minute, func() bool { return floodArrived.Load() >= int64(cfg.Flood) }); err != nil {
		return fmt.Errorf("project A's webhooks: %w", err)
	}
	floodTime := time.Since(start)

	p99Alone, p99Crowded := percentile(alone.queued, 99), percentile(crowded.queued, 99)
	fprintf(out, "| project B's webhooks | stream: event to dispatch p50 ms | p99 ms | enqueue to delivery p50 ms | p99 ms | event to delivery p50 ms | p99 ms |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, row := range []struct {
		name string
		l    latencies
	}{{"B alone", alone}, {"B during A's flood", crowded}} {
		fprintf(out, "| %s | %s | %s | %s | %s | %s | %s |\n", row.name, ms(percentile(row.l.stream, 50)), ms(percentile(row.l.stream, 99)),
			ms(percentile(row.l.queued, 50)), ms(percentile(row.l.queued, 99)), ms(percentile(row.l.whole, 50)), ms(percentile(row.l.whole, 99)))
	}
	verdict := noisyVerdict(alone, crowded, cfg.Quiet, cfg.QuietEvery)
	fprintf(out, "\nStream: from the event's created_at to its delivery's (the dispatcher writes it as it dispatches); enqueue to delivery: from the delivery's created_at to the request's arrival; event to delivery: from the event's created_at.\n")
	fprintf(out, "p99 event to dispatch, with A's flood / alone: %s (+%s ms).\n", ratio(float64(percentile(crowded.stream, 99)), float64(percentile(alone.stream, 99))), ms(percentile(crowded.stream, 99)-percentile(alone.stream, 99)))
	fprintf(out, "p99 enqueue to delivery, with A's flood / alone: %s (bound %.1fx: %s).\n", ratio(float64(p99Crowded), float64(p99Alone)), NoisyBound, verdict)
	fprintf(out, "\n| DynamoDB calls of the dispatch and deliver functions | calls | per second | p50 ms | p99 ms |\n| --- | --- | --- | --- | --- |\n")
	for _, row := range []struct {
		name  string
		calls []time.Duration
		took  time.Duration
	}{
		{"B's, B alone", bCallsAlone, start.Sub(aloneFrom)}, {"B's, during A's flood", bCallsCrowded, crowdedEnd.Sub(start)},
		{"all, during A's flood", callsCrowded, crowdedEnd.Sub(start)},
	} {
		fprintf(out, "| %s | %d | %.0f | %s | %s |\n", row.name, len(row.calls), float64(len(row.calls))/row.took.Seconds(), ms(percentile(row.calls, 50)), ms(percentile(row.calls, 99)))
	}
	fprintf(out, "\n")
	fprintf(out, "Bulk lane depth (A's backlog) when B's first webhook of the flood phase arrived: %d; A's webhooks not yet delivered when B's last arrived: %d of %d; A's flood delivered %s after its first write.\n",
		fast.depth, floodLeft, cfg.Flood, floodTime.Round(time.Second))
	return nil
}

// noisyVerdict judges B's p99 with A's flood against B's p99 alone. The
// ratio means something only if B alone is a baseline: measured (above
// zero) and not queued behind itself (its p99 below its own pace, one
// event per every); otherwise there is no verdict, whatever the ratio.
func noisyVerdict(alone, crowded latencies, quiet int, every time.Duration) string {
	p99Alone, p99Crowded := percentile(alone.queued, 99), percentile(crowded.queued, 99)
	switch {
	case len(alone.queued) != quiet || len(crowded.queued) != quiet:
		return fmt.Sprintf("no verdict: the baseline is broken (%d and %d of B's %d webhooks measured)", len(alone.queued), len(crowded.queued), quiet)
	case p99Alone <= 0 || p99Alone >= every:
		return fmt.Sprintf("no verdict: the baseline is broken, B alone's p99 %s ms is not within (0, %s), its own pace", ms(p99Alone), every)
	case float64(p99Crowded) > NoisyBound*float64(p99Alone):
		return "NOT met"
	}
	return "met"
}

// callTimes records how long each DynamoDB call of a client took, when
// it started, and whether it is of the project named mine (its input
// names it): the database's share of a phase's latency.
type callTimes struct {
	mu    sync.Mutex
	mine  string
	start []time.Time
	took  []time.Duration
	ofMe  []bool
}

func (c *callTimes) watch(project string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mine = project
}

func (c *callTimes) option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(middleware.InitializeMiddlewareFunc("bench.calltimes", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				t0 := time.Now()
				out, md, err := next.HandleInitialize(ctx, in)
				took := time.Since(t0)
				input, _ := json.Marshal(in.Parameters)
				c.mu.Lock()
				c.start, c.took = append(c.start, t0), append(c.took, took)
				c.ofMe = append(c.ofMe, c.mine != "" && bytes.Contains(input, []byte(c.mine)))
				c.mu.Unlock()
				return out, md, err
			}), middleware.Before)
		})
	}
}

// between returns the durations of the calls that started in [from, to),
// sorted: all of them, and those of the watched project.
func (c *callTimes) between(from, to time.Time) (all, mine []time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, t := range c.start {
		if !t.Before(from) && t.Before(to) {
			all = append(all, c.took[i])
			if c.ofMe[i] {
				mine = append(mine, c.took[i])
			}
		}
	}
	slices.Sort(all)
	slices.Sort(mine)
	return all, mine
}

// benchEndpoint is a project with one endpoint subscribed to everything.
type benchEndpoint struct{ project, endpoint string }

func benchProject(ctx context.Context, rt *local.Runtime, s *store.Store, name, receiver string) (benchEndpoint, error) {
	seeded, err := seedProject(ctx, rt, name)
	if err != nil {
		return benchEndpoint{}, err
	}
	if err := createEndpoint(rt.URL, seeded.APIKey, receiver+"/hooks"); err != nil {
		return benchEndpoint{}, err
	}
	eps, err := s.Endpoints().ForProject(ctx, seeded.Project.ID)
	if err != nil || len(eps) != 1 {
		return benchEndpoint{}, fmt.Errorf("the endpoint of %s: %d, %v", name, len(eps), err)
	}
	return benchEndpoint{project: seeded.Project.ID, endpoint: eps[0].ID}, nil
}

// paceEvents writes n events of a project, one every pace.
func paceEvents(ctx context.Context, s *store.Store, project string, n int, pace time.Duration) error {
	next := time.Now()
	for range n {
		time.Sleep(time.Until(next))
		next = next.Add(pace)
		if err := writeEvents(ctx, s, project, 1); err != nil {
			return err
		}
	}
	return nil
}

func waitFor(ctx context.Context, limit time.Duration, done func() bool) error {
	for deadline := time.Now().Add(limit); !done(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("not all arrived within %s", limit)
		}
	}
	return nil
}

// arrivals is a receiver that notes when each event's webhook first
// arrived and the event's created_at, and optionally something (the
// queue depth) at the first one.
type arrivals struct {
	mu    sync.Mutex
	at    map[string][2]time.Time // by webhook-id (the event id): arrival, event created_at
	probe func() (int, error)
	depth int
}

func (a *arrivals) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	var ev struct {
		CreatedAt time.Time `json:"created_at"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = jsonUnmarshal(body, &ev)
	a.mu.Lock()
	if _, seen := a.at[r.Header.Get(webhook.HeaderID)]; !seen {
		a.at[r.Header.Get(webhook.HeaderID)] = [2]time.Time{now, ev.CreatedAt}
		if len(a.at) == 1 && a.probe != nil {
			a.depth, _ = a.probe()
		}
	}
	a.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (a *arrivals) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.at = map[string][2]time.Time{}
}

func (a *arrivals) watch(probe func() (int, error)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.probe = probe
}

func (a *arrivals) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.at)
}

// latencies are one phase's times, sorted: to arrival from the
// delivery's created_at (queued: the queue's wait and the deliver
// function's time) and from the event's (whole); and the stream stage's,
// from the event's created_at to its delivery's (stream: the stream's
// wait for the dispatch invocation that carried it, and the dispatcher's
// time up to the delivery's creation).
type latencies struct{ queued, whole, stream []time.Duration }

// latencies reads each arrived webhook's delivery for its created_at.
func (a *arrivals) latencies(ctx context.Context, s *store.Store, ep benchEndpoint) (latencies, error) {
	a.mu.Lock()
	at := maps.Clone(a.at)
	a.mu.Unlock()
	var out latencies
	for event, t := range at {
		id, err := webhook.DeliveryID(event, ep.endpoint)
		if err != nil {
			return latencies{}, err
		}
		d, err := s.Deliveries().Get(ctx, ep.project, id)
		if err != nil {
			return latencies{}, err
		}
		created, err := time.Parse(time.RFC3339Nano, d.CreatedAt)
		if err != nil {
			return latencies{}, err
		}
		out.queued = append(out.queued, t[0].Sub(created))
		out.whole = append(out.whole, t[0].Sub(t[1]))
		out.stream = append(out.stream, created.Sub(t[1]))
	}
	slices.Sort(out.queued)
	slices.Sort(out.whole)
	slices.Sort(out.stream)
	return out, nil
}

// percentile of sorted durations (nearest rank).
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[(len(sorted)*p+99)/100-1]
}

// noisyVerdict judges B's p99 with A's flood against B's alone, and
// refuses to call the bound met on a broken baseline: a phase that lacks
// some of B's webhooks, or a baseline without a latency, compares nothing.
