package webhooks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
	kit "github.com/botix/public-api/sdk/go/webhook"
)

// webhookRuntime is a local runtime with a compressed retry schedule and
// short timeouts, so that a whole retry round takes seconds.
func webhookRuntime(t *testing.T, extra func(*local.Config)) (*local.Runtime, localtest.Client, *store.Store, string) {
	cfg := local.Config{
		Env: map[string]string{"WEBHOOK_ALLOW_LOOPBACK": "true"},
		Parameters: map[string]string{
			"WebhookRetrySchedule": "1s,1s,1s,1s", "WebhookConnectTimeout": "1s", "WebhookReadTimeout": "1s",
		},
		VisibilityTimeout: map[string]time.Duration{"DeliveryQueue": 3 * time.Second, "BulkDeliveryQueue": 3 * time.Second},
		Timeouts:          map[string]time.Duration{"DeliverFunction": 4 * time.Second},
	}
	if extra != nil {
		extra(&cfg)
	}
	rt := localtest.Runtime(t, cfg)
	project, key := localtest.Project(t, rt, "")
	s := store.New(rt.DynamoDB(), dynamotest.TablesOf(rt.Tables()))
	return rt, localtest.Client{T: t, Base: rt.URL, Key: key, RT: rt}, s, project
}

// delivery waits for the delivery of the event received first and returns
// it once cond holds.
func waitDelivery(t *testing.T, s *store.Store, rc *apitest.Receiver, project, endpointID string, cond func(webhook.Delivery) bool) webhook.Delivery {
	t.Helper()
	var d webhook.Delivery
	apitest.Eventually(t, 30*time.Second, "delivery state", func() bool {
		reqs := rc.Requests()
		if len(reqs) == 0 {
			return false
		}
		id, _ := webhook.DeliveryID(reqs[0].Header.Get("Webhook-Id"), endpointID)
		var err error
		d, err = s.Deliveries().Get(context.Background(), project, id)
		return err == nil && cond(d)
	})
	return d
}

func status(codes ...int) func(n int, r *http.Request, w http.ResponseWriter) {
	return func(n int, r *http.Request, w http.ResponseWriter) {
		w.WriteHeader(codes[min(n, len(codes)-1)])
	}
}

// slowDownOnce answers the first request 429 with Retry-After
// retryAfter (seconds), every later one 200.
func slowDownOnce(retryAfter string) func(n int, r *http.Request, w http.ResponseWriter) {
	return func(n int, _ *http.Request, w http.ResponseWriter) {
		if n == 0 {
			w.Header().Set("Retry-After", retryAfter)
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.WriteHeader(http.StatusOK)
	}
}

func TestWebhookRetriesUntilDelivered(t *testing.T) {
	t.Parallel() // its own runtime, and mostly waiting (see main_test.go)
	_, c, s, project := webhookRuntime(t, nil)
	rc := apitest.NewReceiver(t, status(503, 503, 200))
	ep := c.Endpoint(rc.URL, "contact.created")
	c.Contact("+79990003001")
	d := waitDelivery(t, s, rc, project, ep.ID, func(d webhook.Delivery) bool { return d.Status == webhook.StatusDelivered })
	reqs := rc.Requests()
	if len(reqs) != 3 {
		t.Fatalf("receiver got %d requests, want 3", len(reqs))
	}
	if got := reqs[2].Header.Get("X-Delivery-Attempt"); got != "3" {
		t.Fatalf("X-Delivery-Attempt = %q on the delivered attempt", got)
	}
	seen := map[string]bool{}
	for i, r := range reqs {
		rid := r.Header.Get("X-Botix-Request-Id")
		if seen[rid] || rid == "" {
			t.Fatalf("attempt %d: request id %q repeats", i+1, rid)
		}
		seen[rid] = true
		sec, _ := strconv.ParseInt(r.Header.Get("Webhook-Timestamp"), 10, 64)
		want, err := kit.Sign([]string{ep.Secret}, r.Header.Get("Webhook-Id"), sec, r.Body)
		if err != nil {
			t.Fatal(err)
		}
		if r.Header.Get("X-Botix-Signature") != want.Get("X-Botix-Signature") {
			t.Fatalf("attempt %d: X-Botix-Signature does not verify", i+1)
		}
		if r.Header.Get("Webhook-Signature") != want.Get("Webhook-Signature") {
			t.Fatalf("attempt %d: webhook-signature does not verify", i+1)
		}
		if r.Header.Get("X-Botix-Event") != "contact.created" || r.Header.Get("User-Agent") != "Botix-Webhooks/1.1" || r.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("attempt %d headers: %v", i+1, r.Header)
		}
	}
	attempts, err := s.Deliveries().Attempts(context.Background(), project, d.ID)
	if err != nil || len(attempts) != 3 {
		t.Fatalf("%d attempts logged (%v), want 3", len(attempts), err)
	}
	for i, a := range attempts {
		if a.Attempt != i+1 || a.URL != rc.URL || a.RequestID == "" || a.StartedAt == "" {
			t.Fatalf("attempt log %d: %+v", i, a)
		}
	}
	if attempts[0].StatusCode != 503 || attempts[0].ErrorClass != "http_503" || attempts[0].NextAttemptAt == "" || attempts[2].StatusCode != 200 {
		t.Fatalf("attempt logs: %+v", attempts)
	}
}

