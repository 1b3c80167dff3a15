package botix_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/botix/public-api/sdk/go/botix"
)

// recordSleeps makes c record each wait between attempts instead of
// waiting (still ending early when ctx ends, like the real wait).
func recordSleeps(c *botix.Client) *[]time.Duration {
	var mu sync.Mutex
	var got []time.Duration
	botix.SetSleep(c, func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		got = append(got, d)
		mu.Unlock()
		return ctx.Err()
	})
	return &got
}

// TestOperationError: every way a mutating call can fail returns an
// *OperationError with the key every attempt sent and the attempts the
// server saw, wrapping a cause that errors.Is / errors.As still find.
func TestOperationError(t *testing.T) {
	hang := func(w http.ResponseWriter) { time.Sleep(300 * time.Millisecond) }
	cases := []struct {
		name       string
		answers    []func(http.ResponseWriter)
		policy     botix.RetryPolicy
		opts       []botix.Option
		ctx        func() (context.Context, context.CancelFunc)
		attempts   int
		is         []error // errors.Is must hold
		isNot      []error // errors.Is must not hold
		code       botix.Code
		reissuable bool
	}{
		{name: "an API refusal (422) is returned at once, not worth re-issuing",
			answers: []func(http.ResponseWriter){apiError(422, "VALIDATION_FAILED")}, attempts: 1,
			isNot: []error{botix.ErrGaveUp}, code: botix.CodeValidationFailed},
		{name: "409 CONTACT_ALREADY_EXISTS is not worth re-issuing",
			answers: []func(http.ResponseWriter){apiError(409, "CONTACT_ALREADY_EXISTS")}, attempts: 1,
			code: botix.CodeContactAlreadyExists},
		{name: "an outage longer than the attempts: ErrGaveUp with the last *Error",
			answers: []func(http.ResponseWriter){apiError(503, "SERVICE_UNAVAILABLE")}, attempts: 4,
			is: []error{botix.ErrGaveUp}, isNot: []error{botix.ErrRetryQuotaExhausted}, code: botix.CodeServiceUnavailable, reissuable: true},
		{name: "every answer lost: ErrGaveUp after the attempts, worth re-issuing",
			answers: []func(http.ResponseWriter){drop}, attempts: 4,
			is: []error{botix.ErrGaveUp}, reissuable: true},
		{name: "every attempt timed out: ErrGaveUp and ErrAttemptTimeout, not the caller's deadline",
			answers: []func(http.ResponseWriter){hang}, opts: []botix.Option{botix.WithAttemptTimeout(50 * time.Millisecond)}, attempts: 4,
			is: []error{botix.ErrGaveUp, botix.ErrAttemptTimeout}, isNot: []error{context.DeadlineExceeded}, reissuable: true},
		{name: "the quota is empty: ErrRetryQuotaExhausted, not ErrGaveUp",
			answers: []func(http.ResponseWriter){apiError(503, "SERVICE_UNAVAILABLE")},
			policy:  botix.RetryPolicy{MaxAttempts: 4, QuotaCapacity: 4}, attempts: 1,
			is: []error{botix.ErrRetryQuotaExhausted}, isNot: []error{botix.ErrGaveUp}, code: botix.CodeServiceUnavailable, reissuable: true},
		{name: "the deadline comes before the next attempt: context.DeadlineExceeded at once, with the last *Error",
			answers: []func(http.ResponseWriter){apiError(503, "SERVICE_UNAVAILABLE", "Retry-After", "30")},
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 10*time.Second)
			}, attempts: 1,
			is: []error{context.DeadlineExceeded}, code: botix.CodeServiceUnavailable, reissuable: true},
		{name: "the deadline ends an attempt: context.DeadlineExceeded, not ErrAttemptTimeout",
			answers: []func(http.ResponseWriter){hang},
			ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), 100*time.Millisecond)
			}, attempts: 1,
			is: []error{context.DeadlineExceeded}, isNot: []error{botix.ErrAttemptTimeout}, reissuable: true},
		{name: "cancelled before the call: context.Canceled, nothing sent",
			answers: []func(http.ResponseWriter){created},
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx, cancel
			}, attempts: 0, is: []error{context.Canceled}, reissuable: true},
		{name: "cancelled with a cause: context.Canceled and the cause",
			answers: []func(http.ResponseWriter){created},
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancelCause(context.Background())
				cancel(errShutdown)
				return ctx, func() {}
			}, attempts: 0, is: []error{context.Canceled, errShutdown}, reissuable: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, c.answers...)
			policy := c.policy
			if policy.MaxAttempts == 0 {
				policy = botix.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}
			}
			policy.BaseDelay, policy.MaxDelay = time.Millisecond, 5*time.Millisecond
			client := botix.NewClient("bx_test", append([]botix.Option{botix.WithBaseURL(f.url), botix.WithRetryPolicy(policy)}, c.opts...)...)
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if c.ctx != nil {
				ctx, cancel = c.ctx()
			}
			defer cancel()
			_, err := client.Contacts.Create(ctx, contact)
			var opErr *botix.OperationError
			if !errors.As(err, &opErr) {
				t.Fatalf("%v (%T) is no *botix.OperationError", err, err)
			}
			reqs := f.requests()
			if opErr.Attempts != c.attempts || len(reqs) != c.attempts {
				t.Fatalf("Attempts %d, the server saw %d, want %d: %v", opErr.Attempts, len(reqs), c.attempts, err)
			}
			if !botix.ValidIdempotencyKey(opErr.IdempotencyKey) {
				t.Fatalf("the error carries key %q", opErr.IdempotencyKey)
			}
			for _, r := range reqs {
				if r.Header.Get("Idempotency-Key") != opErr.IdempotencyKey {
					t.Fatalf("the error says key %q, an attempt sent %q", opErr.IdempotencyKey, r.Header.Get("Idempotency-Key"))
				}
			}
			if opErr.Method != http.MethodPost || opErr.Path != "/contacts" {
				t.Fatalf("%s %s", opErr.Method, opErr.Path)
			}
			for _, target := range c.is {
				if !errors.Is(err, target) {
					t.Errorf("errors.Is(err, %v) is false: %v", target, err)
				}
			}
			for _, target := range c.isNot {
				if errors.Is(err, target) {
					t.Errorf("errors.Is(err, %v) is true: %v", target, err)
				}
			}
			var apiErr *botix.Error
			if got := errors.As(err, &apiErr); got != (c.code != "") || (got && apiErr.Code != c.code) {
				t.Errorf("errors.As *botix.Error: %v, want code %q: %v", got, c.code, err)
			}
			if opErr.Reissuable() != c.reissuable {
				t.Errorf("Reissuable %v, want %v", opErr.Reissuable(), c.reissuable)
			}
		})
	}
}

