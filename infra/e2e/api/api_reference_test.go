package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/sdk"
)

// TestAPIReferenceIsServed: GET /public/v1/openapi.json answers, without a
// key, exactly sdk/openapi.yaml as JSON but for its servers, which are the
// serving deployment's base URL alone; a revalidation with its ETag costs
// no bytes.
func TestAPIReferenceIsServed(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	r := apitest.Do(t, "GET", rt.URL+"/public/v1/openapi.json", nil)
	if r.Status != http.StatusOK || r.Header.Get("Etag") == "" || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %v", r.Status, r.Header)
	}
	var fromYAML map[string]any
	if err := yaml.Unmarshal(sdk.OpenAPI, &fromYAML); err != nil {
		t.Fatal(err)
	}
	var served map[string]any
	if err := json.Unmarshal(r.Body, &served); err != nil {
		t.Fatal(err)
	}
	servers, _ := json.Marshal(served["servers"])
	if want := `[{"description":"this deployment","url":"` + rt.URL + `"}]`; string(servers) != want {
		t.Errorf("servers %s, want %s", servers, want)
	}
	fromYAML["servers"] = served["servers"]
	want, _ := json.Marshal(fromYAML)
	got, _ := json.Marshal(served)
	if !bytes.Equal(got, want) {
		t.Fatal("the served document differs from sdk/openapi.yaml")
	}
	again := apitest.Do(t, "GET", rt.URL+"/public/v1/openapi.json", nil, "If-None-Match", r.Header.Get("Etag"))
	if again.Status != http.StatusNotModified || len(again.Body) != 0 {
		t.Fatalf("revalidation: %d, %d bytes", again.Status, len(again.Body))
	}
}
