package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
)

// FlowConfig sizes the flow-control benchmarks.
type FlowConfig struct {
	// Adaptive is how many webhooks go to a receiver that takes
	// AcceptRate requests per second and answers 429 beyond (0: that
	// benchmark is skipped).
	Adaptive   int
	AcceptRate int
	// Recovered is how many dead deliveries one recover call sends to a
	// receiver that takes Latency per request, through MaxConcurrency (0:
	// skipped).
	Recovered      int
	Latency        time.Duration
	MaxConcurrency int
	Pollers        int
}

// The bounds of issue 23: after the first AdaptiveSettle, fewer than
// AdaptiveBound of the attempts to the rate-limited receiver get a 429;
// DynamoDB calls per delivery at most CallsBound.
const (
	AdaptiveSettle = 10 * time.Second
	AdaptiveBound  = 0.05
	CallsBound     = 3.0
)

// Flow measures flow control end to end, in the local pipeline: how fast
// the deliverer settles below a receiver's own rate limit from its 429s
// alone, and whether an endpoint's max_concurrency holds at the receiver
// during a recovery that queues everything at once.
func Flow(ctx context.Context, endpoint string, cfg FlowConfig, out io.Writer) error {
	tpl, err := template.LoadRepo()
	if err != nil {
		return err
	}
	if cfg.Adaptive > 0 {
		if err := adaptive(ctx, endpoint, tpl, cfg, out); err != nil {
			return err
		}
	}
	if cfg.Recovered == 0 {
		return nil
	}
	return concurrency(ctx, endpoint, tpl, cfg, out)
}

// flowRuntime is a local runtime whose deliver function's DynamoDB calls
// are counted.
func flowRuntime(ctx context.Context, endpoint string, tpl *template.Template, pollers int, params map[string]string) (*local.Runtime, *dynamotest.Calls, error) {
	calls := &dynamotest.Calls{}
	rt, err := local.Start(ctx, local.Config{
		Template: tpl, DynamoDBEndpoint: endpoint, TablePrefix: dynamotest.UniquePrefix(),
		Env: map[string]string{app.EnvAllowLoopback: "true"}, Parameters: params, QueuePollers: pollers,
		Options:         []app.Option{app.WithLogger(functionLogger())},
		FunctionOptions: map[string][]app.Option{"DeliverFunction": {app.WithDynamoDB(calls.Option())}},
	})
	return rt, calls, err
}

// rateReceiver takes limit requests in any second and answers the rest
// 429 with Retry-After: 1; it records when each answer was given.
type rateReceiver struct {
	limit    int
	mu       sync.Mutex
	accepted []time.Time
	answers  []answer
}

type answer struct {
	at     time.Time
	status int
}

func (rr *rateReceiver) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	rr.mu.Lock()
	now := time.Now()
	for len(rr.accepted) > 0 && now.Sub(rr.accepted[0]) >= time.Second {
		rr.accepted = rr.accepted[1:]
	}
	status := http.StatusNoContent
	if len(rr.accepted) >= rr.limit {
		status = http.StatusTooManyRequests
	} else {
		rr.accepted = append(rr.accepted, now)
	}
	rr.answers = append(rr.answers, answer{now, status})
	rr.mu.Unlock()
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(status)
}

func (rr *rateReceiver) delivered() int {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	n := 0
	for _, a := range rr.answers {
		if a.status != http.StatusTooManyRequests {
			n++
		}
	}
	return n
}