var errShutdown = errors.New("shutting down")

// TestDeadlineDuringBackoff: a deadline that ends while the call waits
// between attempts ends it with context.DeadlineExceeded (the wait does not
// run to its end); cancelling does the same with context.Canceled.
func TestDeadlineDuringBackoff(t *testing.T) {
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"a deadline during the wait", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 200*time.Millisecond)
		}, context.DeadlineExceeded},
		{"a cancellation during the wait", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(200*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, apiError(503, "SERVICE_UNAVAILABLE"))
			// A delay the deadline allows (1 ms), but a wait that lasts until
			// the context ends: the deadline or the cancellation comes while
			// the call waits.
			c := botix.NewClient("bx_test", botix.WithBaseURL(f.url), botix.WithRetryPolicy(botix.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}))
			var waits int
			botix.SetSleep(c, func(ctx context.Context, d time.Duration) error {
				waits++
				<-ctx.Done()
				return ctx.Err()
			})
			ctx, cancel := tc.ctx()
			defer cancel()
			_, err := c.Contacts.Create(ctx, contact)
			var apiErr *botix.Error
			if !errors.Is(err, tc.want) || !errors.As(err, &apiErr) || attemptsOf(err) != 1 || waits != 1 {
				t.Fatalf("%v (%d waits); want %v wrapping the last 503 after 1 attempt", err, waits, tc.want)
			}
		})
	}
}

