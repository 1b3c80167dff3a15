// Package apitest holds HTTP helpers for tests of the API and of
// webhooks: requests read whole, error codes, webhook receivers that
// record what they get, and polling until a condition holds. It links no
// engine and no emulator.
package apitest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

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

// ErrorEnvelope is the body of the API's error answers (its fields the
// tests read).
type ErrorEnvelope struct {
	Error struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		RequestID string `json:"request_id"`
	} `json:"error"`
}

// ErrorCode returns the envelope's error code ("" if the body has none).
func (r Reply) ErrorCode() string {
	var env ErrorEnvelope
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
