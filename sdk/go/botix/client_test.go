package botix_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botix/public-api/sdk/go/botix"
)

// fake is an API that answers from a script, one answer per request (the
// last one repeats), and records what it got.
type fake struct {
	mu      sync.Mutex
	answers []func(w http.ResponseWriter)
	got     []*http.Request
	at      []time.Time
	url     string
}

func newFake(t *testing.T, answers ...func(w http.ResponseWriter)) *fake {
	f := &fake{answers: answers}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		n := len(f.got)
		f.got = append(f.got, r.Clone(context.Background()))
		f.at = append(f.at, time.Now())
		answer := f.answers[min(n, len(f.answers)-1)]
		f.mu.Unlock()
		answer(w)
	}))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

func (f *fake) requests() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.got...)
}

func (f *fake) setAnswers(a ...func(w http.ResponseWriter)) {
	f.mu.Lock()
	f.answers = a
	f.mu.Unlock()
}

func status(code int, headers ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("X-Request-Id", fmt.Sprintf("req_%d", code))
		w.WriteHeader(code)
	}
}

func apiError(code int, errCode string, headers ...string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		status(code, append(headers, "Content-Type", "application/json")...)(w)
		fmt.Fprintf(w, `{"error":{"code":%q,"message":"it is %s","request_id":"req_%d","field":"phone","details":{"phone":"bad"}}}`, errCode, errCode, code)
	}
}

func created(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Request-Id", "req_ok")
	w.WriteHeader(http.StatusCreated)
	fmt.Fprint(w, `{"id":"ct_1","phone":"+79990000000","name":"Ivan","tags":[],"created_at":"2026-11-29T08:00:00Z","unknown":"ignored"}`)
}

// drop lets the request arrive, then closes the connection without an answer.
func drop(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

func fast(f *fake, extra ...botix.Option) *botix.Client {
	opts := append([]botix.Option{botix.WithBaseURL(f.url), botix.WithRetryPolicy(botix.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, QuotaCapacity: 500})}, extra...)
	return botix.NewClient("bx_test", opts...)
}

var contact = botix.ContactCreate{Phone: "+79990000000", Name: "Ivan"}

func TestRetries(t *testing.T) {
	cases := []struct {
		name     string
		answers  []func(w http.ResponseWriter)
		attempts int
		code     botix.Code // "" for success
	}{
		{"503, 503, then 201: one call, one key, three attempts", []func(http.ResponseWriter){apiError(503, "SERVICE_UNAVAILABLE"), apiError(503, "SERVICE_UNAVAILABLE"), created}, 3, ""},
		{"a dropped answer is retried with the same key", []func(http.ResponseWriter){drop, created}, 2, ""},
		{"API Gateway's 429 without the envelope is retried", []func(http.ResponseWriter){status(429), created}, 2, ""},
		{"a 500 is retried", []func(http.ResponseWriter){apiError(500, "INTERNAL"), created}, 2, ""},
		{"422 is not retried", []func(http.ResponseWriter){apiError(422, "VALIDATION_FAILED"), created}, 1, botix.CodeValidationFailed},
		{"409 CONTACT_ALREADY_EXISTS is not retried", []func(http.ResponseWriter){apiError(409, "CONTACT_ALREADY_EXISTS"), created}, 1, botix.CodeContactAlreadyExists},
		{"409 IDEMPOTENCY_KEY_REUSE_CONFLICT is not retried", []func(http.ResponseWriter){apiError(409, "IDEMPOTENCY_KEY_REUSE_CONFLICT"), created}, 1, botix.CodeIdempotencyKeyReuseConflict},
		{"401 is not retried", []func(http.ResponseWriter){apiError(401, "UNAUTHORIZED"), created}, 1, botix.CodeUnauthorized},
		{"an outage longer than the attempts gives up with the last error", []func(http.ResponseWriter){apiError(503, "SERVICE_UNAVAILABLE")}, 4, botix.CodeServiceUnavailable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, c.answers...)
			got, err := fast(f).Contacts.Create(context.Background(), contact)
			reqs := f.requests()
			if len(reqs) != c.attempts {
				t.Fatalf("%d attempts, want %d (err %v)", len(reqs), c.attempts, err)
			}
			key := reqs[0].Header.Get("Idempotency-Key")
			if !botix.ValidIdempotencyKey(key) {
				t.Fatalf("key %q", key)
			}
			for _, r := range reqs {
				if r.Header.Get("Idempotency-Key") != key {
					t.Fatalf("a retry sent key %q after %q: a new key per attempt brings duplicates back", r.Header.Get("Idempotency-Key"), key)
				}
			}
			if c.code == "" {
				if err != nil || got.ID != "ct_1" || got.Response.Attempts != c.attempts || got.Response.IdempotencyKey != key || got.Response.RequestID != "req_ok" {
					t.Fatalf("%+v %v", got, err)
				}
				return
			}
			var e *botix.Error
			if !errors.As(err, &e) || e.Code != c.code || e.RequestID == "" || e.Message == "" {
				t.Fatalf("error %v, want %s", err, c.code)
			}
		})
	}
}

