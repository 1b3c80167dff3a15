package webhooks_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/internal/webhook"
)

func TestDeliveryLogAndManualActions(t *testing.T) {
	t.Parallel() // its own runtime, and mostly waiting (see main_test.go)
	_, c, s, project := webhookRuntime(t, func(cfg *local.Config) {
		cfg.Parameters["WebhookRetrySchedule"] = "1s,1h,1h,1h" // the second retry waits long: the round stays "retrying"
	})
	ctx := context.Background()
	bad := apitest.NewReceiver(t, status(401))
	flaky := apitest.NewReceiver(t, status(500))
	badEP, flakyEP := c.Endpoint(bad.URL, "contact.created"), c.Endpoint(flaky.URL, "message.sent")
	contact := c.Contact("+79990006001")
	if r := c.Post("/public/v1/messages", uuid.NewString(), `{"contact_id":"`+contact+`","text":"hi"}`); r.Status != 202 {
		t.Fatal(string(r.Body))
	}
	deadOne := waitDelivery(t, s, bad, project, badEP.ID, func(d webhook.Delivery) bool { return d.Status == webhook.StatusDead })
	retrying := waitDelivery(t, s, flaky, project, flakyEP.ID, func(d webhook.Delivery) bool { return d.Status == webhook.StatusRetrying && d.Attempts == 2 })

	t.Run("list filters: status (GSI1), endpoint (GSI2), event type, time", func(t *testing.T) {
		cases := map[string][]string{
			"status=dead":                                      {deadOne.ID},
			"status=retrying":                                  {retrying.ID},
			"endpoint_id=" + flakyEP.ID:                        {retrying.ID},
			"event_type=contact.created":                       {deadOne.ID},
			"status=dead&endpoint_id=" + flakyEP.ID:            {},
			"until=" + url.QueryEscape("2000-01-01T00:00:00Z"): {},
		}
		for q, want := range cases {
			p := c.List("/public/v1/webhook-deliveries?" + q)
			var got []string
			for _, d := range p.Data {
				var x struct{ ID string }
				_ = json.Unmarshal(d, &x)
				got = append(got, x.ID)
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("%s: got %v, want %v", q, got, want)
			}
		}
		if r := c.Get("/public/v1/webhook-deliveries?status=lost"); r.Status != 400 || r.ErrorCode() != "INVALID_PARAMETER" {
			t.Errorf("bad status: %d %s", r.Status, r.Body)
		}
	})
	t.Run("one delivery: its attempts and payload", func(t *testing.T) {
		r := c.Get("/public/v1/webhook-deliveries/" + retrying.ID)
		var d struct {
			Status   string
			Payload  struct{ Type string }
			Attempts []struct {
				Attempt    int    `json:"attempt"`
				StatusCode int    `json:"status_code"`
				RequestID  string `json:"request_id"`
				URL        string `json:"url"`
				ErrorClass string `json:"error_class"`
				NextAt     string `json:"next_attempt_at"`
				DurationMs *int64 `json:"duration_ms"`
				StartedAt  string `json:"started_at"`
			}
		}
		r.JSON(t, &d)
		if r.Status != 200 || d.Payload.Type != "message.sent" || len(d.Attempts) != 2 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		a := d.Attempts[1]
		if a.Attempt != 2 || a.StatusCode != 500 || a.RequestID == "" || a.URL != flaky.URL || a.ErrorClass != "http_500" || a.NextAt == "" || a.DurationMs == nil || a.StartedAt == "" {
			t.Fatalf("attempt %+v", a)
		}
	})
	t.Run("manual retry of a retrying delivery: logged, the round is not disturbed", func(t *testing.T) {
		if r := c.Post("/public/v1/webhook-deliveries/"+retrying.ID+"/retry", uuid.NewString(), ""); r.Status != 202 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		apitest.Eventually(t, 10*time.Second, "manual attempt logged", func() bool {
			as, _ := s.Deliveries().Attempts(ctx, project, retrying.ID)
			return len(as) == 3 && as[2].Kind == "manual"
		})
		d, _ := s.Deliveries().Get(ctx, project, retrying.ID)
		if d.Status != webhook.StatusRetrying || d.NextAttempt != retrying.NextAttempt || d.Round != 1 {
			t.Fatalf("round disturbed: %+v", d)
		}
	})
	t.Run("manual retry of a dead delivery that now succeeds: delivered", func(t *testing.T) {
		bad.SetRespond(status(200))
		if r := c.Post("/public/v1/webhook-deliveries/"+deadOne.ID+"/retry", uuid.NewString(), ""); r.Status != 202 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		apitest.Eventually(t, 10*time.Second, "delivered by the manual retry", func() bool {
			d, _ := s.Deliveries().Get(ctx, project, deadOne.ID)
			return d.Status == webhook.StatusDelivered
		})
		reqs := bad.Requests()
		if last := reqs[len(reqs)-1]; last.Header.Get("X-Botix-Request-Id") == reqs[0].Header.Get("X-Botix-Request-Id") {
			t.Fatal("a retry must carry a new request id")
		}
	})
	t.Run("redrive skips a dead letter whose delivery was delivered meanwhile", func(t *testing.T) {
		out, err := c.RT.Invoke(ctx, "RedriveFunction", map[string]any{"project_id": project})
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Moved            int `json:"moved"`
			SkippedDelivered int `json:"skipped_delivered"`
		}
		_ = json.Unmarshal(out, &res)
		if res.Moved != 0 || res.SkippedDelivered != 1 {
			t.Fatalf("redrive: %s", out)
		}
	})
	t.Run("redirect to an inspector: the inspector sees the signed webhook", func(t *testing.T) {
		r := c.Post("/public/v1/inspectors", uuid.NewString(), "")
		var insp struct{ ID, URL string }
		r.JSON(t, &insp)
		if r.Status != 201 || !strings.HasPrefix(insp.ID, "insp_") || insp.URL != c.Base+"/inspect/"+insp.ID {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if r := c.Post("/public/v1/webhook-deliveries/"+retrying.ID+"/redirect", uuid.NewString(), `{"inspector_id":"`+insp.ID+`"}`); r.Status != 202 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		var caught localtest.Page
		apitest.Eventually(t, 10*time.Second, "inspector caught the webhook", func() bool {
			caught = c.List("/public/v1/inspectors/" + insp.ID + "/requests")
			return len(caught.Data) == 1
		})
		var req struct {
			Method  string
			Headers map[string]string
			Body    string
		}
		_ = json.Unmarshal(caught.Data[0], &req)
		if req.Method != "POST" || req.Headers["x-botix-event"] != "message.sent" || req.Headers["x-botix-signature"] == "" || !strings.Contains(req.Body, `"type":"message.sent"`) {
			t.Fatalf("caught %+v", req)
		}
		// The inspector answers before the deliverer logs the attempt.
		var as []webhook.Attempt
		apitest.Eventually(t, 10*time.Second, "redirect attempt logged", func() bool {
			as, _ = s.Deliveries().Attempts(ctx, project, retrying.ID)
			return len(as) == 4
		})
		if as[3].Kind != "redirect" || as[3].URL != insp.URL {
			t.Fatalf("redirect attempt %+v", as[3])
		}
		if r := c.Post("/public/v1/webhook-deliveries/"+retrying.ID+"/redirect", uuid.NewString(), `{"inspector_id":"insp_nope"}`); r.Status != 422 || r.ErrorCode() != "VALIDATION_FAILED" {
			t.Fatalf("malformed inspector id: %d %s", r.Status, r.Body)
		}
		if r := c.Post("/public/v1/webhook-deliveries/"+retrying.ID+"/redirect", uuid.NewString(), `{"inspector_id":"insp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}`); r.Status != 404 {
			t.Fatalf("unknown inspector: %d %s", r.Status, r.Body)
		}
	})
	t.Run("an extra attempt for a deleted endpoint is logged, not retried forever", func(t *testing.T) {
		r := c.Post("/public/v1/inspectors", uuid.NewString(), "")
		var insp struct{ ID string }
		r.JSON(t, &insp)
		gone := c.Endpoint(bad.URL, "message.sent")
		if r := c.Post("/public/v1/messages", uuid.NewString(), `{"contact_id":"`+contact+`","text":"again"}`); r.Status != 202 {
			t.Fatal(string(r.Body))
		}
		d := onlyDelivery(t, s, project, gone.ID, 10*time.Second, "delivery to the doomed endpoint", func(d webhook.Delivery) bool { return d.ID != "" })
		c.DeleteEndpoint(gone.ID)
		if r := c.Post("/public/v1/webhook-deliveries/"+d.ID+"/redirect", uuid.NewString(), `{"inspector_id":"`+insp.ID+`"}`); r.Status != 202 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		apitest.Eventually(t, 10*time.Second, "redirect logged as endpoint_deleted", func() bool {
			as, _ := s.Deliveries().Attempts(ctx, project, d.ID)
			return len(as) > 0 && as[len(as)-1].Kind == "redirect" && as[len(as)-1].ErrorClass == "endpoint_deleted"
		})
	})
	t.Run("test event goes through the pipeline to that endpoint only", func(t *testing.T) {
		before := len(bad.Requests())
		if r := c.Post("/public/v1/webhook-endpoints/"+badEP.ID+"/test", uuid.NewString(), ""); r.Status != 202 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		apitest.Eventually(t, 10*time.Second, "webhook.test received", func() bool {
			reqs := bad.Requests()
			return len(reqs) > before && reqs[len(reqs)-1].Header.Get("X-Botix-Event") == "webhook.test"
		})
		for _, r := range flaky.Requests() {
			if r.Header.Get("X-Botix-Event") == "webhook.test" {
				t.Fatal("the test event reached another endpoint")
			}
		}
	})
	t.Run("endpoint health is visible", func(t *testing.T) {
		var ep struct {
			LastFailureAt       string `json:"last_failure_at"`
			ConsecutiveFailures int    `json:"consecutive_failures"`
		}
		c.Get("/public/v1/webhook-endpoints/"+flakyEP.ID).JSON(t, &ep)
		if ep.LastFailureAt == "" || ep.ConsecutiveFailures < 2 {
			t.Fatalf("health %+v", ep)
		}
	})
}

