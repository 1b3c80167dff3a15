package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/internal/admin"
)

// listedSessions is a page of GET /public/v1/dashboard-sessions.
type listedSessions struct {
	Data []struct {
		ID    string  `json:"id"`
		Scope string  `json:"scope"`
		KeyID *string `json:"key_id"`
	} `json:"data"`
	HasMore bool `json:"has_more"`
}

func liveSessions(c localtest.Client) map[string]string {
	c.T.Helper()
	r := c.Get("/public/v1/dashboard-sessions")
	if r.Status != 200 || strings.Contains(string(r.Body), "bxs_") || strings.Contains(string(r.Body), "token") {
		c.T.Fatalf("list sessions: %d %s", r.Status, r.Body)
	}
	var page listedSessions
	r.JSON(c.T, &page)
	out := map[string]string{}
	for _, s := range page.Data {
		out[s.ID] = ""
		if s.KeyID != nil {
			out[s.ID] = *s.KeyID
		}
	}
	return out
}

func adminDo(t *testing.T, rt *local.Runtime, req admin.Request) admin.Response {
	t.Helper()
	out, err := rt.Invoke(context.Background(), "AdminFunction", req)
	if err != nil {
		t.Fatal(err)
	}
	var resp admin.Response
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	return resp
}

// TestSessionsEndWithTheirKey: a dashboard session records the API key
// that made it and stops working when the key is revoked; the project's
// key holder lists the live sessions (never their tokens), a session may
// not; revoke_sessions ends the rest.
func TestSessionsEndWithTheirKey(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	project, key := localtest.Project(t, rt, "")
	_, otherKey := localtest.Project(t, rt, "")
	extra := adminDo(t, rt, admin.Request{Action: "create_api_key", ProjectID: project})
	owner := localtest.Client{T: t, Base: rt.URL, Key: key}
	teammate := localtest.Client{T: t, Base: rt.URL, Key: extra.APIKey}
	other := localtest.Client{T: t, Base: rt.URL, Key: otherKey}

	byExtra := session(teammate, "read", "")
	byOwner := session(owner, "read_retry", "")
	mainKeyID := ""

	t.Run("the key holder lists every live session with the key that made it", func(t *testing.T) {
		got := liveSessions(owner)
		if len(got) != 2 || got[byExtra.ID] != extra.KeyID || got[byOwner.ID] == "" || got[byOwner.ID] == extra.KeyID {
			t.Fatalf("listed %v; want %s by %s and %s by the other key", got, byExtra.ID, extra.KeyID, byOwner.ID)
		}
		mainKeyID = got[byOwner.ID]
		if got := liveSessions(other); len(got) != 0 {
			t.Fatalf("another project lists %v", got)
		}
	})
	t.Run("a session may not list sessions -> 403 INSUFFICIENT_SCOPE", func(t *testing.T) {
		if r := owner.As(byOwner.Token).Get("/public/v1/dashboard-sessions"); r.Status != 403 || !strings.Contains(string(r.Body), "INSUFFICIENT_SCOPE") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("revoke_api_key ends the key's sessions at once, and no other", func(t *testing.T) {
		resp := adminDo(t, rt, admin.Request{Action: "revoke_api_key", ProjectID: project, KeyID: extra.KeyID})
		if !resp.Revoked || resp.SessionsRevoked == nil || *resp.SessionsRevoked != 1 {
			t.Fatalf("revoke_api_key answered %+v", resp)
		}
		if r := owner.As(byExtra.Token).Get("/public/v1/contacts"); r.Status != 401 {
			t.Fatalf("the revoked key's session: %d %s", r.Status, r.Body)
		}
		if r := owner.As(byOwner.Token).Get("/public/v1/contacts"); r.Status != 200 {
			t.Fatalf("the other key's session: %d %s", r.Status, r.Body)
		}
		if got := liveSessions(owner); len(got) != 1 || got[byOwner.ID] != mainKeyID {
			t.Fatalf("listed %v after the revocation", got)
		}
	})
	t.Run("revoke_sessions ends the project's remaining sessions", func(t *testing.T) {
		resp := adminDo(t, rt, admin.Request{Action: "revoke_sessions", ProjectID: project})
		if resp.SessionsRevoked == nil || *resp.SessionsRevoked != 1 {
			t.Fatalf("revoke_sessions answered %+v", resp)
		}
		if r := owner.As(byOwner.Token).Get("/public/v1/contacts"); r.Status != 401 {
			t.Fatalf("after revoke_sessions: %d %s", r.Status, r.Body)
		}
		if got := liveSessions(owner); len(got) != 0 {
			t.Fatalf("listed %v after revoke_sessions", got)
		}
	})
}