// TestRetryAfter: the server's Retry-After wins over the backoff, on 429,
// 503 and 409 IDEMPOTENCY_KEY_IN_PROGRESS; the in-progress wait keeps the
// key and surfaces no error.
func TestRetryAfter(t *testing.T) {
	for _, first := range []func(http.ResponseWriter){
		status(429, "Retry-After", "1"),
		apiError(503, "SERVICE_UNAVAILABLE", "Retry-After", "1"),
		apiError(409, "IDEMPOTENCY_KEY_IN_PROGRESS", "Retry-After", "1"),
	} {
		f := newFake(t, first, created)
		if _, err := fast(f).Contacts.Create(context.Background(), contact); err != nil {
			t.Fatal(err)
		}
		if gap := f.at[1].Sub(f.at[0]); gap < time.Second {
			t.Fatalf("the retry came %s after the answer that said Retry-After: 1", gap)
		}
	}
}

// TestRetryQuota: against a server that always fails, retries stop once
// the quota is spent (and the error says why); after the server heals,
// successes refill it and retries resume.
func TestRetryQuota(t *testing.T) {
	f := newFake(t, apiError(503, "SERVICE_UNAVAILABLE"))
	c := botix.NewClient("bx_test", botix.WithBaseURL(f.url),
		botix.WithRetryPolicy(botix.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, QuotaCapacity: 20}))
	ctx := context.Background()
	calls := 0
	for ; calls < 20; calls++ {
		_, err := c.Contacts.Get(ctx, "ct_1")
		if errors.Is(err, botix.ErrRetryQuotaExhausted) {
			var e *botix.Error
			if !errors.As(err, &e) || e.Code != botix.CodeServiceUnavailable {
				t.Fatalf("the quota error does not carry the last failure: %v", err)
			}
			break
		}
	}
	// 20 tokens pay for 4 retries of 5: two calls of 3 attempts, then a
	// call that fails on its first attempt and is not retried.
	if n := len(f.requests()); calls != 2 || n != 7 {
		t.Fatalf("the quota tripped at call %d after %d requests; want call 2 after 7", calls, n)
	}
	before := len(f.requests())
	if _, err := c.Contacts.Get(ctx, "ct_1"); !errors.Is(err, botix.ErrRetryQuotaExhausted) || len(f.requests()) != before+1 {
		t.Fatalf("with the quota spent a call must try once and stop: %v", err)
	}

	f.setAnswers(created)
	for range 5 {
		if _, err := c.Contacts.Get(ctx, "ct_1"); err != nil {
			t.Fatal(err)
		}
	}
	f.setAnswers(apiError(503, "SERVICE_UNAVAILABLE"), created)
	f.mu.Lock()
	f.got = nil
	f.mu.Unlock()
	if _, err := c.Contacts.Get(ctx, "ct_1"); err != nil || len(f.requests()) != 2 {
		t.Fatalf("after 5 successes a retry is allowed again: %v, %d requests", err, len(f.requests()))
	}
}