func TestWebhookFailureModes(t *testing.T) {
	t.Parallel() // its own runtime, and mostly waiting (see main_test.go)
	rt, c, s, project := webhookRuntime(t, nil)
	ctx := context.Background()
	dead := func(d webhook.Delivery) bool { return d.Status == webhook.StatusDead }
	dlqHas := func(n int) {
		t.Helper()
		apitest.Eventually(t, 10*time.Second, "dead letters", func() bool { d, _ := rt.QueueDepth(ctx, "DeadLetterQueue"); return d == n })
	}

	t.Run("401 -> dead after one attempt, in the DLQ", func(t *testing.T) {
		rc := apitest.NewReceiver(t, status(401))
		ep := c.Endpoint(rc.URL)
		c.Contact("+79990004001")
		d := waitDelivery(t, s, rc, project, ep.ID, dead)
		if d.Attempts != 1 || d.LastStatusCode != 401 || d.DeadReason == "" {
			t.Fatalf("delivery %+v", d)
		}
		dlqHas(1)
		c.DeleteEndpoint(ep.ID)
	})
	t.Run("429 with Retry-After: 2 -> the next attempt waits at least 2 s", func(t *testing.T) {
		rc := apitest.NewReceiver(t, func(n int, r *http.Request, w http.ResponseWriter) {
			if n == 0 {
				w.Header().Set("Retry-After", "2")
				w.WriteHeader(429)
				return
			}
			w.WriteHeader(200)
		})
		ep := c.Endpoint(rc.URL)
		c.Contact("+79990004002")
		waitDelivery(t, s, rc, project, ep.ID, func(d webhook.Delivery) bool { return d.Status == webhook.StatusDelivered })
		reqs := rc.Requests()
		if gap := reqs[1].At.Sub(reqs[0].At); gap < 2*time.Second {
			t.Fatalf("second attempt after %s, Retry-After asked 2s", gap)
		}
		c.DeleteEndpoint(ep.ID)
	})
	t.Run("a read timeout is retried", func(t *testing.T) {
		rc := apitest.NewReceiver(t, func(n int, r *http.Request, w http.ResponseWriter) {
			if n == 0 {
				time.Sleep(1500 * time.Millisecond) // past the 1 s read timeout
			}
			w.WriteHeader(200)
		})
		ep := c.Endpoint(rc.URL)
		c.Contact("+79990004003")
		d := waitDelivery(t, s, rc, project, ep.ID, func(d webhook.Delivery) bool { return d.Status == webhook.StatusDelivered })
		attempts, _ := s.Deliveries().Attempts(ctx, project, d.ID)
		if len(attempts) != 2 || attempts[0].ErrorClass != webhook.ClassReadTimeout {
			t.Fatalf("attempts %+v", attempts)
		}
		c.DeleteEndpoint(ep.ID)
	})
	t.Run("a refused connection is retried", func(t *testing.T) {
		rc := apitest.NewReceiver(t, nil)
		ep := c.Endpoint("http://127.0.0.1:1/hooks") // nothing listens on port 1
		c.Contact("+79990004004")
		d := onlyDelivery(t, s, project, ep.ID, 15*time.Second, "second attempt", func(d webhook.Delivery) bool { return d.Attempts >= 2 })
		if d.LastErrorClass != webhook.ClassConnection {
			t.Fatalf("delivery %+v", d)
		}
		_ = rc
		c.DeleteEndpoint(ep.ID)
	})
	t.Run("5 failures -> dead; the redrive function starts a fresh round that delivers once", func(t *testing.T) {
		rc := apitest.NewReceiver(t, status(500))
		ep := c.Endpoint(rc.URL)
		c.Contact("+79990004005")
		d := waitDelivery(t, s, rc, project, ep.ID, dead)
		if d.Attempts != 5 || len(rc.Requests()) != 5 {
			t.Fatalf("dead after %d attempts (%d requests), want 5", d.Attempts, len(rc.Requests()))
		}
		rc.SetRespond(status(200))
		out, err := rt.Invoke(ctx, "RedriveFunction", map[string]any{"project_id": project, "endpoint_id": ep.ID})
		if err != nil {
			t.Fatal(err)
		}
		var res struct{ Moved, SkippedDelivered, SkippedFilter int }
		_ = json.Unmarshal(out, &res)
		if res.Moved != 1 {
			t.Fatalf("redrive %s", out)
		}
		d = waitDelivery(t, s, rc, project, ep.ID, func(d webhook.Delivery) bool { return d.Status == webhook.StatusDelivered })
		if d.Round != 2 || len(rc.Requests()) != 6 {
			t.Fatalf("after redrive: round %d, %d requests", d.Round, len(rc.Requests()))
		}
		c.DeleteEndpoint(ep.ID)
	})
	t.Run("console-style DLQ redrive (messages moved to the source queue) delivers once", func(t *testing.T) {
		before, _ := rt.QueueDepth(ctx, "DeadLetterQueue")
		rc := apitest.NewReceiver(t, status(403))
		ep := c.Endpoint(rc.URL)
		c.Contact("+79990004006")
		waitDelivery(t, s, rc, project, ep.ID, dead)
		dlqHas(before + 1)
		rc.SetRespond(status(200))
		if moved := localtest.MoveDeadLetters(t, rt); moved != before+1 {
			t.Fatalf("moved %d, want %d", moved, before+1)
		}
		d := waitDelivery(t, s, rc, project, ep.ID, func(d webhook.Delivery) bool { return d.Status == webhook.StatusDelivered })
		if d.Round != 2 || len(rc.Requests()) != 2 {
			t.Fatalf("round %d, %d requests", d.Round, len(rc.Requests()))
		}
		c.DeleteEndpoint(ep.ID)
	})
	t.Run("410 -> dead and the endpoint is disabled", func(t *testing.T) {
		rc := apitest.NewReceiver(t, status(410))
		ep := c.Endpoint(rc.URL)
		c.Contact("+79990004007")
		waitDelivery(t, s, rc, project, ep.ID, dead)
		apitest.Eventually(t, 5*time.Second, "endpoint disabled", func() bool {
			var got struct {
				Enabled        bool   `json:"enabled"`
				DisabledReason string `json:"disabled_reason"`
			}
			c.Get("/public/v1/webhook-endpoints/"+ep.ID).JSON(t, &got)
			return !got.Enabled && got.DisabledReason != ""
		})
		c.DeleteEndpoint(ep.ID)
	})
}