// TestRetryPolicyDefaults: zero fields of a policy mean their default,
// field by field; MaxAttempts 1 never retries; a negative QuotaCapacity
// means no quota.
func TestRetryPolicyDefaults(t *testing.T) {
	d := botix.DefaultRetryPolicy
	cases := []struct {
		name string
		in   botix.RetryPolicy
		want botix.RetryPolicy
	}{
		{"the zero policy is the default policy", botix.RetryPolicy{}, d},
		{"MaxDelay alone keeps the other defaults", botix.RetryPolicy{MaxDelay: time.Second},
			botix.RetryPolicy{MaxAttempts: d.MaxAttempts, BaseDelay: d.BaseDelay, MaxDelay: time.Second, MaxRetryAfter: d.MaxRetryAfter, QuotaCapacity: d.QuotaCapacity}},
		{"MaxAttempts 1 is kept: never retry", botix.RetryPolicy{MaxAttempts: 1},
			botix.RetryPolicy{MaxAttempts: 1, BaseDelay: d.BaseDelay, MaxDelay: d.MaxDelay, MaxRetryAfter: d.MaxRetryAfter, QuotaCapacity: d.QuotaCapacity}},
		{"a negative QuotaCapacity is kept: no quota", botix.RetryPolicy{QuotaCapacity: -1},
			botix.RetryPolicy{MaxAttempts: d.MaxAttempts, BaseDelay: d.BaseDelay, MaxDelay: d.MaxDelay, MaxRetryAfter: d.MaxRetryAfter, QuotaCapacity: -1}},
		{"negative attempts and delays mean the defaults", botix.RetryPolicy{MaxAttempts: -3, BaseDelay: -1, MaxDelay: -1, MaxRetryAfter: -1}, d},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := botix.PolicyOf(botix.NewClient("bx_test", botix.WithRetryPolicy(c.in))); got != c.want {
				t.Fatalf("%+v, want %+v", got, c.want)
			}
		})
	}
	if d.MaxAttempts != 5 || d.BaseDelay != 200*time.Millisecond || d.MaxDelay != 20*time.Second || d.MaxRetryAfter != time.Minute || d.QuotaCapacity != 500 {
		t.Fatalf("DefaultRetryPolicy is %+v; the godoc and docs/integrators.md say 5, 200 ms, 20 s, 60 s, 500", d)
	}

	// Behaviour, not only the fields: against an API that always answers
	// 503, the zero policy makes 5 attempts, MaxAttempts 1 makes one.
	for _, tc := range []struct {
		policy   botix.RetryPolicy
		attempts int
	}{{botix.RetryPolicy{}, 5}, {botix.RetryPolicy{MaxAttempts: 1}, 1}} {
		f := newFake(t, apiError(503, "SERVICE_UNAVAILABLE"))
		c := botix.NewClient("bx_test", botix.WithBaseURL(f.url), botix.WithRetryPolicy(tc.policy))
		recordSleeps(c)
		_, err := c.Contacts.Create(context.Background(), contact)
		if len(f.requests()) != tc.attempts || attemptsOf(err) != tc.attempts {
			t.Fatalf("%+v: %d requests, %v; want %d attempts", tc.policy, len(f.requests()), err, tc.attempts)
		}
	}

	// The quota: the default (500 tokens, 5 a retry) allows 100 retries
	// with no success in between; a negative capacity allows them all.
	for _, tc := range []struct {
		capacity, retried int
	}{{0, 100}, {-1, 150}} {
		f := newFake(t, apiError(503, "SERVICE_UNAVAILABLE"))
		c := botix.NewClient("bx_test", botix.WithBaseURL(f.url), botix.WithRetryPolicy(botix.RetryPolicy{MaxAttempts: 2, QuotaCapacity: tc.capacity}))
		recordSleeps(c)
		retried := 0
		for range 150 {
			_, err := c.Contacts.Get(context.Background(), "ct_1")
			if errors.Is(err, botix.ErrGaveUp) {
				retried++
			}
		}
		if retried != tc.retried {
			t.Fatalf("QuotaCapacity %d: %d of 150 failing calls were retried, want %d", tc.capacity, retried, tc.retried)
		}
	}
}

