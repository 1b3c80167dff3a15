package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
)

// TestLastFailureClass: an endpoint's health cause is the class recorded
// on its newest failed delivery; delivered ones and other endpoints'
// failures do not count.
func TestLastFailureClass(t *testing.T) {
	ctx := context.Background()
	s := dynamotest.Store(t)
	log := deliveryLog{t: t, s: s, project: "prj_" + ids.NewULID(time.Now()).String()}
	at := time.Now().Add(-time.Hour)
	ep, other := ids.New(ids.WebhookEndpoint, at), ids.New(ids.WebhookEndpoint, at)
	attempt := func(id string, status webhook.Status, class string) {
		t.Helper()
		now := time.Now()
		d, ok, err := s.Deliveries().Claim(ctx, webhook.Claim{Project: log.project, ID: id, Round: 1, Attempt: 1, Token: "tok", Now: now, Until: now.Add(time.Minute)})
		if err != nil || !ok {
			t.Fatalf("claim %s: %v %v", id, ok, err)
		}
		res := webhook.Result{Status: status, LastClass: class}
		if err := s.Deliveries().Finish(ctx, *d, "tok", res, webhook.Attempt{DeliveryID: id, Attempt: 1, Round: 1, StartedAt: ids.Timestamp(now), ErrorClass: class}); err != nil {
			t.Fatal(err)
		}
	}
	class := func(endpoint string) string {
		t.Helper()
		c, err := s.Deliveries().LastFailureClass(ctx, log.project, endpoint)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if got := class(ep); got != "" {
		t.Fatalf("no deliveries: %q", got)
	}
	attempt(log.add(ids.New(ids.Event, at), ep, webhook.StatusPending), webhook.StatusDead, "http_503")
	attempt(log.add(ids.New(ids.Event, at.Add(time.Second)), ep, webhook.StatusPending), webhook.StatusRetrying, "http_403")
	attempt(log.add(ids.New(ids.Event, at.Add(2*time.Second)), ep, webhook.StatusPending), webhook.StatusDelivered, "")
	attempt(log.add(ids.New(ids.Event, at.Add(3*time.Second)), other, webhook.StatusPending), webhook.StatusRetrying, "connect_timeout")
	if got := class(ep); got != "http_403" {
		t.Fatalf("cause %q, want the newest failure's http_403", got)
	}
	if got := class(other); got != "connect_timeout" {
		t.Fatalf("other endpoint's cause %q", got)
	}
}
