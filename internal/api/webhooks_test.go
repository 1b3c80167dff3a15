package api_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
)

func (h *harness) endpointReq(method, route, path, body string, params map[string]string) events.APIGatewayV2HTTPRequest {
	ev := h.post(route, path, newKey(), body, params)
	ev.RequestContext.HTTP.Method = method
	return ev
}

func TestWebhookEndpointsAPI(t *testing.T) {
	h := newHarness(t)
	create := h.fn(app.CreateWebhookEndpoint)
	get := h.fn(app.GetWebhookEndpoint)
	update := h.fn(app.UpdateWebhookEndpoint)
	del := h.fn(app.DeleteWebhookEndpoint)
	rotate := h.fn(app.RotateWebhookSecret)
	list := h.fn(app.ListWebhookEndpoints)
	post := func(body string) events.APIGatewayV2HTTPResponse {
		return call(t, create, h.post("POST /public/v1/webhook-endpoints", "/public/v1/webhook-endpoints", newKey(), body, nil))
	}

	var ep struct {
		ID      string   `json:"id"`
		Secret  string   `json:"secret"`
		Enabled bool     `json:"enabled"`
		Events  []string `json:"events"`
	}
	t.Run("create -> 201 with we_ id and a whsec_ secret shown once", func(t *testing.T) {
		r := post(`{"url":"https://93.184.216.34/hooks","events":["contact.created"],"description":"crm"}`)
		if r.StatusCode != 201 {
			t.Fatalf("%d %s", r.StatusCode, r.Body)
		}
		apitest.Reply{Body: []byte(r.Body)}.JSON(t, &ep)
		if !strings.HasPrefix(ep.ID, "we_") || !strings.HasPrefix(ep.Secret, "whsec_") || !ep.Enabled {
			t.Fatalf("%s", r.Body)
		}
		if key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(ep.Secret, "whsec_")); err != nil || len(key) != 32 {
			t.Fatalf("secret is not whsec_ + base64 of 32 bytes: %v", err)
		}
	})
	t.Run("get never shows the secret", func(t *testing.T) {
		r := call(t, get, h.get("GET /public/v1/webhook-endpoints/{id}", "/public/v1/webhook-endpoints/"+ep.ID, ""))
		if r.StatusCode != 200 || strings.Contains(r.Body, "whsec_") || strings.Contains(r.Body, "secret") {
			t.Fatalf("%d %s", r.StatusCode, r.Body)
		}
	})
	for _, c := range []struct{ name, body, field string }{
		{"http in production", `{"url":"http://93.184.216.34/","events":["*"]}`, "url"},
		{"loopback", `{"url":"https://127.0.0.1/","events":["*"]}`, "url"},
		{"localhost", `{"url":"https://localhost:8443/","events":["*"]}`, "url"},
		{"private network", `{"url":"https://10.1.2.3/","events":["*"]}`, "url"},
		{"link-local", `{"url":"https://169.254.10.10/","events":["*"]}`, "url"},
		{"cloud metadata", `{"url":"https://169.254.169.254/latest/meta-data","events":["*"]}`, "url"},
		{"cloud metadata over IPv6", `{"url":"https://[fd00:ec2::254]/","events":["*"]}`, "url"},
		{"multicast", `{"url":"https://224.0.0.251/","events":["*"]}`, "url"},
		{"IPv4-mapped loopback", `{"url":"https://[::ffff:127.0.0.1]/","events":["*"]}`, "url"},
		{"unknown event type", `{"url":"https://93.184.216.34/","events":["contact.deleted"]}`, "events"},
		{"no events", `{"url":"https://93.184.216.34/","events":[]}`, "events"},
		{"missing url", `{"events":["*"]}`, "url"},
	} {
		t.Run("refused: "+c.name+" -> 422 naming "+c.field, func(t *testing.T) {
			r := post(c.body)
			if r.StatusCode != 422 || !strings.Contains(r.Body, `"field":"`+c.field+`"`) {
				t.Fatalf("%d %s", r.StatusCode, r.Body)
			}
		})
	}
	t.Run("patch events and disable; re-enable clears the reason", func(t *testing.T) {
		r := call(t, update, h.endpointReq("PATCH", "PATCH /public/v1/webhook-endpoints/{id}", "/public/v1/webhook-endpoints/"+ep.ID, `{"events":["*"],"enabled":false}`, map[string]string{"id": ep.ID}))
		if r.StatusCode != 200 || !strings.Contains(r.Body, `"enabled":false`) || !strings.Contains(r.Body, `"events":["*"]`) {
			t.Fatalf("%d %s", r.StatusCode, r.Body)
		}
		if err := h.store.Endpoints().Disable(context.Background(), h.project, ep.ID, "test", time.Now()); err != nil {
			t.Fatal(err)
		}
		r = call(t, update, h.endpointReq("PATCH", "PATCH /public/v1/webhook-endpoints/{id}", "/public/v1/webhook-endpoints/"+ep.ID, `{"enabled":true}`, map[string]string{"id": ep.ID}))
		rec, _ := h.store.Endpoints().Get(context.Background(), h.project, ep.ID)
		if r.StatusCode != 200 || !rec.Enabled || rec.DisabledReason != "" {
			t.Fatalf("%d %s / %+v", r.StatusCode, r.Body, rec)
		}
	})
	t.Run("patch cannot set the secret", func(t *testing.T) {
		r := call(t, update, h.endpointReq("PATCH", "PATCH /public/v1/webhook-endpoints/{id}", "/public/v1/webhook-endpoints/"+ep.ID, `{"secret":"whsec_x"}`, map[string]string{"id": ep.ID}))
		if r.StatusCode != 422 {
			t.Fatalf("%d %s", r.StatusCode, r.Body)
		}
	})
	t.Run("rotate: the new secret signs, the old keeps signing for 24 h", func(t *testing.T) {
		r := call(t, rotate, h.endpointReq("POST", "POST /public/v1/webhook-endpoints/{id}/rotate-secret", "/public/v1/webhook-endpoints/"+ep.ID+"/rotate-secret", "", map[string]string{"id": ep.ID}))
		var rot struct {
			Secret  string `json:"secret"`
			Expires string `json:"previous_secret_expires_at"`
		}
		apitest.Reply{Body: []byte(r.Body)}.JSON(t, &rot)
		if r.StatusCode != 200 || rot.Secret == ep.Secret || rot.Expires == "" {
			t.Fatalf("%d %s", r.StatusCode, r.Body)
		}
		rec, _ := h.store.Endpoints().Get(context.Background(), h.project, ep.ID)
		now := time.Now()
		if got := rec.ActiveSecrets(now); len(got) != 2 || got[0] != rot.Secret || got[1] != ep.Secret {
			t.Fatalf("active now: %d secrets", len(got))
		}
		if got := rec.ActiveSecrets(now.Add(25 * time.Hour)); len(got) != 1 || got[0] != rot.Secret {
			t.Fatalf("active after 25 h: %d secrets", len(got))
		}
	})
	t.Run("a second rotation within 24 h keeps the first previous secret to its end", func(t *testing.T) {
		before, _ := h.store.Endpoints().Get(context.Background(), h.project, ep.ID)
		first := before.Secrets[1] // the secret from creation, signing until its overlap ends
		r := call(t, rotate, h.endpointReq("POST", "POST /public/v1/webhook-endpoints/{id}/rotate-secret", "/public/v1/webhook-endpoints/"+ep.ID+"/rotate-secret", "", map[string]string{"id": ep.ID}))
		if r.StatusCode != 200 {
			t.Fatalf("%d %s", r.StatusCode, r.Body)
		}
		rec, _ := h.store.Endpoints().Get(context.Background(), h.project, ep.ID)
		active := rec.ActiveSecrets(time.Now())
		if len(active) != 3 || active[2] != first.Value {
			t.Fatalf("after two rotations %d secrets sign; the creation secret must still sign", len(active))
		}
		for _, sec := range rec.Secrets {
			if sec.Value == first.Value && !sec.ExpiresAt.Equal(first.ExpiresAt) {
				t.Fatalf("the first previous secret's expiry moved from %s to %s", first.ExpiresAt, sec.ExpiresAt)
			}
		}
		if got := rec.ActiveSecrets(first.ExpiresAt); slices.Contains(got, first.Value) {
			t.Fatal("the first previous secret signs past its expiry")
		}
	})
	t.Run("another project sees NOT_FOUND", func(t *testing.T) {
		other := newHarness(t)
		other.tables, other.store = h.tables, h.store
		r := call(t, h.fnFor(other, app.GetWebhookEndpoint), other.get("GET /public/v1/webhook-endpoints/{id}", "/public/v1/webhook-endpoints/"+ep.ID, ""))
		if r.StatusCode != 404 {
			t.Fatalf("%d %s", r.StatusCode, r.Body)
		}
	})
	t.Run("delete -> 200, then 404", func(t *testing.T) {
		req := h.endpointReq("DELETE", "DELETE /public/v1/webhook-endpoints/{id}", "/public/v1/webhook-endpoints/"+ep.ID, "", map[string]string{"id": ep.ID})
		if r := call(t, del, req); r.StatusCode != 200 {
			t.Fatalf("%d %s", r.StatusCode, r.Body)
		}
		if r := call(t, get, h.get("GET /public/v1/webhook-endpoints/{id}", "/public/v1/webhook-endpoints/"+ep.ID, "")); r.StatusCode != 404 {
			t.Fatalf("%d %s", r.StatusCode, r.Body)
		}
		req.Headers["idempotency-key"] = newKey()
		if r := call(t, del, req); r.StatusCode != 404 {
			t.Fatalf("second delete: %d %s", r.StatusCode, r.Body)
		}
	})
	t.Run("at most 20 endpoints per project -> 409 LIMIT_EXCEEDED", func(t *testing.T) {
		for i := 0; i < 20; i++ {
			if r := post(fmt.Sprintf(`{"url":"https://93.184.216.34/h%d","events":["*"]}`, i)); r.StatusCode != 201 {
				t.Fatalf("endpoint %d: %d %s", i, r.StatusCode, r.Body)
			}
		}
		if r := post(`{"url":"https://93.184.216.34/h21","events":["*"]}`); r.StatusCode != 409 || code(r) != "LIMIT_EXCEEDED" {
			t.Fatalf("21st: %d %s", r.StatusCode, r.Body)
		}
		p := decodePage(t, call(t, list, h.get("GET /public/v1/webhook-endpoints", "/public/v1/webhook-endpoints", "cursor_limit=15")))
		if len(p.Data) != 15 || !p.HasMore {
			t.Fatalf("list page: %d items", len(p.Data))
		}
	})
}

