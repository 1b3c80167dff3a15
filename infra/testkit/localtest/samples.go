package localtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/botix/public-api/infra/run/template"
)

// Expectation is what an HTTP sample in events/ answers.
type Expectation struct {
	Status int    `json:"status"`
	Code   string `json:"code"`
}

// Sample returns events/<fn>.json.
func Sample(t testing.TB, fn string) []byte {
	t.Helper()
	root, err := template.Root()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "events", fn+".json"))
	if err != nil {
		t.Fatalf("no sample event for %s: %v", fn, err)
	}
	return b
}

// SampleExpectations reads events/expected.json.
func SampleExpectations(t testing.TB) map[string]Expectation {
	t.Helper()
	var f struct {
		HTTP map[string]Expectation `json:"http"`
	}
	if err := json.Unmarshal(Sample(t, "expected"), &f); err != nil {
		t.Fatal(err)
	}
	return f.HTTP
}