// TestRetryAfterCap: a Retry-After above MaxRetryAfter is waited
// MaxRetryAfter, then the call is retried; the HTTP-date form is read too.
func TestRetryAfterCap(t *testing.T) {
	cases := []struct {
		name       string
		retryAfter string
		max        time.Duration
		min, upTo  time.Duration
	}{
		{"3600 s is capped at the default 60 s", "3600", 0, time.Minute, time.Minute},
		{"3600 s is capped at MaxRetryAfter", "3600", 2 * time.Second, 2 * time.Second, 2 * time.Second},
		{"under the cap, Retry-After is waited as said", "7", 0, 7 * time.Second, 7 * time.Second},
		{"an HTTP date 30 s ahead is waited about 30 s", time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat), 0, 25 * time.Second, 30 * time.Second},
		{"an HTTP date an hour ahead is capped", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), 0, time.Minute, time.Minute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, status(429, "Retry-After", c.retryAfter), created)
			client := botix.NewClient("bx_test", botix.WithBaseURL(f.url), botix.WithRetryPolicy(botix.RetryPolicy{MaxRetryAfter: c.max}))
			sleeps := recordSleeps(client)
			got, err := client.Contacts.Create(context.Background(), contact)
			if err != nil || got.Response.Attempts != 2 {
				t.Fatalf("%v %+v: past the cap the call is retried", err, got)
			}
			if len(*sleeps) != 1 || (*sleeps)[0] < c.min || (*sleeps)[0] > c.upTo {
				t.Fatalf("waited %v, want [%s, %s]", *sleeps, c.min, c.upTo)
			}
		})
	}
}

// TestAttemptTimeoutZero: WithAttemptTimeout(0) means no per-attempt
// timeout, not a timeout of zero that fails every call.
func TestAttemptTimeoutZero(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter) { time.Sleep(50 * time.Millisecond); created(w) })
	got, err := fast(f, botix.WithAttemptTimeout(0)).Contacts.Create(context.Background(), contact)
	if err != nil || got.Response.Attempts != 1 {
		t.Fatalf("%v %+v", err, got)
	}
}

// TestAttemptTimeoutWhileReadingTheBody: an attempt whose answer stalls
// half-way is abandoned at the attempt timeout and retried with the same
// key; when it is the last attempt, the error is ErrAttemptTimeout, not
// the caller's context.DeadlineExceeded.
func TestAttemptTimeoutWhileReadingTheBody(t *testing.T) {
	release := make(chan struct{})
	stall := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id":"ct_1",`)
		http.NewResponseController(w).Flush()
		<-release
	}
	f := newFake(t, stall, created)
	t.Cleanup(func() { close(release) })
	got, err := fast(f, botix.WithAttemptTimeout(200*time.Millisecond)).Contacts.Create(context.Background(), contact)
	if err != nil || got.Response.Attempts != 2 || got.ID != "ct_1" {
		t.Fatalf("%v %+v", err, got)
	}

	f.setAnswers(stall)
	_, err = fast(f, botix.WithAttemptTimeout(200*time.Millisecond), botix.WithRetryPolicy(botix.RetryPolicy{MaxAttempts: 1})).Contacts.Create(context.Background(), contact)
	if !errors.Is(err, botix.ErrAttemptTimeout) || !errors.Is(err, botix.ErrGaveUp) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v", err)
	}
}

// TestRedirectsAreNotFollowed: a 3xx is an error of one attempt, not a
// success, nor a POST turned into a GET elsewhere.
func TestRedirectsAreNotFollowed(t *testing.T) {
	for _, code := range []int{http.StatusFound, http.StatusTemporaryRedirect} {
		f := newFake(t, status(code, "Location", "/elsewhere"))
		_, err := fast(f).Contacts.Create(context.Background(), contact)
		var apiErr *botix.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != code || len(f.requests()) != 1 || attemptsOf(err) != 1 {
			t.Fatalf("%d: %v, %d requests", code, err, len(f.requests()))
		}
	}
}

// TestReadOnlyErrors: a GET's error is an *OperationError too, with no key.
func TestReadOnlyErrors(t *testing.T) {
	f := newFake(t, apiError(404, "NOT_FOUND"))
	_, err := fast(f).Contacts.Get(context.Background(), "ct_1")
	var opErr *botix.OperationError
	if !errors.As(err, &opErr) || opErr.IdempotencyKey != "" || opErr.Method != http.MethodGet || opErr.Attempts != 1 || opErr.Reissuable() {
		t.Fatalf("%v %+v", err, opErr)
	}
}