func adaptive(ctx context.Context, endpoint string, tpl *template.Template, cfg FlowConfig, out io.Writer) error {
	rr := &rateReceiver{limit: cfg.AcceptRate}
	srv := httptest.NewServer(rr)
	defer srv.Close()
	rt, calls, err := flowRuntime(ctx, endpoint, tpl, cfg.Pollers, nil)
	if err != nil {
		return err
	}
	defer rt.Close()
	s := store.New(rt.DynamoDB(), dynamotest.TablesOf(rt.Tables()))
	ep, err := benchProject(ctx, rt, s, "adaptive", srv.URL)
	if err != nil {
		return err
	}
	calls.Reset()
	if err := writeEvents(ctx, s, ep.project, cfg.Adaptive); err != nil {
		return err
	}
	if err := waitFor(ctx, 20*time.Minute, func() bool { return rr.delivered() >= cfg.Adaptive }); err != nil {
		return fmt.Errorf("adaptive: %w", err)
	}
	time.Sleep(2 * time.Second) // the last attempts recorded
	rr.mu.Lock()
	answers := append([]answer(nil), rr.answers...)
	rr.mu.Unlock()
	first := answers[0].at
	var early, late, early429, late429 int
	for _, a := range answers {
		throttled := a.status == http.StatusTooManyRequests
		if a.at.Sub(first) < AdaptiveSettle {
			early++
			if throttled {
				early429++
			}
			continue
		}
		late++
		if throttled {
			late429++
		}
	}
	dead, err := countStatus(ctx, s, ep, webhook.StatusDead)
	if err != nil {
		return err
	}
	share := float64(late429) / float64(max(late, 1))
	fprintf(out, "\n## Flow control: a receiver that takes %d requests per second and answers 429 (Retry-After: 1) beyond; %d webhooks, no limits set on the endpoint; %d deliver pollers\n\n", cfg.AcceptRate, cfg.Adaptive, cfg.Pollers)
	fprintf(out, "| measure | value |\n| --- | --- |\n")
	fprintf(out, "| attempts in the first %s / of them 429 | %d / %d |\n", AdaptiveSettle, early, early429)
	fprintf(out, "| attempts after it / of them 429 | %d / %d (%.1f%%; bound < %.0f%%: %s) |\n", late, late429, share*100, AdaptiveBound*100, verdict(share < AdaptiveBound))
	fprintf(out, "| deliveries delivered / dead | %d / %d |\n", cfg.Adaptive, dead)
	fprintf(out, "| delivered per second, first request to last | %.1f (the receiver takes %d) |\n", float64(cfg.Adaptive)/answers[len(answers)-1].at.Sub(first).Seconds(), cfg.AcceptRate)
	perDelivery := float64(len(calls.Ops())) / float64(cfg.Adaptive)
	fprintf(out, "| DynamoDB calls per delivery, deliver function | %.2f (%s; bound %.0f: %s) |\n", perDelivery, countOps(calls.Ops()), CallsBound, verdict(perDelivery <= CallsBound))
	return nil
}

// inFlight is a slow receiver that records the most requests it had in
// flight at once.
type inFlight struct {
	latency        time.Duration
	fail           atomic.Bool
	now, most, got atomic.Int64
}

func (f *inFlight) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	if f.fail.Load() {
		w.WriteHeader(http.StatusBadRequest) // dead at once
		return
	}
	n := f.now.Add(1)
	for m := f.most.Load(); n > m && !f.most.CompareAndSwap(m, n); m = f.most.Load() {
	}
	time.Sleep(f.latency)
	f.now.Add(-1)
	f.got.Add(1)
	w.WriteHeader(http.StatusNoContent)
}

