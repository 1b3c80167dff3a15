package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/admin"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
)

// WebhooksConfig sizes the delivery benchmark.
type WebhooksConfig struct {
	Events  int
	Pollers int
}

// Webhooks pushes cfg.Events events through the whole local pipeline
// (stream -> dispatch -> SQS -> deliver) to a fast local receiver, twice:
// as one project's flood (the bulk lane, whose deliveries the deliverer
// stores) and as webhook.BulkAfter events of each of many projects (the
// delivery queue, whose deliveries the dispatcher stores). It reports
// deliveries per second and DynamoDB calls per delivery and per event.
func Webhooks(ctx context.Context, endpoint string, cfg WebhooksConfig, out io.Writer) error {
	tpl, err := template.LoadRepo()
	if err != nil {
		return err
	}
	received := &webhookIDs{}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		received.add(r)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	deliverCalls, dispatchCalls := &dynamotest.Calls{}, &dynamotest.Calls{}
	rt, err := local.Start(ctx, local.Config{
		Template: tpl, DynamoDBEndpoint: endpoint, TablePrefix: dynamotest.UniquePrefix(),
		Env:          map[string]string{app.EnvAllowLoopback: "true"},
		QueuePollers: cfg.Pollers,
		Options:      []app.Option{app.WithLogger(functionLogger())},
		FunctionOptions: map[string][]app.Option{
			"DeliverFunction":  {app.WithDynamoDB(deliverCalls.Option())},
			"DispatchFunction": {app.WithDynamoDB(dispatchCalls.Option())},
		},
	})
	if err != nil {
		return err
	}
	defer rt.Close()
	s := store.New(rt.DynamoDB(), dynamotest.TablesOf(rt.Tables()))
	projects := func(n int) ([]string, error) {
		var ids []string
		for i := range n {
			seeded, err := seedProject(ctx, rt, fmt.Sprintf("bench-%d", i))
			if err != nil {
				return nil, err
			}
			if err := createEndpoint(rt.URL, seeded.APIKey, receiver.URL+"/hooks"); err != nil {
				return nil, err
			}
			ids = append(ids, seeded.Project.ID)
		}
		return ids, nil
	}
	flood, err := projects(1)
	if err != nil {
		return err
	}
	many, err := projects((cfg.Events + webhook.BulkAfter - 1) / webhook.BulkAfter)
	if err != nil {
		return err
	}

	fprintf(out, "\n## Webhook delivery: %d events through stream -> dispatch -> SQS -> deliver, %d deliver pollers (x10 messages)\n\n", cfg.Events, cfg.Pollers)
	fprintf(out, "| measure | one project's flood (bulk lane) | %d events of each of %d projects (delivery queue) |\n| --- | --- | --- |\n", webhook.BulkAfter, len(many))
	type result struct{ rate, deliver, dispatch, share, written, elapsed string }
	run := func(projects []string) (result, error) {
		received.reset()
		deliverCalls.Reset()
		dispatchCalls.Reset()
		per := (cfg.Events + len(projects) - 1) / len(projects)
		start, cpu := time.Now(), sampleCPU()
		left := cfg.Events
		for _, p := range projects {
			if err := writeEvents(ctx, s, p, min(per, left)); err != nil {
				return result{}, err
			}
			left -= min(per, left)
		}
		written := time.Since(start)
		for received.count() < int64(cfg.Events) {
			if time.Since(start) > 10*time.Minute {
				return result{}, fmt.Errorf("only %d of %d webhooks arrived in 10 minutes", received.count(), cfg.Events)
			}
			time.Sleep(20 * time.Millisecond)
		}
		elapsed, share := time.Since(start), cpu.share()
		// Let the last attempts be recorded before counting calls.
		time.Sleep(2 * time.Second)
		return result{
			rate:     fmt.Sprintf("%.0f", float64(cfg.Events)/elapsed.Seconds()),
			deliver:  fmt.Sprintf("%.2f (%s)", float64(len(deliverCalls.Ops()))/float64(cfg.Events), countOps(deliverCalls.Ops())),
			dispatch: fmt.Sprintf("%.2f (%s)", float64(len(dispatchCalls.Ops()))/float64(cfg.Events), countOps(dispatchCalls.Ops())),
			share:    fmt.Sprintf("%.0f%%", share*100),
			written:  written.Round(time.Millisecond).String(), elapsed: elapsed.Round(time.Millisecond).String(),
		}, nil
	}
	a, err := run(flood)
	if err != nil {
		return err
	}
	b, err := run(many)
	if err != nil {
		return err
	}
	for _, row := range [][3]string{
		{"deliveries per second (end to end)", a.rate, b.rate},
		{"DynamoDB calls per delivery, deliver function", a.deliver, b.deliver},
		{"DynamoDB calls per event, dispatch function", a.dispatch, b.dispatch},
		{"events written in (50 per transaction) / all webhooks received after the first write", a.written + " / " + a.elapsed, b.written + " / " + b.elapsed},
		{"share of the machine's busy CPU used by the functions + runtime with its SQS and Scheduler (the rest is DynamoDB Local)", a.share, b.share},
	} {
		fprintf(out, "| %s | %s | %s |\n", row[0], row[1], row[2])
	}
	return nil
}