// TestInvalidKeyError: a key the API would refuse sends nothing; the error
// says so with 0 attempts.
func TestInvalidKeyError(t *testing.T) {
	f := newFake(t, created)
	_, err := fast(f).Contacts.Create(context.Background(), contact, botix.WithIdempotencyKey("order-42"))
	var opErr *botix.OperationError
	if !errors.Is(err, botix.ErrInvalidIdempotencyKey) || !errors.As(err, &opErr) || opErr.Attempts != 0 || opErr.Reissuable() || len(f.requests()) != 0 {
		t.Fatalf("%v", err)
	}
}

// TestReissue: a create whose every answer was lost fails; re-issued with
// the error's key it gets the stored result (a replay), and the API made
// one contact. A new call (a new key) would have made a second.
func TestReissue(t *testing.T) {
	var mu sync.Mutex
	stored := map[string]bool{}
	made, lose := 0, true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		key := r.Header.Get("Idempotency-Key")
		replay := stored[key]
		if !replay {
			stored[key] = true
			made++
		}
		l := lose
		mu.Unlock()
		if l {
			drop(w)
			return
		}
		if replay {
			w.Header().Set("Idempotent-Replayed", "true")
		}
		created(w)
	}))
	t.Cleanup(srv.Close)
	c := botix.NewClient("bx_test", botix.WithBaseURL(srv.URL), botix.WithRetryPolicy(botix.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}))
	ctx := context.Background()
	_, err := c.Contacts.Create(ctx, contact)
	var opErr *botix.OperationError
	if !errors.As(err, &opErr) || !errors.Is(err, botix.ErrGaveUp) || !opErr.Reissuable() {
		t.Fatalf("%v", err)
	}
	mu.Lock()
	lose = false
	mu.Unlock()
	got, err := c.Contacts.Create(ctx, contact, opErr.Reissue())
	if err != nil || !got.Response.Replayed || got.Response.IdempotencyKey != opErr.IdempotencyKey {
		t.Fatalf("%v %+v", err, got)
	}
	if made != 1 {
		t.Fatalf("%d contacts made", made)
	}
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestRefusalWinsOverTheDeadline: a 422 that arrives as the caller's
// context ends is returned as the 422 (the request must change), not as
// context.Canceled; a 503 in the same situation ends with the context's
// error, since it would have been retried.
func TestRefusalWinsOverTheDeadline(t *testing.T) {
	for _, tc := range []struct {
		status int
		code   string
		want   error
	}{{422, "VALIDATION_FAILED", nil}, {503, "SERVICE_UNAVAILABLE", context.Canceled}} {
		ctx, cancel := context.WithCancel(context.Background())
		answer := func(r *http.Request) (*http.Response, error) {
			rec := httptest.NewRecorder()
			apiError(tc.status, tc.code)(rec)
			cancel() // the context ends as the answer arrives
			return rec.Result(), nil
		}
		c := botix.NewClient("bx_test", botix.WithBaseURL("http://api.invalid"), botix.WithHTTPClient(&http.Client{Transport: roundTripFunc(answer)}))
		_, err := c.Contacts.Create(ctx, contact)
		var apiErr *botix.Error
		if tc.want == nil && (!errors.As(err, &apiErr) || apiErr.StatusCode != tc.status || errors.Is(err, context.Canceled)) {
			t.Fatalf("%d: %v", tc.status, err)
		}
		if tc.want != nil && (!errors.Is(err, tc.want) || !errors.As(err, &apiErr)) {
			t.Fatalf("%d: %v; want %v wrapping the answer", tc.status, err, tc.want)
		}
	}
	// WithHTTPClient(nil) keeps http.DefaultClient instead of panicking.
	f := newFake(t, created)
	if _, err := botix.NewClient("bx_test", botix.WithBaseURL(f.url), botix.WithHTTPClient(nil)).Contacts.Create(context.Background(), contact); err != nil {
		t.Fatal(err)
	}
}
