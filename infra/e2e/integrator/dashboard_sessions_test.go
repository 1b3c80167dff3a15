package integrator_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/sdk/go/botix"
)

// TestDashboardSessionsThroughTheSDK: an integrator makes a read session
// with the key, hands its token to a second client, which reads and is
// refused a create with CodeInsufficientScope, and loses access once the
// key's client deletes the session.
func TestDashboardSessionsThroughTheSDK(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	_, key := localtest.Project(t, rt, "")
	ctx := context.Background()
	owner := botix.NewClient(key, botix.WithBaseURL(rt.URL))
	s, err := owner.DashboardSessions.Create(ctx, botix.DashboardSessionCreate{Scope: botix.ScopeRead, TTLSeconds: 600})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.ID, "dss_") || !strings.HasPrefix(s.Token, "bxs_") || s.Scope != botix.ScopeRead || s.Response.IdempotencyKey == "" {
		t.Fatalf("session %+v", s)
	}
	teammate := botix.NewClient(s.Token, botix.WithBaseURL(rt.URL), botix.WithRetryPolicy(botix.RetryPolicy{MaxAttempts: 1}))
	if _, err := teammate.Deliveries.List(ctx, botix.DeliveryListParams{}); err != nil {
		t.Fatalf("a read session lists deliveries: %v", err)
	}
	cur, err := teammate.DashboardSessions.Current(ctx)
	if err != nil || cur.ID != s.ID || cur.Scope != botix.ScopeRead || cur.ExpiresAt != s.ExpiresAt {
		t.Fatalf("current: %+v, %v", cur, err)
	}
	var e *botix.Error
	if _, err := owner.DashboardSessions.Current(ctx); !errors.As(err, &e) || e.Code != botix.CodeNotFound {
		t.Fatalf("current with the key: %v", err)
	}
	_, err = teammate.Contacts.Create(ctx, botix.ContactCreate{Phone: "+79990008001", Name: "Eve"})
	if !errors.As(err, &e) || e.Code != botix.CodeInsufficientScope || e.StatusCode != 403 {
		t.Fatalf("a read session creates a contact: %v", err)
	}
	if _, err := teammate.DashboardSessions.Create(ctx, botix.DashboardSessionCreate{Scope: botix.ScopeReadRetry}); !errors.As(err, &e) || e.Code != botix.CodeInsufficientScope {
		t.Fatalf("a session makes a session: %v", err)
	}
	d, err := owner.DashboardSessions.Delete(ctx, s.ID)
	if err != nil || !d.Deleted || d.ID != s.ID {
		t.Fatalf("delete: %+v, %v", d, err)
	}
	if _, err := teammate.Deliveries.List(ctx, botix.DeliveryListParams{}); !errors.As(err, &e) || e.Code != botix.CodeUnauthorized {
		t.Fatalf("after the deletion: %v", err)
	}
}
