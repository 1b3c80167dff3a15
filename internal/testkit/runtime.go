package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"testing"

	"github.com/botix/public-api/infra/local"
	"github.com/botix/public-api/infra/template"
	"github.com/botix/public-api/internal/admin"
	"github.com/botix/public-api/internal/app"
)

// Runtime starts the local runtime on a free port over fresh tables and
// stops it when the test ends. cfg's Template, DynamoDBEndpoint and
// TablePrefix are filled in.
func Runtime(t testing.TB, cfg local.Config) *local.Runtime {
	t.Helper()
	tpl, err := template.LoadRepo()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Template = tpl
	cfg.DynamoDBEndpoint = DynamoDBEndpoint(t)
	cfg.TablePrefix = UniquePrefix()
	if os.Getenv("BOTIX_TEST_LOGS") == "" {
		// Function logs are noise in test output unless asked for.
		cfg.Options = append([]app.Option{app.WithLogger(slog.New(slog.DiscardHandler))}, cfg.Options...)
	}
	rt, err := local.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = rt.Close()
		// Every call a function made must be one its IAM policy allows.
		for _, c := range rt.UndeclaredCalls() {
			t.Errorf("undeclared AWS call (add it to registry.Permissions and template.yaml, or remove it): %s", c)
		}
	})
	return rt
}

// Project creates a project through the admin function and returns its id
// and a fresh API key (or apiKey when given).
func Project(t testing.TB, rt *local.Runtime, apiKey string) (string, string) {
	t.Helper()
	out, err := rt.Invoke(context.Background(), "AdminFunction", admin.Request{Action: "create_project", Name: "test", APIKey: apiKey})
	if err != nil {
		t.Fatal(err)
	}
	var resp admin.Response
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatal(err)
	}
	return resp.Project.ID, resp.APIKey
}

// Reply is an HTTP response read whole.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test on error.
func (r Reply) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("body %s: %v", r.Body, err)
	}
}

// ErrorCode returns the envelope's error code ("" if the body has none).
func (r Reply) ErrorCode() string {
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &env)
	return env.Error.Code
}

// Do sends a request; headers are name, value pairs.
func Do(t testing.TB, method, url string, body []byte, headers ...string) Reply {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Reply{Status: resp.StatusCode, Header: resp.Header, Body: b}
}
