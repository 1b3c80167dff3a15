package apitest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Received is one request a Receiver got.
type Received struct {
	At     time.Time
	Header http.Header
	Body   []byte
}

// Receiver is a webhook receiver for tests: it records every request and
// answers with Respond (200 when nil).
type Receiver struct {
	URL string
	// Respond decides the answer to the n-th request (0-based).
	Respond func(n int, r *http.Request, w http.ResponseWriter)

	mu  sync.Mutex
	got []Received
}

// NewReceiver starts a receiver on loopback, stopped when the test ends.
func NewReceiver(t testing.TB, respond func(n int, r *http.Request, w http.ResponseWriter)) *Receiver {
	rc := &Receiver{Respond: respond}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		n := len(rc.got)
		rc.got = append(rc.got, Received{At: time.Now(), Header: r.Header.Clone(), Body: body})
		respond := rc.Respond
		rc.mu.Unlock()
		if respond == nil {
			w.WriteHeader(http.StatusOK)
			return
		}
		respond(n, r, w)
	}))
	t.Cleanup(srv.Close)
	rc.URL = srv.URL + "/hooks"
	return rc
}

// Requests returns what the receiver got so far.
func (rc *Receiver) Requests() []Received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]Received(nil), rc.got...)
}

// SetRespond replaces the answering function.
func (rc *Receiver) SetRespond(f func(n int, r *http.Request, w http.ResponseWriter)) {
	rc.mu.Lock()
	rc.Respond = f
	rc.mu.Unlock()
}

// Eventually polls cond until it holds or timeout passes.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s", what, timeout)
}
