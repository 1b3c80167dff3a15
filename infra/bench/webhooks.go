package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	"github.com/botix/public-api/infra/dynamotest"
	"github.com/botix/public-api/infra/local"
	"github.com/botix/public-api/infra/template"
	"github.com/botix/public-api/internal/admin"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/store"
)

// WebhooksConfig sizes the delivery benchmark.
type WebhooksConfig struct {
	Events  int
	Pollers int
}

// Webhooks pushes cfg.Events events through the whole local pipeline
// (stream -> dispatch -> SQS -> deliver) to a fast local receiver and
// reports deliveries per second and DynamoDB calls per delivery.
func Webhooks(ctx context.Context, endpoint string, cfg WebhooksConfig, out io.Writer) error {
	tpl, err := template.LoadRepo()
	if err != nil {
		return err
	}
	var received atomic.Int64
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		received.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	deliverCalls, dispatchCalls := &dynamotest.Calls{}, &dynamotest.Calls{}
	rt, err := local.Start(ctx, local.Config{
		Template: tpl, DynamoDBEndpoint: endpoint, TablePrefix: dynamotest.UniquePrefix(),
		Env:          map[string]string{app.EnvAllowLoopback: "true"},
		QueuePollers: cfg.Pollers,
		Options:      []app.Option{app.WithLogger(slog.New(slog.DiscardHandler))},
		FunctionOptions: map[string][]app.Option{
			"DeliverFunction":  {app.WithDynamoDB(deliverCalls.Option())},
			"DispatchFunction": {app.WithDynamoDB(dispatchCalls.Option())},
		},
	})
	if err != nil {
		return err
	}
	defer rt.Close()
	seeded, err := seedProject(ctx, rt, "bench")
	if err != nil {
		return err
	}
	project := seeded.Project.ID
	if err := createEndpoint(rt.URL, seeded.APIKey, receiver.URL+"/hooks"); err != nil {
		return err
	}
	s := store.New(rt.DynamoDB(), dynamotest.TablesOf(rt.Tables()))

	fprintf(out, "\n## Webhook delivery: %d events through stream -> dispatch -> SQS -> deliver, %d deliver pollers (x10 messages)\n\n", cfg.Events, cfg.Pollers)
	start, cpu := time.Now(), sampleCPU()
	if err := writeEvents(ctx, s, project, cfg.Events); err != nil {
		return err
	}
	written := time.Since(start)
	for received.Load() < int64(cfg.Events) {
		if time.Since(start) > 10*time.Minute {
			return fmt.Errorf("only %d of %d webhooks arrived in 10 minutes", received.Load(), cfg.Events)
		}
		time.Sleep(20 * time.Millisecond)
	}
	elapsed, share := time.Since(start), cpu.share()
	// Let the last attempts be recorded before counting calls.
	time.Sleep(2 * time.Second)
	dc := countOps(deliverCalls.Ops())
	fprintf(out, "Events written in %s (50 per transaction); all %d webhooks received %s after the first write.\n\n", written.Round(time.Millisecond), cfg.Events, elapsed.Round(time.Millisecond))
	fprintf(out, "| measure | value |\n| --- | --- |\n")
	fprintf(out, "| deliveries per second (end to end) | %.0f |\n", float64(cfg.Events)/elapsed.Seconds())
	fprintf(out, "| DynamoDB calls per delivery, deliver function | %.2f (%s) |\n", float64(len(deliverCalls.Ops()))/float64(cfg.Events), dc)
	fprintf(out, "| DynamoDB calls per event, dispatch function | %.2f (%s) |\n", float64(len(dispatchCalls.Ops()))/float64(cfg.Events), countOps(dispatchCalls.Ops()))
	fprintf(out, "| share of the machine's busy CPU used by the functions + runtime with its SQS and Scheduler (the rest is DynamoDB Local) | %.0f%% |\n", share*100)
	return nil
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
	status, err := post(base, key, "/public/v1/webhook-endpoints", "01JDQ7X3ZV8N5W2K4R6T9Y1B3Z", `{"url":"`+url+`","events":["*"]}`)
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
	req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", idempotencyKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
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