// TestEndpointHealthShown: GET and list show each endpoint's health, its
// cause read from the deliverer's record of the last failed delivery.
func TestEndpointHealthShown(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t)
	create := h.fn(app.CreateWebhookEndpoint)
	get := h.fn(app.GetWebhookEndpoint)
	list := h.fn(app.ListWebhookEndpoints)
	newEndpoint := func() string {
		r := call(t, create, h.post("POST /public/v1/webhook-endpoints", "/public/v1/webhook-endpoints", newKey(), `{"url":"https://93.184.216.34/h","events":["*"]}`, nil))
		var ep struct {
			ID string `json:"id"`
		}
		apitest.Reply{Body: []byte(r.Body)}.JSON(t, &ep)
		return ep.ID
	}
	type health struct {
		State, Cause, Since, Reason string
		FailedAttempts              int `json:"failed_attempts"`
	}
	healthOf := func(id string) health {
		r := call(t, get, h.get("GET /public/v1/webhook-endpoints/{id}", "/public/v1/webhook-endpoints/"+id, ""))
		var ep struct{ Health health }
		apitest.Reply{Body: []byte(r.Body)}.JSON(t, &ep)
		return ep.Health
	}
	healthy, failing, off := newEndpoint(), newEndpoint(), newEndpoint()

	now := time.Now()
	id, err := webhook.DeliveryID(ids.New(ids.Event, now), failing)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.Deliveries().Create(ctx, webhook.Delivery{ProjectID: h.project, ID: id, EventType: "contact.created", EndpointID: failing,
		Status: webhook.StatusPending, Round: 1, NextAttempt: 1, Payload: `{}`, CreatedAt: ids.Timestamp(now), UpdatedAt: ids.Timestamp(now)}); err != nil {
		t.Fatal(err)
	}
	d, ok, err := h.store.Deliveries().Claim(ctx, webhook.Claim{Project: h.project, ID: id, Round: 1, Attempt: 1, Token: "t", Now: now, Until: now.Add(time.Minute)})
	if err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	if err := h.store.Deliveries().Finish(ctx, *d, "t", webhook.Result{Status: webhook.StatusRetrying, LastStatus: 403, LastClass: "http_403"},
		webhook.Attempt{DeliveryID: id, Attempt: 1, Round: 1, StartedAt: ids.Timestamp(now), ErrorClass: "http_403"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.Endpoints().RecordFailure(ctx, h.project, failing, now); err != nil {
		t.Fatal(err)
	}
	if err := h.store.Endpoints().Disable(ctx, h.project, off, "the endpoint answered 410 Gone", now); err != nil {
		t.Fatal(err)
	}

	t.Run("a healthy endpoint says healthy, and nothing more", func(t *testing.T) {
		if got := healthOf(healthy); got != (health{State: "healthy"}) {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("a failing endpoint shows its cause, since when, and its failed attempts", func(t *testing.T) {
		if got := healthOf(failing); got != (health{State: "failing", Cause: "http_403", Since: ids.Timestamp(now), FailedAttempts: 1}) {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("a disabled endpoint shows why and since when", func(t *testing.T) {
		if got := healthOf(off); got != (health{State: "disabled", Since: ids.Timestamp(now), Reason: "the endpoint answered 410 Gone"}) {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("the list shows the same health", func(t *testing.T) {
		r := call(t, list, h.get("GET /public/v1/webhook-endpoints", "/public/v1/webhook-endpoints", ""))
		var p struct {
			Data []struct {
				ID     string
				Health health
			}
		}
		apitest.Reply{Body: []byte(r.Body)}.JSON(t, &p)
		got := map[string]string{}
		for _, ep := range p.Data {
			got[ep.ID] = ep.Health.State + " " + ep.Health.Cause
		}
		if got[healthy] != "healthy " || got[failing] != "failing http_403" || got[off] != "disabled " {
			t.Fatalf("%v", got)
		}
	})
}