func TestInspectorAndEventPolling(t *testing.T) {
	rt, c, _, _ := webhookRuntime(t, nil)
	_, otherKey := localtest.Project(t, rt, "")
	other := localtest.Client{T: t, Base: c.Base, Key: otherKey}
	r := c.Post("/public/v1/inspectors", uuid.NewString(), "")
	var insp struct{ ID, URL string }
	r.JSON(t, &insp)

	t.Run("the inspector URL works as a webhook endpoint (the make run walkthrough)", func(t *testing.T) {
		c.Endpoint(insp.URL, "contact.created")
		c.Contact("+79990007001")
		apitest.Eventually(t, 10*time.Second, "webhook caught", func() bool { return len(c.List("/public/v1/inspectors/"+insp.ID+"/requests").Data) == 1 })
	})
	t.Run("anything sent to the capture URL is stored and answered 200, without a key", func(t *testing.T) {
		r := apitest.Do(t, "PUT", insp.URL+"?x=1", []byte("plain text"), "Content-Type", "text/plain")
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		var req struct{ Method, Body, Query string }
		_ = json.Unmarshal(c.List("/public/v1/inspectors/" + insp.ID + "/requests?cursor_limit=1").Data[0], &req)
		if req.Method != "PUT" || req.Body != "plain text" || req.Query != "x=1" {
			t.Fatalf("%+v", req)
		}
	})
	t.Run("another project cannot read it", func(t *testing.T) {
		if r := other.Get("/public/v1/inspectors/" + insp.ID + "/requests"); r.Status != 404 {
			t.Fatalf("%d", r.Status)
		}
	})
	t.Run("an unknown capture URL is 404", func(t *testing.T) {
		if r := apitest.Do(t, "POST", c.Base+"/inspect/insp_nope", []byte("{}")); r.Status != 404 {
			t.Fatalf("%d", r.Status)
		}
	})
	t.Run("events: list, filter by type and since, get one; never another project's", func(t *testing.T) {
		p := c.List("/public/v1/events?type=contact.created")
		if len(p.Data) != 1 {
			t.Fatalf("%d events", len(p.Data))
		}
		var ev struct{ ID, Type, ProjectID string }
		_ = json.Unmarshal(p.Data[0], &ev)
		got := c.Get("/public/v1/events/" + ev.ID)
		if got.Status != 200 || string(got.Body) != string(p.Data[0]) {
			t.Fatalf("get %d: %s vs %s", got.Status, got.Body, p.Data[0])
		}
		if len(c.List("/public/v1/events?since="+url.QueryEscape(time.Now().Add(time.Minute).Format(time.RFC3339))).Data) != 0 {
			t.Fatal("since in the future listed events")
		}
		if r := other.Get("/public/v1/events/" + ev.ID); r.Status != 404 {
			t.Fatalf("another project's event: %d", r.Status)
		}
		if len(other.List("/public/v1/events").Data) != 0 {
			t.Fatal("another project lists our events")
		}
	})
}

func TestEndpointIsDisabledAfterFailingLong(t *testing.T) {
	t.Parallel() // its own runtime, and mostly waiting (see main_test.go)
	_, c, s, project := webhookRuntime(t, func(cfg *local.Config) {
		cfg.Parameters["WebhookAutoDisableAfter"] = "2s" // 5 days in production
		cfg.Parameters["WebhookRetrySchedule"] = "1s,1s,1s,1s"
	})
	rc := apitest.NewReceiver(t, status(503))
	ep := c.Endpoint(rc.URL)
	c.Contact("+79990008001")
	apitest.Eventually(t, 20*time.Second, "endpoint auto-disabled", func() bool {
		rec, err := s.Endpoints().Get(context.Background(), project, ep.ID)
		return err == nil && !rec.Enabled && strings.Contains(rec.DisabledReason, "failed")
	})
	t.Run("PATCH enabled=true re-enables it and clears the reason", func(t *testing.T) {
		r := c.In(t).Patch("/public/v1/webhook-endpoints/"+ep.ID, `{"enabled":true}`)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"enabled":true`) || strings.Contains(string(r.Body), "disabled_reason") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}
