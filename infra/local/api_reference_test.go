package local_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/botix/public-api/infra/apitest"
	"github.com/botix/public-api/infra/local"
	"github.com/botix/public-api/infra/localtest"
	"github.com/botix/public-api/sdk"
)

// TestAPIReferenceIsServed: GET /public/v1/openapi.json answers, without a
// key, exactly sdk/openapi.yaml as JSON, and a revalidation with its ETag
// costs no bytes.
func TestAPIReferenceIsServed(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	r := apitest.Do(t, "GET", rt.URL+"/public/v1/openapi.json", nil)
	if r.Status != http.StatusOK || r.Header.Get("Etag") == "" || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %v", r.Status, r.Header)
	}
	var fromYAML any
	if err := yaml.Unmarshal(sdk.OpenAPI, &fromYAML); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(fromYAML)
	var served any
	if err := json.Unmarshal(r.Body, &served); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(served)
	if !bytes.Equal(got, want) {
		t.Fatal("the served document differs from sdk/openapi.yaml")
	}
	again := apitest.Do(t, "GET", rt.URL+"/public/v1/openapi.json", nil, "If-None-Match", r.Header.Get("Etag"))
	if again.Status != http.StatusNotModified || len(again.Body) != 0 {
		t.Fatalf("revalidation: %d, %d bytes", again.Status, len(again.Body))
	}
}
