package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/auth"
)

func TestErrorResponse(t *testing.T) {
	cases := []struct {
		name       string
		err        error
		status     int
		code       string
		retryAfter string
		leaks      string
	}{
		{"public error keeps code and message", apierr.New(apierr.NotFound, "no <such> thing"), 404, "NOT_FOUND", "", ""},
		{"unavailable carries Retry-After", apierr.Unavailable(errors.New("dynamodb: throttled at 10.0.0.1")), 503, "SERVICE_UNAVAILABLE", "1", "10.0.0.1"},
		{"internal error hides its text", errors.New("secret table arn:aws:dynamodb:x"), 500, "INTERNAL", "", "arn:aws"},
		{"validation names the first field", apierr.Problems{"phone": "bad", "email": "bad"}.Err(), 422, "VALIDATION_FAILED", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := ErrorResponse(c.err, "req_1")
			var env envelope
			if err := json.Unmarshal(r.Body, &env); err != nil {
				t.Fatal(err)
			}
			if r.Status != c.status || string(env.Error.Code) != c.code || env.Error.RequestID != "req_1" {
				t.Fatalf("got %d %+v", r.Status, env)
			}
			if got := r.Header.Get("Retry-After"); got != c.retryAfter {
				t.Fatalf("Retry-After = %q, want %q", got, c.retryAfter)
			}
			if c.leaks != "" && strings.Contains(string(r.Body), c.leaks) {
				t.Fatalf("body leaks %q: %s", c.leaks, r.Body)
			}
			if strings.Contains(string(r.Body), `\u003c`) {
				t.Fatalf("body is HTML-escaped: %s", r.Body)
			}
		})
	}
	if env := ErrorResponse(apierr.Problems{"phone": "bad", "email": "bad"}.Err(), "r"); !strings.Contains(string(env.Body), `"field":"email"`) {
		t.Fatalf("first field not named: %s", env.Body)
	}
}

func TestDecode(t *testing.T) {
	type in struct {
		Name  string   `json:"name"`
		Tags  []string `json:"tags"`
		Count int      `json:"count"`
	}
	cases := []struct {
		name, body string
		code       apierr.Code
		field      string
	}{
		{"valid", `{"name":"a"}`, "", ""},
		{"empty body is an empty object", ``, "", ""},
		{"syntax error", `{"name":`, apierr.InvalidJSON, ""},
		{"two values", `{} {}`, apierr.InvalidJSON, ""},
		{"unknown field", `{"nme":"a"}`, apierr.ValidationFailed, "nme"},
		{"wrong type names the field", `{"tags":"a"}`, apierr.ValidationFailed, "tags"},
		{"not an object", `[1]`, apierr.ValidationFailed, ""},
		{"invalid UTF-8 is not replaced, it is refused", "{\"name\":\"\xff\xfe\"}", apierr.InvalidJSON, ""},
		{"null where a string is expected names the field", `{"name":null}`, apierr.ValidationFailed, "name"},
		{"null in an array names its index", `{"tags":["a",null]}`, apierr.ValidationFailed, "tags[1]"},
		{"null for an array", `{"tags":null}`, apierr.ValidationFailed, "tags"},
		{"a null body", `null`, apierr.ValidationFailed, "body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var v in
			err := Decode([]byte(c.body), &v)
			if c.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			e, ok := apierr.As(err)
			if !ok || e.Code != c.code {
				t.Fatalf("err = %v, want %s", err, c.code)
			}
			if c.field != "" {
				if _, ok := e.Fields[c.field]; !ok {
					t.Fatalf("field %q not named: %v", c.field, e.Fields)
				}
			}
		})
	}
}

