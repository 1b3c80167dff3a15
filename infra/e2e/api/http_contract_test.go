package api_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/localtest"
)

var requestID = regexp.MustCompile(`^req_[0-9A-HJKMNP-TV-Z]{26}$`)

// TestHTTPContract walks the common HTTP contract (ids, auth, envelope,
// tenancy) through the local runtime's HTTP API.
func TestHTTPContract(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	_, key := localtest.Project(t, rt, "")
	_, otherKey := localtest.Project(t, rt, "")
	contacts := rt.URL + "/public/v1/contacts"
	auth := func(k string) []string {
		return []string{"Authorization", "Bearer " + k, "Content-Type", "application/json", "Idempotency-Key", uuid.NewString()}
	}
	body := []byte(`{"phone":"+79990000000","name":"Ivan","tags":["vip"]}`)

	var created struct {
		ID        string   `json:"id"`
		Phone     string   `json:"phone"`
		CreatedAt string   `json:"created_at"`
		Tags      []string `json:"tags"`
	}
	t.Run("create contact -> 201 with ct_ id and ms timestamp", func(t *testing.T) {
		r := apitest.Do(t, http.MethodPost, contacts, body, auth(key)...)
		if r.Status != http.StatusCreated {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		r.JSON(t, &created)
		if !strings.HasPrefix(created.ID, "ct_") || created.Phone != "+79990000000" {
			t.Fatalf("contact %+v", created)
		}
		if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`).MatchString(created.CreatedAt) {
			t.Fatalf("created_at %q is not RFC 3339 with ms", created.CreatedAt)
		}
		if !requestID.MatchString(r.Header.Get("X-Request-Id")) {
			t.Fatalf("X-Request-Id %q", r.Header.Get("X-Request-Id"))
		}
	})
	cases := []struct {
		name, method, url string
		body              []byte
		headers           []string
		status            int
		code              string
	}{
		{"same phone again -> 409 CONTACT_ALREADY_EXISTS", "POST", contacts, []byte(`{"phone":"+79990000000","name":"Other"}`), auth(key), 409, "CONTACT_ALREADY_EXISTS"},
		{"no key -> 401", "POST", contacts, body, []string{"Content-Type", "application/json"}, 401, "UNAUTHORIZED"},
		{"unknown key -> 401", "POST", contacts, body, auth("bx_live_0000000000000000000000000000000000000000"), 401, "UNAUTHORIZED"},
		{"malformed authorization -> 401", "GET", contacts + "/" + created.ID, nil, []string{"Authorization", "Basic abc"}, 401, "UNAUTHORIZED"},
		{"bad JSON -> 400 INVALID_JSON", "POST", contacts, []byte(`{"phone":`), auth(key), 400, "INVALID_JSON"},
		{"invalid phone -> 422 naming the field", "POST", contacts, []byte(`{"phone":"8999","name":"Ivan"}`), auth(key), 422, "VALIDATION_FAILED"},
		{"unknown field -> 422", "POST", contacts, []byte(`{"phone":"+79990000009","name":"Ivan","age":3}`), auth(key), 422, "VALIDATION_FAILED"},
		{"wrong type -> 422", "POST", contacts, []byte(`{"phone":79990000009,"name":"Ivan"}`), auth(key), 422, "VALIDATION_FAILED"},
		{"form body -> 415", "POST", contacts, []byte(`phone=1`), []string{"Authorization", "Bearer " + key, "Content-Type", "application/x-www-form-urlencoded", "Idempotency-Key", uuid.NewString()}, 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"too large body -> 413", "POST", contacts, []byte(`{"name":"` + strings.Repeat("x", 70<<10) + `"}`), auth(key), 413, "PAYLOAD_TOO_LARGE"},
		{"unknown route -> 404 envelope", "GET", rt.URL + "/public/v1/nope", nil, nil, 404, "NOT_FOUND"},
		{"unknown method on a known path -> 404 envelope", "DELETE", contacts, nil, auth(key), 404, "NOT_FOUND"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := apitest.Do(t, c.method, c.url, c.body, c.headers...)
			if r.Status != c.status || r.ErrorCode() != c.code {
				t.Fatalf("got %d %s, want %d %s: %s", r.Status, r.ErrorCode(), c.status, c.code, r.Body)
			}
			var env apitest.ErrorEnvelope
			r.JSON(t, &env)
			if env.Error.RequestID != r.Header.Get("X-Request-Id") || !requestID.MatchString(env.Error.RequestID) {
				t.Fatalf("envelope request_id %q vs header %q", env.Error.RequestID, r.Header.Get("X-Request-Id"))
			}
		})
	}
	t.Run("validation names the field", func(t *testing.T) {
		r := apitest.Do(t, "POST", contacts, []byte(`{"phone":"8999","name":"Ivan"}`), auth(key)...)
		var env struct {
			Error struct {
				Field string `json:"field"`
			} `json:"error"`
		}
		r.JSON(t, &env)
		if env.Error.Field != "phone" {
			t.Fatalf("field = %q: %s", env.Error.Field, r.Body)
		}
	})
	t.Run("get by id -> 200", func(t *testing.T) {
		r := apitest.Do(t, "GET", contacts+"/"+created.ID, nil, auth(key)...)
		if r.Status != 200 || !strings.Contains(string(r.Body), created.ID) {
			t.Fatalf("got %d: %s", r.Status, r.Body)
		}
	})
	t.Run("another project's key -> 404", func(t *testing.T) {
		r := apitest.Do(t, "GET", contacts+"/"+created.ID, nil, auth(otherKey)...)
		if r.Status != 404 || r.ErrorCode() != "NOT_FOUND" {
			t.Fatalf("got %d: %s", r.Status, r.Body)
		}
	})
}

// TestStageThrottlingAnswers429: past the stage's rate and burst (template
// parameters ApiThrottlingRateLimit, ApiThrottlingBurstLimit) API Gateway
// answers 429 itself, with its own body, before any function runs.
func TestStageThrottlingAnswers429(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{Parameters: map[string]string{"ApiThrottlingRateLimit": "1", "ApiThrottlingBurstLimit": "2"}})
	var statuses []int
	var last apitest.Reply
	for range 3 {
		last = apitest.Do(t, http.MethodGet, rt.URL+"/public/v1/nope", nil)
		statuses = append(statuses, last.Status)
	}
	if statuses[0] != 404 || statuses[1] != 404 || statuses[2] != 429 || string(last.Body) != `{"message":"Too Many Requests"}` {
		t.Fatalf("statuses %v, last body %s", statuses, last.Body)
	}
}