func concurrency(ctx context.Context, endpoint string, tpl *template.Template, cfg FlowConfig, out io.Writer) error {
	rc := &inFlight{latency: cfg.Latency}
	rc.fail.Store(true)
	srv := httptest.NewServer(rc)
	defer srv.Close()
	// The recovery queues as fast as it can: the endpoint's limit is what
	// holds the receiver.
	rt, calls, err := flowRuntime(ctx, endpoint, tpl, cfg.Pollers, map[string]string{"WebhookRecoveryPace": "1000"})
	if err != nil {
		return err
	}
	defer rt.Close()
	s := store.New(rt.DynamoDB(), dynamotest.TablesOf(rt.Tables()))
	seeded, err := seedProject(ctx, rt, "concurrency")
	if err != nil {
		return err
	}
	status, err := post(rt.URL, seeded.APIKey, "/public/v1/webhook-endpoints", "01JDQ7X3ZV8N5W2K4R6T9Y1B4A",
		fmt.Sprintf(`{"url":"%s/hooks","events":["*"],"max_concurrency":%d}`, srv.URL, cfg.MaxConcurrency))
	if err != nil || status != http.StatusCreated {
		return fmt.Errorf("create endpoint: %d %v", status, err)
	}
	eps, err := s.Endpoints().ForProject(ctx, seeded.Project.ID)
	if err != nil || len(eps) != 1 {
		return fmt.Errorf("the endpoint: %v", err)
	}
	ep := benchEndpoint{project: seeded.Project.ID, endpoint: eps[0].ID}
	since := time.Now().Add(-time.Second)
	if err := writeEvents(ctx, s, ep.project, cfg.Recovered); err != nil {
		return err
	}
	if err := waitFor(ctx, 20*time.Minute, func() bool {
		n, err := countStatus(ctx, s, ep, webhook.StatusDead)
		return err == nil && n >= cfg.Recovered
	}); err != nil {
		return fmt.Errorf("concurrency: the dead deliveries: %w", err)
	}
	rc.fail.Store(false)
	calls.Reset()
	start := time.Now()
	status, err = post(rt.URL, seeded.APIKey, "/public/v1/webhook-endpoints/"+ep.endpoint+"/recover", "01JDQ7X3ZV8N5W2K4R6T9Y1B4B", `{"since":"`+since.UTC().Format(time.RFC3339Nano)+`"}`)
	if err != nil || status != http.StatusAccepted {
		return fmt.Errorf("recover: %d %v", status, err)
	}
	if err := waitFor(ctx, 30*time.Minute, func() bool {
		n, err := countStatus(ctx, s, ep, webhook.StatusDelivered)
		return err == nil && n >= cfg.Recovered
	}); err != nil {
		return fmt.Errorf("concurrency: the recovery: %w", err)
	}
	took := time.Since(start)
	time.Sleep(2 * time.Second)
	ops := calls.Ops()
	fprintf(out, "\n## Flow control: one recover call over %d dead deliveries to an endpoint with max_concurrency %d, whose receiver takes %s per request; the recovery queues as fast as it can; %d deliver pollers\n\n",
		cfg.Recovered, cfg.MaxConcurrency, cfg.Latency, cfg.Pollers)
	fprintf(out, "| measure | value |\n| --- | --- |\n")
	fprintf(out, "| most requests in flight at the receiver | %d (max_concurrency %d: %s) |\n", rc.most.Load(), cfg.MaxConcurrency, verdict(rc.most.Load() <= int64(cfg.MaxConcurrency)))
	fprintf(out, "| requests received / deliveries recovered | %d / %d |\n", rc.got.Load(), cfg.Recovered)
	fprintf(out, "| recovered in | %s (%.1f per second; the limit allows %.1f) |\n", took.Round(time.Second), float64(cfg.Recovered)/took.Seconds(), float64(cfg.MaxConcurrency)/cfg.Latency.Seconds())
	fprintf(out, "| DynamoDB calls per delivery, deliver function (recovery steps included) | %.2f (%s) |\n", float64(len(ops))/float64(cfg.Recovered), countOps(ops))
	return nil
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// countStatus counts an endpoint's deliveries in status.
func countStatus(ctx context.Context, s *store.Store, ep benchEndpoint, status webhook.Status) (int, error) {
	n := 0
	var start map[string]string
	for {
		page, err := store.ReadPage(ctx, s, store.DeliveriesQuery(ep.project, store.DeliveryFilter{EndpointID: ep.endpoint, Status: status}), start, 1000)
		if err != nil {
			return 0, err
		}
		n += len(page.Items)
		if !page.HasMore {
			return n, nil
		}
		start = page.Next
	}
}
