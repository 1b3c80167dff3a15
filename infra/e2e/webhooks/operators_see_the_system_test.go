package webhooks_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/internal/tracing"
	"github.com/botix/public-api/internal/webhook"
)

// TestOperatorsSeeTheSystem follows one integrator's request through the
// pipeline as an operator would: each metric of the embedded metric format
// is emitted when its event happens, with its value (read back as
// CloudWatch would aggregate the function's log lines, and from the local
// runtime's /_local/metrics); the request's trace id reaches the receiver
// as a W3C traceparent on the first attempt, on the Scheduler's retry and
// after a dead-letter redrive; and the Logs Insights queries of
// docs/queries.txt name fields the lines carry.
func TestOperatorsSeeTheSystem(t *testing.T) {
	t.Parallel() // its own runtime, and mostly waiting (see main_test.go)
	rt, c, s, project := webhookRuntime(t, nil)
	flaky := apitest.NewReceiver(t, status(500, 200))
	refusing := apitest.NewReceiver(t, status(401))
	slow := apitest.NewReceiver(t, slowDownOnce("1"))
	epFlaky := c.Endpoint(flaky.URL, "contact.created")
	epRefusing := c.Endpoint(refusing.URL, "contact.created")
	c.Endpoint(slow.URL, "contact.created")

	// The integrator's POST, with a trace of its own.
	caller := tracing.New()
	key := uuid.NewString()
	body := `{"phone":"+79990007001","name":"Ivan"}`
	created := apitest.Do(t, "POST", c.Base+"/public/v1/contacts", []byte(body), "Authorization", "Bearer "+c.Key,
		"Content-Type", "application/json", "Idempotency-Key", key, tracing.Header, caller.String())
	if created.Status != 201 {
		t.Fatalf("create: %d %s", created.Status, created.Body)
	}
	if r := c.Post("/public/v1/contacts", key, body); r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d %s", r.Status, r.Body)
	}
	if r := c.Post("/public/v1/contacts", key, `{"phone":"+79990007002"}`); r.ErrorCode() != "IDEMPOTENCY_KEY_REUSE_CONFLICT" {
		t.Fatalf("reuse: %d %s", r.Status, r.Body)
	}
	if r := c.Get("/public/v1/contacts?cursor_limit=1"); r.Status != 200 {
		t.Fatalf("list: %d %s", r.Status, r.Body)
	}
	if r := c.Get("/public/v1/contacts?cursor=AAAA"); r.ErrorCode() != "INVALID_CURSOR" {
		t.Fatalf("bad cursor: %d %s", r.Status, r.Body)
	}
	waitDelivery(t, s, flaky, project, epFlaky.ID, func(d webhook.Delivery) bool { return d.Status == webhook.StatusDelivered })
	dead := waitDelivery(t, s, refusing, project, epRefusing.ID, func(d webhook.Delivery) bool { return d.Status == webhook.StatusDead })
	apitest.Eventually(t, 30*time.Second, "the throttled endpoint's delivery", func() bool { return len(slow.Requests()) >= 2 })

	// The dead letter redriven: a fresh round, still in the caller's trace.
	if _, err := rt.Invoke(context.Background(), "RedriveFunction", map[string]any{"project_id": project}); err != nil {
		t.Fatal(err)
	}
	apitest.Eventually(t, 30*time.Second, "the redriven attempt", func() bool { return len(refusing.Requests()) >= 2 })
	apitest.Eventually(t, 30*time.Second, "the redriven delivery dead again", func() bool {
		d, err := s.Deliveries().Get(context.Background(), project, dead.ID)
		return err == nil && d.Status == webhook.StatusDead && d.Round == 2
	})

	t.Run("each metric is emitted when its event happens, with its value", func(t *testing.T) {
		tel := rt.Telemetry()
		for _, want := range []struct {
			name  string
			dims  map[string]string
			sum   float64
			exact bool
		}{
			{"IdempotentRequests", map[string]string{"Outcome": "captured"}, 4, false}, // three endpoints and the contact
			{"IdempotentRequests", map[string]string{"Outcome": "replayed"}, 1, true},
			{"IdempotentRequests", map[string]string{"Outcome": "reuse_conflict"}, 1, true},
			{"ListPages", map[string]string{"Mode": "cursor"}, 1, true},
			{"CursorRefusals", nil, 1, true},
			{"DeliveryAttempts", map[string]string{"Lane": "standard", "Outcome": "delivered"}, 2, true}, // flaky's retry, slow's
			{"DeliveryAttempts", map[string]string{"Lane": "standard", "Outcome": "retrying"}, 1, true},  // flaky's 500
			{"DeliveryAttempts", map[string]string{"Lane": "standard", "Outcome": "throttled"}, 1, true}, // slow's 429
			{"DeliveryAttempts", map[string]string{"Lane": "standard", "Outcome": "dead"}, 2, true},      // refusing's 401, twice
			{"RetriesScheduled", map[string]string{"Lane": "standard"}, 2, true},
			{"DeadLetters", map[string]string{"Lane": "standard"}, 2, true},
			{"Throttles", nil, 1, true},
		} {
			got, _ := tel.Sum(want.name, want.dims)
			if got != want.sum && (want.exact || got < want.sum) {
				t.Errorf("%s %v: sum %v, want %v", want.name, want.dims, got, want.sum)
			}
		}
		for _, name := range []string{"AttemptDuration", "EventToDelivery", "TimeInQueue"} {
			if _, n := tel.Sum(name, map[string]string{"Lane": "standard"}); n == 0 {
				t.Errorf("%s was never emitted", name)
			}
		}
		// The event's time to the receiver's 2xx is at least the retry's
		// wait (1 s) for the flaky endpoint, whose 2xx came on the retry.
		for _, s := range tel.Metrics() {
			if s.Name == "EventToDelivery" && s.Max < 1000 {
				t.Errorf("EventToDelivery max %v ms: the delivered retry waited at least 1000", s.Max)
			}
		}
		var page struct {
			Metrics []local.Series `json:"metrics"`
		}
		r := apitest.Do(t, "GET", rt.URL+local.MetricsPath, nil)
		if err := json.Unmarshal(r.Body, &page); err != nil || r.Status != 200 || len(page.Metrics) == 0 {
			t.Errorf("GET %s: %d %s", local.MetricsPath, r.Status, r.Body)
		}
	})

	t.Run("the request's trace reaches the receiver through a retry and a redrive", func(t *testing.T) {
		for name, reqs := range map[string][]apitest.Received{"flaky (first attempt, Scheduler retry)": flaky.Requests(), "refusing (first round, redrive)": refusing.Requests()} {
			if len(reqs) < 2 {
				t.Fatalf("%s: %d requests", name, len(reqs))
			}
			// Every attempt is a new span of the integrator's trace: from
			// its POST through the event item, the stream, the dispatcher's
			// message, the Scheduler's retry and the redrive.
			spans := map[string]bool{}
			for i, r := range reqs {
				got, ok := tracing.Parse(r.Header.Get(tracing.Header))
				if !ok || got.TraceID != caller.TraceID {
					t.Errorf("%s attempt %d: traceparent %q, want the caller's trace %s", name, i+1, r.Header.Get(tracing.Header), caller.TraceID)
				}
				if spans[got.SpanID] || got.SpanID == caller.SpanID {
					t.Errorf("%s attempt %d: span %s is not a new span", name, i+1, got.SpanID)
				}
				spans[got.SpanID] = true
			}
		}
		lines := rt.Telemetry().Lines(map[string]string{"request_id": created.Header.Get("X-Request-Id"), "msg": "request"})
		if len(lines) != 1 || lines[0]["trace_id"] != caller.TraceID {
			t.Errorf("the request's log line: %v, want trace_id %s", lines, caller.TraceID)
		}
		r := apitest.Do(t, "GET", rt.URL+local.TracePath+caller.TraceID, nil)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"CreateContactFunction"`) {
			t.Errorf("GET %s%s does not list the request's lines: %d %.500s", local.TracePath, caller.TraceID, r.Status, r.Body)
		}
	})

	t.Run("delivery lines name the project, event, delivery, attempt and its request id", func(t *testing.T) {
		lines := rt.Telemetry().Lines(map[string]string{"function": "DeliverFunction", "delivery_id": dead.ID})
		if len(lines) == 0 {
			t.Fatal("no line of the deliver function names the dead delivery")
		}
		for _, l := range lines {
			for _, k := range []string{"project_id", "delivery_id", "endpoint_id", "trace_id"} {
				if l[k] == nil || l[k] == "" {
					t.Errorf("line without %s: %v", k, l)
				}
			}
		}
		// An attempt's lines carry the request id its receiver was sent:
		// the receiver's support ticket quotes it, one query finds them.
		for _, r := range refusing.Requests() {
			id := r.Header.Get(webhook.HeaderRequestID)
			attempt := rt.Telemetry().Lines(map[string]string{"function": "DeliverFunction", "request_id": id})
			if id == "" || len(attempt) == 0 {
				t.Errorf("no line of the deliver function names the attempt's request id %q", id)
			}
			for _, l := range attempt {
				if l["delivery_id"] != dead.ID {
					t.Errorf("a line of request %s is about delivery %v, not %s", id, l["delivery_id"], dead.ID)
				}
			}
		}
	})

	t.Run("the runbook's Logs Insights queries read fields the lines carry", func(t *testing.T) {
		have := map[string]bool{}
		for _, l := range rt.Telemetry().Lines(nil) {
			for k := range l {
				have[k] = true
			}
		}
		// error is on failure lines only ("request failed" of a 5xx, a
		// function's own errors), which this scenario does not cause.
		have["error"] = true
		for name, fields := range insightsQueries(t) {
			for _, f := range fields {
				if !have[f] {
					t.Errorf("query %q reads %s, which no function's line carries", name, f)
				}
			}
		}
	})
}

// insightsQueries reads docs/queries.txt: each query, under its "# name"
// line, with the fields it reads (CloudWatch's own @fields aside).
func insightsQueries(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("../../../docs/queries.txt")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	name := ""
	words := regexp.MustCompile(`[A-Za-z_@][A-Za-z0-9_.@]*`)
	keywords := map[string]bool{}
	for _, k := range strings.Fields("fields filter stats sort by as and or not in like count sum avg min max pct desc asc limit ispresent display dedup bin parse") {
		keywords[k] = true
	}
	blocks := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "# "); ok {
			name = rest
			continue
		}
		if line != "" && name != "" {
			blocks[name] += " " + regexp.MustCompile(`"[^"]*"|'[^']*'|/[^/]*/`).ReplaceAllString(line, "")
		}
	}
	for name, q := range blocks {
		q = regexp.MustCompile(`\b[0-9][0-9A-Za-z]*`).ReplaceAllString(q, "") // 20, 1h
		aliases := map[string]bool{}
		for _, m := range regexp.MustCompile(`(?i)\bas\s+([A-Za-z_][A-Za-z0-9_]*)`).FindAllStringSubmatch(q, -1) {
			aliases[m[1]] = true
		}
		for _, w := range words.FindAllString(q, -1) {
			if strings.HasPrefix(w, "@") || keywords[strings.ToLower(w)] || aliases[w] {
				continue
			}
			out[name] = append(out[name], w)
		}
	}
	if len(out) == 0 {
		t.Fatal("docs/queries.txt holds no query")
	}
	return out
}