func TestIdempotencyKeys(t *testing.T) {
	f := newFake(t, created)
	c := fast(f)
	ctx := context.Background()
	mine := "01JDQ4Z8M3V6K2N9P5R7T1W0XY"
	if got, err := c.Contacts.Create(ctx, contact, botix.WithIdempotencyKey(mine)); err != nil || got.Response.IdempotencyKey != mine {
		t.Fatalf("%v %+v", err, got)
	}
	if _, err := c.Contacts.Create(ctx, contact, botix.WithIdempotencyKey("order-42")); !errors.Is(err, botix.ErrInvalidIdempotencyKey) {
		t.Fatalf("an invalid key: %v", err)
	}
	_, _ = c.Contacts.Create(ctx, contact)
	_, _ = c.Contacts.Get(ctx, "ct_1")
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests: an invalid key must send nothing", len(reqs))
	}
	if k := reqs[1].Header.Get("Idempotency-Key"); k == mine || !botix.ValidIdempotencyKey(k) {
		t.Fatalf("a second call reused key %q", k)
	}
	if reqs[2].Header.Get("Idempotency-Key") != "" {
		t.Fatal("a GET sent an Idempotency-Key")
	}
	for _, r := range reqs {
		if r.Header.Get("Authorization") != "Bearer bx_test" || !strings.HasPrefix(r.Header.Get("User-Agent"), "botix-go/") {
			t.Fatalf("headers %v", r.Header)
		}
	}
}

func TestValidIdempotencyKey(t *testing.T) {
	for key, want := range map[string]bool{
		"3f0c8a4e-2d3b-4c8e-9f1a-7b6d5e4c3a21": true,
		"3F0C8A4E-2D3B-4C8E-9F1A-7B6D5E4C3A21": true,
		"01JDQ4Z8M3V6K2N9P5R7T1W0XY":           true,
		"3f0c8a4e-2d3b-1c8e-9f1a-7b6d5e4c3a21": false, // v1
		"3f0c8a4e-2d3b-4c8e-cf1a-7b6d5e4c3a21": false, // variant
		"81JDQ4Z8M3V6K2N9P5R7T1W0XY":           false, // > 128 bits
		"01JDQ4Z8M3V6K2N9P5R7T1W0XU":           false, // U is not Crockford
		"":                                     false,
	} {
		if got := botix.ValidIdempotencyKey(key); got != want {
			t.Errorf("%q: %v", key, got)
		}
	}
}

func TestErrorFields(t *testing.T) {
	f := newFake(t, apiError(422, "VALIDATION_FAILED"))
	_, err := fast(f).Contacts.Create(context.Background(), contact)
	var e *botix.Error
	if !errors.As(err, &e) {
		t.Fatal(err)
	}
	want := botix.Error{StatusCode: 422, Code: botix.CodeValidationFailed, Message: "it is VALIDATION_FAILED", RequestID: "req_422", Field: "phone"}
	if e.StatusCode != want.StatusCode || e.Code != want.Code || e.Message != want.Message || e.RequestID != want.RequestID || e.Field != want.Field || e.Details["phone"] != "bad" {
		t.Fatalf("%+v", e)
	}
	if s := e.Error(); s != "botix: HTTP 422 VALIDATION_FAILED: it is VALIDATION_FAILED (request_id req_422)" {
		t.Fatalf("%q", s)
	}
}

// TestAttemptTimeout: an attempt that outlives WithAttemptTimeout is
// abandoned and retried with the same key, like a lost answer.
func TestAttemptTimeout(t *testing.T) {
	release := make(chan struct{})
	f := newFake(t, func(w http.ResponseWriter) { <-release }, created)
	t.Cleanup(func() { close(release) }) // before the server's Close, which waits for the handler
	got, err := fast(f, botix.WithAttemptTimeout(200*time.Millisecond)).Contacts.Create(context.Background(), contact)
	if err != nil || got.Response.Attempts != 2 {
		t.Fatalf("%v %+v", err, got)
	}
	reqs := f.requests()
	if reqs[0].Header.Get("Idempotency-Key") != reqs[1].Header.Get("Idempotency-Key") {
		t.Fatal("the retry after a timeout changed the key")
	}
}

