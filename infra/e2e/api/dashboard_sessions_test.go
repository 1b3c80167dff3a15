package api_test

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.yaml.in/yaml/v3"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/sdk"
)

type dashboardSession struct {
	ID        string `json:"id"`
	Scope     string `json:"scope"`
	Token     string `json:"token"`
	CreatedAt string `json:"created_at"`
	ExpiresAt string `json:"expires_at"`
}

func session(c localtest.Client, scope string, ttl string) dashboardSession {
	c.T.Helper()
	body := `{"scope":"` + scope + `"` + ttl + `}`
	r := c.Post("/public/v1/dashboard-sessions", uuid.NewString(), body)
	if r.Status != 201 {
		c.T.Fatalf("create session: %d %s", r.Status, r.Body)
	}
	var s dashboardSession
	r.JSON(c.T, &s)
	return s
}

// TestDashboardSessionsEndToEnd: a session made with the key reads what
// the key reads, a read_retry one also retries and recovers, neither does
// anything else; expiry and revocation stop it; its project is the key's.
func TestDashboardSessionsEndToEnd(t *testing.T) {
	var offset atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	rt := localtest.Runtime(t, local.Config{Options: []app.Option{app.WithClock(clock)}})
	_, key := localtest.Project(t, rt, "")
	_, otherKey := localtest.Project(t, rt, "")
	c := localtest.Client{T: t, Base: rt.URL, Key: key}
	other := localtest.Client{T: t, Base: rt.URL, Key: otherKey}

	t.Run("create -> 201 with the token once, an hour by default; a replay shows the same token", func(t *testing.T) {
		k := uuid.NewString()
		r := c.Post("/public/v1/dashboard-sessions", k, `{"scope":"read"}`)
		var s dashboardSession
		r.JSON(t, &s)
		if r.Status != 201 || !strings.HasPrefix(s.ID, "dss_") || !strings.HasPrefix(s.Token, "bxs_") || s.Scope != "read" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		created, _ := time.Parse(time.RFC3339Nano, s.CreatedAt)
		expires, _ := time.Parse(time.RFC3339Nano, s.ExpiresAt)
		if expires.Sub(created) != time.Hour {
			t.Fatalf("lives %v, want the default hour", expires.Sub(created))
		}
		again := c.Post("/public/v1/dashboard-sessions", k, `{"scope":"read"}`)
		if again.Status != 201 || string(again.Body) != string(r.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay: %d %s", again.Status, again.Body)
		}
	})
	for name, body := range map[string]string{
		"no scope":              `{"ttl_seconds":600}`,
		"unknown scope":         `{"scope":"admin"}`,
		"ttl below a minute":    `{"scope":"read","ttl_seconds":59}`,
		"ttl above 12 hours":    `{"scope":"read","ttl_seconds":43201}`,
		"ttl of the wrong type": `{"scope":"read","ttl_seconds":"600"}`,
	} {
		t.Run(name+" -> 422 VALIDATION_FAILED", func(t *testing.T) {
			r := c.Post("/public/v1/dashboard-sessions", uuid.NewString(), body)
			if r.Status != 422 || !strings.Contains(string(r.Body), `"VALIDATION_FAILED"`) {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		})
	}

	read, readRetry := session(c, "read", ""), session(c, "read_retry", "")
	t.Run("every route admits a session exactly where the OpenAPI document says", func(t *testing.T) {
		admits := sessionSecurity(t)
		tpl, err := template.LoadRepo()
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, r := range tpl.Routes() {
			op := strings.ToLower(r.Method) + " " + r.Path
			scheme, documented := admits[op]
			if !documented {
				continue // public: no key, no session
			}
			for _, s := range []dashboardSession{read, readRetry} {
				// A session of scope read is admitted by the routes that
				// admit sessions and read; read_retry by all of them.
				admitted := scheme && (r.Method == "GET" || s.Scope == "read_retry")
				reply := callRoute(t, c.As(s.Token), r)
				refused := reply.Status == 403 && strings.Contains(string(reply.Body), `"INSUFFICIENT_SCOPE"`)
				if admitted == refused || reply.Status == 401 {
					t.Errorf("%s with scope %s: %d %s (admitted by the document: %v)", r.Key, s.Scope, reply.Status, reply.Body, admitted)
				}
				checked++
			}
		}
		if checked < 40 {
			t.Fatalf("only %d route calls checked", checked)
		}
	})
	t.Run("current names the request's session and its scope, never the token; the key has none", func(t *testing.T) {
		r := c.As(readRetry.Token).Get("/public/v1/dashboard-sessions/current")
		want := `{"id":"` + readRetry.ID + `","scope":"read_retry","created_at":"` + readRetry.CreatedAt + `","expires_at":"` + readRetry.ExpiresAt + `"}`
		if r.Status != 200 || string(r.Body) != want {
			t.Fatalf("%d %s, want %s", r.Status, r.Body, want)
		}
		if r := c.Get("/public/v1/dashboard-sessions/current"); r.Status != 404 || !strings.Contains(string(r.Body), "API key") {
			t.Fatalf("with the key: %d %s", r.Status, r.Body)
		}
	})
	t.Run("a refused session does not take the Idempotency-Key", func(t *testing.T) {
		k := uuid.NewString()
		body := `{"phone":"+79990007001","name":"Ivan"}`
		if r := c.As(readRetry.Token).Post("/public/v1/contacts", k, body); r.Status != 403 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if r := c.Post("/public/v1/contacts", k, body); r.Status != 201 || r.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("the key's first use after the refusal: %d %v %s", r.Status, r.Header, r.Body)
		}
	})
	t.Run("a session sees its own project only", func(t *testing.T) {
		mine := c.Post("/public/v1/webhook-endpoints", uuid.NewString(), `{"url":"https://example.com/mine","events":["contact.created"]}`)
		theirs := other.Post("/public/v1/webhook-endpoints", uuid.NewString(), `{"url":"https://example.com/theirs","events":["contact.created"]}`)
		var m, o struct{ ID string }
		mine.JSON(t, &m)
		theirs.JSON(t, &o)
		s := c.As(read.Token)
		if r := s.Get("/public/v1/webhook-endpoints/" + o.ID); r.Status != 404 {
			t.Fatalf("another project's endpoint: %d %s", r.Status, r.Body)
		}
		list := s.Get("/public/v1/webhook-endpoints")
		if list.Status != 200 || !strings.Contains(string(list.Body), m.ID) || strings.Contains(string(list.Body), o.ID) {
			t.Fatalf("list: %d %s", list.Status, list.Body)
		}
	})
	t.Run("revocation stops the token at once; a second one is 404", func(t *testing.T) {
		s := session(c, "read_retry", "")
		if r := c.As(s.Token).Get("/public/v1/webhook-deliveries"); r.Status != 200 {
			t.Fatalf("before: %d %s", r.Status, r.Body)
		}
		if r := other.Del("/public/v1/dashboard-sessions/"+s.ID, uuid.NewString()); r.Status != 404 {
			t.Fatalf("another project's key revoked it: %d %s", r.Status, r.Body)
		}
		r := c.Del("/public/v1/dashboard-sessions/"+s.ID, uuid.NewString())
		if r.Status != 200 || string(r.Body) != `{"deleted":true,"id":"`+s.ID+`"}` {
			t.Fatalf("revoke: %d %s", r.Status, r.Body)
		}
		after := c.As(s.Token).Get("/public/v1/webhook-deliveries")
		if after.Status != 401 || !strings.Contains(string(after.Body), "revoked") {
			t.Fatalf("after: %d %s", after.Status, after.Body)
		}
		if r := c.Del("/public/v1/dashboard-sessions/"+s.ID, uuid.NewString()); r.Status != 404 {
			t.Fatalf("second revocation: %d %s", r.Status, r.Body)
		}
	})
	t.Run("expiry stops the token at expires_at", func(t *testing.T) {
		s := session(c, "read", `,"ttl_seconds":60`)
		if r := c.As(s.Token).Get("/public/v1/events"); r.Status != 200 {
			t.Fatalf("before: %d %s", r.Status, r.Body)
		}
		offset.Store(int64(61 * time.Second))
		defer offset.Store(0)
		r := c.As(s.Token).Get("/public/v1/events")
		if r.Status != 401 || !strings.Contains(string(r.Body), "expired") {
			t.Fatalf("after: %d %s", r.Status, r.Body)
		}
		if r := c.Del("/public/v1/dashboard-sessions/"+s.ID, uuid.NewString()); r.Status != 404 {
			t.Fatalf("revoking an expired session: %d %s", r.Status, r.Body)
		}
		if r := c.Get("/public/v1/events"); r.Status != 200 {
			t.Fatalf("the key after its session expired: %d %s", r.Status, r.Body)
		}
	})
}