// webhookIDs counts the distinct webhooks a receiver got (by their
// Webhook-Id, the event's id, and the path of the endpoint they came to),
// not its requests: a webhook sent twice (a duplicate the receiver
// de-duplicates) is one.
type webhookIDs struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (w *webhookIDs) add(r *http.Request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	w.seen[r.URL.Path+" "+r.Header.Get(webhook.HeaderID)] = true
}

func (w *webhookIDs) count() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return int64(len(w.seen))
}

func (w *webhookIDs) reset() {
	w.mu.Lock()
	w.seen = nil
	w.mu.Unlock()
}

func countOps(ops []string) string {
	counts := map[string]int{}
	var order []string
	for _, o := range ops {
		if counts[o] == 0 {
			order = append(order, o)
		}
		counts[o]++
	}
	var parts []string
	for _, o := range order {
		parts = append(parts, fmt.Sprintf("%s %d", o, counts[o]))
	}
	return strings.Join(parts, ", ")
}

// seedProject creates a project and its API key through the admin
// function.
func seedProject(ctx context.Context, rt *local.Runtime, name string) (admin.Response, error) {
	var seeded admin.Response
	raw, err := rt.Invoke(ctx, "AdminFunction", admin.Request{Action: "create_project", Name: name})
	if err != nil {
		return seeded, err
	}
	return seeded, jsonUnmarshal(raw, &seeded)
}

// createEndpoint subscribes url to every event type through the API.
func createEndpoint(base, key, url string) error {
	status, err := post(base, key, "/public/v1/webhook-endpoints", uuid.NewString(), `{"url":"`+url+`","events":["*"]}`)
	if err != nil {
		return err
	}
	if status != http.StatusCreated {
		return fmt.Errorf("create endpoint: %d", status)
	}
	return nil
}

// post sends a JSON body with an Idempotency-Key and returns the status.
func post(base, key, path, idempotencyKey, body string) (int, error) {
	for try := 1; ; try++ {
		status, retryAfter, again, err := postOnce(base, key, path, idempotencyKey, body)
		if err != nil || !again || try == postTries {
			return status, err
		}
		// As the SDKs do: the same key again, after the answer's Retry-After.
		time.Sleep(min(max(retryAfter, 100*time.Millisecond), 5*time.Second))
	}
}

// postTries bounds the tries of one POST: a 503 (or 429, or the key still
// in progress) is retried with the same idempotency key, as the SDKs do,
// so that one overloaded moment does not abort a benchmark.
const postTries = 5

// postOnce sends one try; again reports an answer the SDKs retry with the
// same key (503, 429, 409 IDEMPOTENCY_KEY_IN_PROGRESS), after retryAfter.
func postOnce(base, key, path, idempotencyKey, body string) (status int, retryAfter time.Duration, again bool, err error) {
	req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", idempotencyKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0, false, err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	seconds, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	again = resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusTooManyRequests ||
		(resp.StatusCode == http.StatusConflict && strings.Contains(string(b), "IDEMPOTENCY_KEY_IN_PROGRESS"))
	return resp.StatusCode, time.Duration(seconds) * time.Second, again, nil
}

// writeEvents writes n message.sent events to the outbox, 50 per
// transaction, as the API would.
func writeEvents(ctx context.Context, s *store.Store, project string, n int) error {
	for i := 0; i < n; i += 50 {
		var plan store.Plan
		for j := i; j < min(i+50, n); j++ {
			if err := s.AddEvent(&plan, store.NewEvent(project, domain.EventMessageSent, []byte(fmt.Sprintf(`{"id":"msg_%d"}`, j)), time.Now()), ""); err != nil {
				return err
			}
		}
		if err := s.Commit(ctx, plan); err != nil {
			return err
		}
	}
	return nil
}