// TestNoSilentResends: net/http's Transport re-sends on its own a request
// it thinks replayable (a GET, or one carrying an Idempotency-Key with no
// body or a rewindable one) when a reused keep-alive connection dies
// before the answer. The server here answers a warm-up request, which
// leaves the connection idle in the pool, then reads each API request and
// closes the connection without answering. Every request the server saw
// must be an attempt the SDK counted (one here: MaxAttempts 1), else the
// re-sends escape the backoff, the quota, Attempts and the logger.
func TestNoSilentResends(t *testing.T) {
	var mu sync.Mutex
	seen := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/warm" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		mu.Lock()
		seen++
		mu.Unlock()
		drop(w)
	}))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	desc := "d"
	cases := []struct {
		name string
		call func(c *botix.Client) error
	}{
		{"POST with a body (Contacts.Create)", func(c *botix.Client) error {
			_, err := c.Contacts.Create(ctx, contact)
			return err
		}},
		{"POST without a body (WebhookEndpoints.RotateSecret)", func(c *botix.Client) error {
			_, err := c.WebhookEndpoints.RotateSecret(ctx, "we_1")
			return err
		}},
		{"PATCH (WebhookEndpoints.Update)", func(c *botix.Client) error {
			_, err := c.WebhookEndpoints.Update(ctx, "we_1", botix.WebhookEndpointUpdate{Description: &desc})
			return err
		}},
		{"DELETE without a body (WebhookEndpoints.Delete)", func(c *botix.Client) error {
			_, err := c.WebhookEndpoints.Delete(ctx, "we_1")
			return err
		}},
		{"GET (Contacts.Get)", func(c *botix.Client) error {
			_, err := c.Contacts.Get(ctx, "ct_1")
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hc := &http.Client{Transport: &http.Transport{}}
			t.Cleanup(hc.CloseIdleConnections)
			c := botix.NewClient("bx_test", botix.WithBaseURL(srv.URL), botix.WithHTTPClient(hc), botix.WithRetryPolicy(botix.RetryPolicy{MaxAttempts: 1}))
			warm, err := hc.Get(srv.URL + "/warm")
			if err != nil {
				t.Fatal(err)
			}
			warm.Body.Close()
			mu.Lock()
			seen = 0
			mu.Unlock()
			err = tc.call(c)
			if err == nil {
				t.Fatal("a dropped answer returned no error")
			}
			attempts := attemptsOf(err)
			mu.Lock()
			defer mu.Unlock()
			if seen != attempts {
				t.Fatalf("the server saw %d requests, the SDK counted %d attempts: the transport re-sent on its own", seen, attempts)
			}
		})
	}
}

// attemptsOf is the attempt count an error reports (-1: it reports none).
func attemptsOf(err error) int {
	var opErr *botix.OperationError
	if !errors.As(err, &opErr) {
		return -1
	}
	return opErr.Attempts
}

// TestErrorBodiesAreReadUpToALimit: an error answer with an endless body
// (a hostile or broken server) ends the attempt with the status, after at
// most 64 KiB, instead of reading forever.
func TestErrorBodiesAreReadUpToALimit(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		chunk := []byte(strings.Repeat("x", 4096))
		for i := 0; i < 100000; i++ { // 400 MB if read to the end
			if _, err := w.Write(chunk); err != nil {
				return
			}
			served.Add(int64(len(chunk)))
		}
	}))
	defer srv.Close()
	c := botix.NewClient("bx_test", botix.WithBaseURL(srv.URL))
	_, err := c.Contacts.Get(context.Background(), "ct_01JDQ7X3ZV8N5W2K4R6T9Y1B3C")
	var apiErr *botix.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest {
		t.Fatalf("err = %v", err)
	}
	if n := served.Load(); n > 16<<20 {
		t.Fatalf("the client read on: the server wrote %d bytes", n)
	}
}
