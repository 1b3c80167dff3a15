package apitest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botix/public-api/infra/testkit/apicontract"
)

// Received is one request a Receiver got.
type Received struct {
	At     time.Time
	Header http.Header
	Body   []byte
}

// Receiver is a webhook receiver for tests: it records every request,
// checks it against the webhooks of sdk/openapi.yaml (the test fails at its
// end on a mismatch), and answers with Respond (200 when nil).
type Receiver struct {
	URL string
	// Respond decides the answer to the n-th request (0-based).
	Respond func(n int, r *http.Request, w http.ResponseWriter)

	mu        sync.Mutex
	got       []Received
	problems  []string
	synthetic atomic.Bool
}

// Synthetic marks the receiver of a test that writes its own events into
// the store (bodies the API never makes): their webhooks are not checked
// against the document.
func (rc *Receiver) Synthetic() *Receiver {
	rc.synthetic.Store(true)
	return rc
}

// NewReceiver starts a receiver on loopback, stopped when the test ends.
func NewReceiver(t testing.TB, respond func(n int, r *http.Request, w http.ResponseWriter)) *Receiver {
	rc := &Receiver{Respond: respond}
	contract, err := apicontract.Shared()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var problems []string
		if !rc.synthetic.Load() {
			problems = contract.CheckWebhook(r.Header, body)
		}
		rc.mu.Lock()
		n := len(rc.got)
		rc.got = append(rc.got, Received{At: time.Now(), Header: r.Header.Clone(), Body: body})
		for _, p := range problems {
			rc.problems = append(rc.problems, fmt.Sprintf("%.300s: %s", body, p))
		}
		respond := rc.Respond
		rc.mu.Unlock()
		if respond == nil {
			w.WriteHeader(http.StatusOK)
			return
		}
		respond(n, r, w)
	}))
	t.Cleanup(func() {
		srv.Close()
		rc.mu.Lock()
		defer rc.mu.Unlock()
		for _, p := range rc.problems {
			t.Errorf("a webhook breaks the webhooks of sdk/openapi.yaml: %s", p)
		}
	})
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

// Eventually polls cond until it holds or timeout passes, and asks once
// more at the deadline. The polls start 50 ms apart and back off to a
// thirtieth of the timeout (at most a second): many conditions read the
// store, and a wait of minutes that read it 20 times a second took the
// engine's time from the system it waited on (make test runs two packages
// against one DynamoDB Local).
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	longest := min(time.Second, max(pollFirst, timeout/30))
	for wait := pollFirst; ; wait = min(longest, wait*3/2) {
		if cond() {
			return
		}
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		time.Sleep(min(wait, left))
	}
	t.Fatalf("%s: not within %s", what, timeout)
}

// pollFirst is Eventually's first interval.
const pollFirst = 50 * time.Millisecond