func TestServeRecoversPanicsWithoutLeaking(t *testing.T) {
	e := &Endpoint{Handler: func(context.Context, *Request) (*Response, error) { panic("db password is hunter2") }}
	resp, err := e.Serve(context.Background(), events.APIGatewayV2HTTPRequest{RouteKey: "GET /x"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusInternalServerError || strings.Contains(resp.Body, "hunter2") || !strings.Contains(resp.Body, `"INTERNAL"`) {
		t.Fatalf("got %d %s", resp.StatusCode, resp.Body)
	}
	if !strings.HasPrefix(resp.Headers["X-Request-Id"], "req_") {
		t.Fatalf("no request id: %v", resp.Headers)
	}
}

type keyring struct{}

func (keyring) Authenticate(context.Context, string) (auth.Caller, error) {
	return auth.Caller{Project: "prj_1"}, nil
}

// sessions authenticates every token as a session of the scope it names.
type sessions struct{}

func (sessions) Authenticate(_ context.Context, token string) (auth.Caller, error) {
	return auth.Caller{Project: "prj_1", Session: &auth.Session{ID: "dss_1", Project: "prj_1", Scope: auth.Scope(token)}}, nil
}

func TestSessionsCallOnlyTheRoutesTheirScopeGrants(t *testing.T) {
	for _, c := range []struct {
		name   string
		scope  auth.Scope
		grant  auth.Grant
		status int
	}{
		{"read session on a read route", auth.ScopeRead, auth.GrantRead, 200},
		{"read_retry session on a read route", auth.ScopeReadRetry, auth.GrantRead, 200},
		{"read_retry session on a retry route", auth.ScopeReadRetry, auth.GrantRetry, 200},
		{"read session on a retry route -> 403 INSUFFICIENT_SCOPE", auth.ScopeRead, auth.GrantRetry, 403},
		{"read session on a key-only route -> 403 INSUFFICIENT_SCOPE", auth.ScopeRead, "", 403},
		{"read_retry session on a key-only route -> 403 INSUFFICIENT_SCOPE", auth.ScopeReadRetry, "", 403},
		{"unknown scope on a read route -> 403 INSUFFICIENT_SCOPE", "admin", auth.GrantRead, 403},
	} {
		t.Run(c.name, func(t *testing.T) {
			ran := false
			e := &Endpoint{Auth: sessions{}, SessionGrant: c.grant, Handler: func(_ context.Context, r *Request) (*Response, error) {
				ran = true
				if r.Project != "prj_1" || r.Session == nil || r.Session.ID != "dss_1" {
					t.Errorf("request acts for %q/%+v", r.Project, r.Session)
				}
				return JSON(200, map[string]int{})
			}}
			resp, _ := e.Serve(context.Background(), events.APIGatewayV2HTTPRequest{RouteKey: "POST /x", Headers: map[string]string{"authorization": "Bearer " + string(c.scope)}})
			if resp.StatusCode != c.status || ran != (c.status == 200) {
				t.Fatalf("got %d %s (handler ran: %v)", resp.StatusCode, resp.Body, ran)
			}
			if c.status == 403 && (!strings.Contains(resp.Body, `"INSUFFICIENT_SCOPE"`) || !strings.Contains(resp.Body, "POST /x")) {
				t.Fatalf("body %s", resp.Body)
			}
		})
	}
	t.Run("an API key calls a key-only route", func(t *testing.T) {
		e := &Endpoint{Auth: keyring{}, Handler: func(context.Context, *Request) (*Response, error) { return JSON(200, map[string]int{}) }}
		resp, _ := e.Serve(context.Background(), events.APIGatewayV2HTTPRequest{RouteKey: "POST /x", Headers: map[string]string{"authorization": "Bearer bx_test_0123456789abcdef"}})
		if resp.StatusCode != 200 {
			t.Fatalf("got %d %s", resp.StatusCode, resp.Body)
		}
	})
}

func TestRepeatedOrEmptyQueryParametersAreRefused(t *testing.T) {
	e := &Endpoint{Auth: keyring{}, Handler: func(context.Context, *Request) (*Response, error) { return JSON(200, map[string]int{}) }}
	for _, c := range []struct {
		query  string
		status int
	}{
		{"status=dead", 200},
		{"status=dead&status=delivered", 400},
		{"cursor_limit=5&cursor_limit=200", 400},
		{"tag=a&tag=a", 400},
		{"endpoint_id=", 400},
		{"status=dead&since=", 400},
		{"cursor=", 400},
	} {
		t.Run(c.query, func(t *testing.T) {
			resp, _ := e.Serve(context.Background(), events.APIGatewayV2HTTPRequest{RouteKey: "GET /x", RawQueryString: c.query, Headers: map[string]string{"authorization": "Bearer bx_test_0123456789abcdef"}})
			if resp.StatusCode != c.status || (c.status == 400 && !strings.Contains(resp.Body, `"INVALID_PARAMETER"`)) {
				t.Fatalf("got %d %s", resp.StatusCode, resp.Body)
			}
		})
	}
}

func TestEveryCodeHasAStatus(t *testing.T) {
	for c, s := range Codes() {
		if s < 400 || s > 599 {
			t.Errorf("%s -> %d", c, s)
		}
	}
}
