package webhooks_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/localtest"
)

// TestTenantIsolationOfRedirectsAndContactMessages: project B's key, or
// project B's inspector, get nothing of project A's webhooks and messages.
// Two projects come from the admin function, as in the runbook.
func TestTenantIsolationOfRedirectsAndContactMessages(t *testing.T) {
	rt, ca, s, projectA := webhookRuntime(t, nil)
	_, keyB := localtest.Project(t, rt, "")
	cb := localtest.Client{T: t, Base: rt.URL, Key: keyB, RT: rt}

	rc := apitest.NewReceiver(t, status(401))
	ep := ca.Endpoint(rc.URL, "contact.created")
	contactA := ca.Contact("+79990031001")
	apitest.Eventually(t, 30*time.Second, "project A's dead delivery", func() bool { return len(deadOf(t, s, projectA, ep.ID)) == 1 })
	deliveryA := deadOf(t, s, projectA, ep.ID)[0].ID

	t.Run("a delivery is not redirected to another project's inspector", func(t *testing.T) {
		var inspB, inspA struct{ ID string }
		if r := cb.Post("/public/v1/inspectors", uuid.NewString(), ""); r.Status != http.StatusCreated {
			t.Fatalf("project B's inspector: %d %s", r.Status, r.Body)
		} else {
			r.JSON(t, &inspB)
		}
		r := ca.Post("/public/v1/webhook-deliveries/"+deliveryA+"/redirect", uuid.NewString(), `{"inspector_id":"`+inspB.ID+`"}`)
		if r.Status != http.StatusNotFound || r.ErrorCode() != "NOT_FOUND" {
			t.Fatalf("project A's delivery to project B's inspector: %d %s, want 404 NOT_FOUND", r.Status, r.Body)
		}
		// The control: the same call with A's own inspector is accepted and
		// arrives, so the refusal above is the project's, not the call's.
		ca.Post("/public/v1/inspectors", uuid.NewString(), "").JSON(t, &inspA)
		if r := ca.Post("/public/v1/webhook-deliveries/"+deliveryA+"/redirect", uuid.NewString(), `{"inspector_id":"`+inspA.ID+`"}`); r.Status != http.StatusAccepted {
			t.Fatalf("a redirect to A's own inspector: %d %s", r.Status, r.Body)
		}
		apitest.Eventually(t, 30*time.Second, "the redirect in A's inspector", func() bool { return len(ca.List("/public/v1/inspectors/"+inspA.ID+"/requests").Data) == 1 })
		if got := cb.List("/public/v1/inspectors/" + inspB.ID + "/requests").Data; len(got) != 0 {
			t.Fatalf("project B's inspector received %d of project A's webhooks", len(got))
		}
	})

	t.Run("another project cannot list a contact's messages", func(t *testing.T) {
		if r := ca.Post("/public/v1/messages", uuid.NewString(), `{"contact_id":"`+contactA+`","text":"for A only","channel":"telegram"}`); r.Status != http.StatusAccepted {
			t.Fatalf("send: %d %s", r.Status, r.Body)
		}
		if got := ca.List("/public/v1/messages?contact_id=" + contactA).Data; len(got) != 1 {
			t.Fatalf("project A lists %d messages of its contact, want 1", len(got))
		}
		r := cb.Get("/public/v1/messages?contact_id=" + contactA)
		var page struct {
			Data []json.RawMessage `json:"data"`
		}
		if r.Status == http.StatusOK {
			r.JSON(t, &page)
		}
		if (r.Status != http.StatusOK && r.Status != http.StatusNotFound) || len(page.Data) != 0 {
			t.Fatalf("project B lists project A's contact's messages: %d %s", r.Status, r.Body)
		}
	})
}