// sessionSecurity reads, per authenticated operation of the OpenAPI
// document ("get /public/v1/contacts"), whether its security admits the
// dashboardSession scheme.
func sessionSecurity(t *testing.T) map[string]bool {
	t.Helper()
	var doc struct {
		Security []map[string][]string           `yaml:"security"`
		Paths    map[string]map[string]yaml.Node `yaml:"paths"`
	}
	if err := yaml.Unmarshal(sdk.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for path, item := range doc.Paths {
		for method, node := range item {
			if !slices.Contains([]string{"get", "post", "put", "patch", "delete"}, method) {
				continue
			}
			var op struct {
				Security *[]map[string][]string `yaml:"security"`
			}
			if err := node.Decode(&op); err != nil {
				t.Fatal(err)
			}
			sec := doc.Security
			if op.Security != nil {
				sec = *op.Security
			}
			if len(sec) == 0 {
				continue
			}
			out[method+" "+strings.ReplaceAll(path, "{proxy}", "{proxy+}")] = slices.ContainsFunc(sec, func(s map[string][]string) bool { _, ok := s["dashboardSession"]; return ok })
		}
	}
	return out
}

// callRoute calls a route with the client's bearer: well-formed ids of
// nothing in the path, an empty JSON body and a fresh key for mutations.
func callRoute(t *testing.T, c localtest.Client, r template.Route) apitest.Reply {
	t.Helper()
	path := pathParam.ReplaceAllStringFunc(r.Path, func(p string) string {
		if p == "{id}" {
			return "01JDQ7X3ZV8N5W2K4R6T9Y1B3G"
		}
		return "x"
	})
	if r.Method == "GET" {
		return c.Get(path)
	}
	return apitest.Do(t, r.Method, c.Base+path, []byte(`{}`), "Authorization", "Bearer "+c.Key, "Content-Type", "application/json", "Idempotency-Key", uuid.NewString())
}
