package local_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/localtest"
)

// The meter counts what AWS bills for the glue: one invocation per call of
// a function, billed at least a millisecond, and one HTTP API request per
// request the API received, whether or not a route matched.
func TestMeterCountsInvocationsAndAPIRequests(t *testing.T) {
	meter := &local.Meter{}
	rt := localtest.Runtime(t, local.Config{Meter: meter})
	_, key := localtest.Project(t, rt, "")
	send := func(method, path, body string) int {
		req, _ := http.NewRequest(method, rt.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "01JDQ7X3ZV8N5W2K4R6T9Y1B3Z")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := send(http.MethodPost, "/public/v1/contacts", `{"phone":"+79990000001","name":"Meter"}`); s != http.StatusCreated {
		t.Fatalf("create contact: %d", s)
	}
	if s := send(http.MethodPost, "/public/v1/contacts", `{"phone":"+79990000001","name":"Meter"}`); s != http.StatusCreated {
		t.Fatalf("replay: %d", s)
	}
	got := meter.Read()
	cases := []struct {
		name      string
		count     int
		wantCount int
	}{
		{"the admin function ran once (the project)", got.Functions["AdminFunction"].Count, 1},
		{"the create function ran once per request, the replay included", got.Functions["CreateContactFunction"].Count, 2},
		{"the API received two requests", got.APIRequests, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.count != c.wantCount {
				t.Errorf("%d, want %d", c.count, c.wantCount)
			}
		})
	}
	for fn, inv := range got.Functions {
		if inv.BilledMS < int64(inv.Count) {
			t.Errorf("%s: %d ms billed for %d invocations; Lambda bills at least 1 ms each", fn, inv.BilledMS, inv.Count)
		}
	}
	meter.Reset()
	if r := meter.Read(); r.APIRequests != 0 || len(r.Functions) != 0 {
		t.Errorf("after Reset: %+v", r)
	}
}

func TestSQSChunks(t *testing.T) {
	cases := []struct {
		name    string
		payload int
		want    int
	}{
		{"a request without payload is one request", 0, 1},
		{"up to 64 KB is one request", 64 << 10, 1},
		{"a byte more is two", 64<<10 + 1, 2},
		{"256 KB is four", 256 << 10, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := local.SQSChunks(c.payload); got != c.want {
				t.Errorf("SQSChunks(%d) = %d, want %d", c.payload, got, c.want)
			}
		})
	}
}