// deliveriesOf lists an endpoint's deliveries straight from the table.
func deliveriesOf(t *testing.T, s *store.Store, project, endpointID string) []webhook.Delivery {
	t.Helper()
	res, err := store.ReadPage(context.Background(), s, store.DeliveriesQuery(project, store.DeliveryFilter{EndpointID: endpointID}), nil, 200)
	if err != nil {
		t.Fatal(err)
	}
	return res.Items
}

// onlyDelivery waits up to limit for the endpoint's one delivery to satisfy
// ok (what names the wait when it times out), and returns it.
func onlyDelivery(t *testing.T, s *store.Store, project, endpointID string, limit time.Duration, what string, ok func(webhook.Delivery) bool) webhook.Delivery {
	t.Helper()
	var d webhook.Delivery
	apitest.Eventually(t, limit, what, func() bool {
		if ds := deliveriesOf(t, s, project, endpointID); len(ds) == 1 {
			d = ds[0]
		}
		return ok(d)
	})
	return d
}

// crashOnce panics the first time it runs: a Lambda dying mid-invocation.
func crashOnce() func() {
	var done atomic.Bool
	return func() {
		if done.CompareAndSwap(false, true) {
			panic("simulated crash")
		}
	}
}

func TestWebhookCrashes(t *testing.T) {
	t.Parallel() // its own runtime, and mostly waiting (see main_test.go)
	t.Run("crash between the stream record and the SQS send: still delivered", func(t *testing.T) {
		crash := crashOnce()
		_, c, s, project := webhookRuntime(t, func(cfg *local.Config) {
			cfg.Options = append(cfg.Options, app.WithDeliveryHooks(webhook.Hooks{BeforeSend: func(context.Context) error { crash(); return nil }}))
		})
		rc := apitest.NewReceiver(t, nil)
		ep := c.Endpoint(rc.URL)
		c.Contact("+79990005001")
		waitDelivery(t, s, rc, project, ep.ID, func(d webhook.Delivery) bool { return d.Status == webhook.StatusDelivered })
		if n := len(deliveriesOf(t, s, project, ep.ID)); n != 1 {
			t.Fatalf("%d deliveries for one event, want 1 (the replayed record must not create another)", n)
		}
	})
	t.Run("crash between the POST and the status write: delivered (a duplicate is allowed, a loss is not)", func(t *testing.T) {
		crash := crashOnce()
		_, c, s, project := webhookRuntime(t, func(cfg *local.Config) {
			cfg.Options = append(cfg.Options, app.WithDeliveryHooks(webhook.Hooks{AfterPost: func(context.Context, string) error { crash(); return nil }}))
		})
		rc := apitest.NewReceiver(t, nil)
		ep := c.Endpoint(rc.URL)
		c.Contact("+79990005002")
		d := waitDelivery(t, s, rc, project, ep.ID, func(d webhook.Delivery) bool { return d.Status == webhook.StatusDelivered })
		reqs := rc.Requests()
		if len(reqs) != 2 || reqs[0].Header.Get("Webhook-Id") != reqs[1].Header.Get("Webhook-Id") {
			t.Fatalf("receiver got %d requests; want the lost attempt and its repeat, same webhook-id", len(reqs))
		}
		if d.Attempts != 1 {
			t.Fatalf("the crashed attempt must not be recorded twice: %d attempts", d.Attempts)
		}
	})
}
