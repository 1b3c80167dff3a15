package botix

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// DefaultBaseURL is the API's address when neither WithBaseURL nor
// BOTIX_API_URL says otherwise: the local runtime that `make run` starts.
const DefaultBaseURL = "http://127.0.0.1:8080"

// Version is the SDK's version, sent in the User-Agent.
const Version = "1.2.0"

// RetryPolicy bounds the retries of one call. A zero field means its
// default (DefaultRetryPolicy's value), field by field: RetryPolicy{MaxDelay:
// time.Second} keeps the other defaults.
type RetryPolicy struct {
	// MaxAttempts is the number of HTTP attempts of a call, the first
	// included: 1 never retries; 0 (or less) means the default, 5.
	MaxAttempts int
	// BaseDelay and MaxDelay shape the backoff: before retry n the client
	// waits a random time in [0, min(MaxDelay, BaseDelay·2ⁿ⁻¹)] ("full
	// jitter"), unless the server said Retry-After. 0 (or less) means the
	// default, 200 ms and 20 s.
	BaseDelay, MaxDelay time.Duration
	// MaxRetryAfter caps the server's Retry-After: a longer one is waited
	// MaxRetryAfter, then the call is retried (the attempt still counts
	// against MaxAttempts and the quota). 0 (or less) means the default,
	// 60 s.
	MaxRetryAfter time.Duration
	// QuotaCapacity is the client's retry quota (a token bucket shared by
	// all its calls, as in the AWS SDKs' standard mode): a retry takes 5
	// tokens (10 after a timeout or a connection error), a success puts
	// back what its retries took, or 1 when it needed none. An empty
	// bucket stops retries until calls succeed again. 0 means the default,
	// 500; a negative capacity means no quota.
	QuotaCapacity int
}

// DefaultRetryPolicy is the policy of a client without WithRetryPolicy, and
// the value of each zero field of a policy given to WithRetryPolicy.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 5, BaseDelay: 200 * time.Millisecond, MaxDelay: 20 * time.Second, MaxRetryAfter: 60 * time.Second, QuotaCapacity: 500}

// withDefaults fills p's zero (or negative, except QuotaCapacity) fields
// from DefaultRetryPolicy.
func (p RetryPolicy) withDefaults() RetryPolicy {
	d := DefaultRetryPolicy
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = d.MaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = d.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = d.MaxDelay
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = d.MaxRetryAfter
	}
	if p.QuotaCapacity == 0 {
		p.QuotaCapacity = d.QuotaCapacity
	}
	return p
}

const (
	retryCost   = 5
	timeoutCost = 10
	successGain = 1
)

// Option configures a Client.
type Option func(*Client)

// WithBaseURL sets the API's base URL (scheme and host, e.g.
// https://api.example.com); the /public/v1 paths are added to it.
func WithBaseURL(u string) Option { return func(c *Client) { c.baseURL = strings.TrimRight(u, "/") } }

// WithHTTPClient replaces http.DefaultClient (nil keeps it). The client uses a copy that
// follows no redirect. Its Transport cannot re-send a request on its own:
// every request has a body the Transport cannot rewind (GetBody nil) or,
// for a POST without a body, carries its key under the Header map entry
// "idempotency-key" — the same header on the wire; a RoundTripper reads it
// there, not with Header.Get — so the Transport deems none replayable and
// each HTTP request is an attempt the client counts.
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithRetryPolicy replaces DefaultRetryPolicy; its zero fields keep their
// default.
func WithRetryPolicy(p RetryPolicy) Option { return func(c *Client) { c.policy = p } }

// WithAttemptTimeout bounds each HTTP attempt, reading the answer included
// (default 30 s); an attempt that times out fails with ErrAttemptTimeout
// and is retried like a lost connection. 0 (or less) means no per-attempt
// timeout. The caller's context bounds the whole call either way.
func WithAttemptTimeout(d time.Duration) Option { return func(c *Client) { c.attemptTimeout = d } }

// WithLogger logs each retry at Info (method, path, Idempotency-Key,
// attempt, delay, error) and each failed call at Debug; never the API key.
func WithLogger(l *slog.Logger) Option { return func(c *Client) { c.log = l } }

// WithUserAgent appends a product token to the User-Agent, e.g.
// "my-crm/2.3".
func WithUserAgent(suffix string) Option {
	return func(c *Client) { c.userAgent += " " + strings.TrimSpace(suffix) }
}

// CallOption configures one call.
type CallOption func(*callOptions)

type callOptions struct{ key string }

// WithIdempotencyKey makes a mutating call use key instead of a fresh
// UUIDv4: for an operation that outlives the process (a job id stored in
// your database), so that a retry after a restart is recognised too. The
// key must be a UUIDv4 or a ULID.
func WithIdempotencyKey(key string) CallOption { return func(o *callOptions) { o.key = key } }

// Response describes the HTTP answer a result came from.
type Response struct {
	StatusCode int
	RequestID  string
	// IdempotencyKey is the key a mutating call sent (on every attempt).
	IdempotencyKey string
	// Replayed is true when the API answered with the stored result of an
	// earlier request with the same key (Idempotent-Replayed: true), for
	// example because an earlier attempt's answer was lost on the way.
	Replayed bool
	// Attempts is how many HTTP attempts the call took.
	Attempts int
}

// Client calls the BOTIX public API. It is safe for concurrent use.
type Client struct {
	Contacts          *ContactsService
	Messages          *MessagesService
	Catalog           *CatalogService
	Scenarios         *ScenariosService
	WebhookEndpoints  *WebhookEndpointsService
	Deliveries        *DeliveriesService
	Inspectors        *InspectorsService
	Events            *EventsService
	DashboardSessions *DashboardSessionsService

	apiKey         string
	baseURL        string
	http           *http.Client
	policy         RetryPolicy
	attemptTimeout time.Duration
	log            *slog.Logger
	userAgent      string
	quota          *quota
	// sleep waits d or until ctx ends (tests replace it).
	sleep func(ctx context.Context, d time.Duration) error
}

// NewClient returns a client that authenticates with apiKey: a project's
// API key, or a dashboard session's token (see DashboardSessionsService).
func NewClient(apiKey string, opts ...Option) *Client {
	c := &Client{
		apiKey:         apiKey,
		baseURL:        DefaultBaseURL,
		http:           http.DefaultClient,
		policy:         DefaultRetryPolicy,
		attemptTimeout: 30 * time.Second,
		log:            slog.New(discard{}),
		userAgent:      "botix-go/" + Version,
		sleep:          sleepContext,
	}
	if u := os.Getenv("BOTIX_API_URL"); u != "" {
		c.baseURL = strings.TrimRight(u, "/")
	}
	for _, o := range opts {
		o(c)
	}
	c.policy = c.policy.withDefaults()
	// The SDK never follows a redirect: the client's http.Client would turn
	// a POST into a GET elsewhere (302, 303) or re-send it outside the
	// attempt count (307, 308). A 3xx is returned as an *Error instead (the
	// API sends none). The caller's http.Client is copied, not changed.
	if c.http == nil {
		c.http = http.DefaultClient
	}
	hc := *c.http
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.http = &hc
	c.quota = &quota{capacity: c.policy.QuotaCapacity, tokens: c.policy.QuotaCapacity}
	c.Contacts = &ContactsService{c}
	c.Messages = &MessagesService{c}
	c.Catalog = &CatalogService{c}
	c.Scenarios = &ScenariosService{c}
	c.WebhookEndpoints = &WebhookEndpointsService{c}
	c.Deliveries = &DeliveriesService{c}
	c.Inspectors = &InspectorsService{c}
	c.Events = &EventsService{c}
	c.DashboardSessions = &DashboardSessionsService{c}
	return c
}

var (
	uuidV4 = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$`)
	// A ULID: 26 Crockford base32 characters, the first at most 7 (128 bits).
	ulidShape = regexp.MustCompile(`^[0-7][0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{25}$`)
)

// ValidIdempotencyKey reports whether the API accepts key: a UUIDv4 or a
// ULID.
func ValidIdempotencyKey(key string) bool {
	return uuidV4.MatchString(key) || ulidShape.MatchString(key)
}

// request is one logical operation: every attempt sends the same method,
// path, body and, for a mutation, the same Idempotency-Key.
type request struct {
	method string
	path   string
	query  url.Values
	body   any
}

func (r request) mutating() bool { return r.method != http.MethodGet }

// do runs a logical operation with retries and decodes the answer into out
// (which may be nil). Every error it returns is an *OperationError.
func (c *Client) do(ctx context.Context, r request, out any, opts []CallOption) (Response, error) {
	var co callOptions
	for _, o := range opts {
		o(&co)
	}
	meta := Response{}
	if r.mutating() {
		meta.IdempotencyKey = co.key
		if meta.IdempotencyKey == "" {
			meta.IdempotencyKey = uuid.NewString()
		}
	}
	fail := func(err error) (Response, error) {
		opErr := &OperationError{Method: r.method, Path: r.path, IdempotencyKey: meta.IdempotencyKey, Attempts: meta.Attempts, Err: err}
		c.log.DebugContext(ctx, "botix: call failed", "method", r.method, "path", r.path, "idempotency_key", meta.IdempotencyKey, "attempts", meta.Attempts, "error", err.Error())
		return meta, opErr
	}
	if r.mutating() && !ValidIdempotencyKey(meta.IdempotencyKey) {
		return fail(fmt.Errorf("%w: got %q", ErrInvalidIdempotencyKey, meta.IdempotencyKey))
	}
	var body []byte
	if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			return fail(fmt.Errorf("%w: %w", errEncode, err))
		}
		body = b
	}
	spent := 0 // quota tokens this call's retries took
	var last error
	for {
		if ctx.Err() != nil { // before the first attempt too: nothing is sent
			return fail(contextError(ctx, last))
		}
		meta.Attempts++
		status, header, payload, err := c.attempt(ctx, r, body, meta.IdempotencyKey)
		if err == nil && status >= 200 && status < 300 {
			meta.StatusCode = status
			meta.RequestID = header.Get("X-Request-Id")
			meta.Replayed = header.Get("Idempotent-Replayed") == "true"
			c.quota.release(spent)
			if out != nil && len(payload) > 0 {
				if err := json.Unmarshal(payload, out); err != nil {
					return fail(fmt.Errorf("%w (HTTP %d, request_id %s): %w", errDecode, status, meta.RequestID, err))
				}
			}
			return meta, nil
		}
		var apiErr *Error
		cost := timeoutCost
		if err == nil {
			apiErr = errorOf(status, header, payload)
			err, cost = apiErr, retryCost
			meta.StatusCode, meta.RequestID = status, apiErr.RequestID
		}
		// A refusal is the answer, even if the context ends as it arrives:
		// the caller must change the request, not extend the deadline.
		if apiErr != nil && !retryable(apiErr) {
			return fail(err)
		}
		if ctx.Err() != nil {
			// The caller's context ended this attempt (a transport error
			// then only repeats it) or ends the call right after an answer.
			if apiErr == nil {
				err = last
			}
			return fail(contextError(ctx, err))
		}
		last = err
		if meta.Attempts >= c.policy.MaxAttempts {
			return fail(fmt.Errorf("%w after %d attempts: %w", ErrGaveUp, meta.Attempts, err))
		}
		delay := c.backoff(meta.Attempts)
		if apiErr != nil && apiErr.RetryAfter > 0 {
			delay = min(apiErr.RetryAfter, c.policy.MaxRetryAfter)
		}
		// A retry the deadline would cut short is not started (and costs no
		// quota): the call ends now, as the deadline would end it later.
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < delay {
			return fail(fmt.Errorf("%w: it comes before the next attempt (in %s); the last failure: %w", context.DeadlineExceeded, delay, err))
		}
		// Waiting for a first request with this key to finish is not a
		// failure of the service: it costs no quota.
		inProgress := apiErr != nil && apiErr.Code == CodeIdempotencyKeyInProgress
		if !inProgress {
			if !c.quota.take(cost) {
				return fail(fmt.Errorf("%w: %w", ErrRetryQuotaExhausted, err))
			}
			spent += cost
		}
		c.log.InfoContext(ctx, "botix: retrying", "method", r.method, "path", r.path, "idempotency_key", meta.IdempotencyKey, "attempt", meta.Attempts, "delay", delay, "error", err.Error())
		if err := c.sleep(ctx, delay); err != nil {
			return fail(contextError(ctx, last))
		}
	}
}

// contextError is the error of a call its context ended: it matches
// ctx.Err() (context.Canceled or context.DeadlineExceeded) with errors.Is,
// and the context's cause and the last failure (if any) too.
func contextError(ctx context.Context, last error) error {
	err := ctx.Err()
	if cause := context.Cause(ctx); cause != nil && cause != err {
		err = fmt.Errorf("%w: %w", err, cause)
	}
	if last != nil {
		err = fmt.Errorf("%w; the last failure: %w", err, last)
	}
	return err
}

// retryable: a lost answer or a timeout (apiErr nil), 429, a 5xx, or a
// first request with the same key still in progress. Other 4xx (and 3xx,
// which the API never sends) mean the request itself must change.
func retryable(apiErr *Error) bool {
	if apiErr == nil {
		return true
	}
	return apiErr.StatusCode == http.StatusTooManyRequests || apiErr.StatusCode >= 500 || apiErr.Code == CodeIdempotencyKeyInProgress
}

// backoff is the full-jitter delay before retry number attempt.
func (c *Client) backoff(attempt int) time.Duration {
	ceiling := c.policy.MaxDelay
	if shift := attempt - 1; shift < 30 {
		if d := c.policy.BaseDelay << shift; d < ceiling {
			ceiling = d
		}
	}
	if ceiling <= 0 {
		return 0
	}
	return rand.N(ceiling + 1)
}

// attempt sends one HTTP request. A transport error (connection refused or
// dropped, ErrAttemptTimeout) comes back as err; any HTTP answer as status.
func (c *Client) attempt(ctx context.Context, r request, body []byte, key string) (int, http.Header, []byte, error) {
	actx, cancel := ctx, context.CancelFunc(func() {})
	if c.attemptTimeout > 0 {
		actx, cancel = context.WithTimeout(ctx, c.attemptTimeout)
	}
	defer cancel()
	// timedOut tells the attempt's own timeout from the caller's context:
	// the first is ErrAttemptTimeout, never context.DeadlineExceeded,
	// which would say the caller's deadline stopped the call.
	timedOut := func(err error) error {
		if actx.Err() != nil && ctx.Err() == nil {
			return fmt.Errorf("%w (after %s)", ErrAttemptTimeout, c.attemptTimeout)
		}
		return err
	}
	u := c.baseURL + "/public/v1" + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	req, err := http.NewRequestWithContext(actx, r.method, u, nil)
	if err != nil {
		return 0, nil, nil, err
	}
	// net/http's Transport re-sends a request by itself, when a reused
	// keep-alive connection dies before the answer, if it deems it
	// replayable: a GET, or a request whose Header map has an
	// "Idempotency-Key" entry, that has no body or a rewindable one
	// (GetBody). Such a re-send escapes MaxAttempts, the backoff, the quota,
	// Response.Attempts and the logger. So no request is replayable to the
	// Transport: every one has a body it cannot rewind (GetBody nil) —
	// the JSON, or for a GET or a DELETE an empty body, which the Transport
	// does not send (it probes the body of those methods) — and a POST
	// without a body, which would go out chunked with an empty body, has
	// its key under the map entry "idempotency-key" instead: the same
	// header on the wire (names are case-insensitive) that the Transport
	// does not look for.
	switch {
	case body != nil:
		req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		req.Header.Set("Content-Type", "application/json")
	case r.method == http.MethodGet || r.method == http.MethodDelete:
		req.Body = io.NopCloser(bytes.NewReader(nil))
	}
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if key != "" {
		if req.Body == nil {
			req.Header["idempotency-key"] = []string{key}
		} else {
			req.Header.Set("Idempotency-Key", key)
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, nil, timedOut(err)
	}
	defer resp.Body.Close()
	limit := int64(maxAnswerBytes)
	if resp.StatusCode >= 300 {
		limit = maxErrorBytes
	}
	payload, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return 0, nil, nil, timedOut(fmt.Errorf("reading the answer: %w", err))
	}
	return resp.StatusCode, resp.Header, payload, nil
}

// What the client reads of an answer: the API's answers are Lambda
// responses (at most 6 MB); an error envelope is small, and a body past
// maxErrorBytes (a proxy's page, a hostile server) is cut there, which
// leaves the status and headers to describe the error. A success answer
// cut at maxAnswerBytes does not decode and is reported as such.
const (
	maxAnswerBytes = 8 << 20
	maxErrorBytes  = 64 << 10
)

// errorOf decodes an error answer: the envelope when it is one, else the
// status and whatever message the body has.
func errorOf(status int, header http.Header, payload []byte) *Error {
	e := &Error{StatusCode: status, RequestID: header.Get("X-Request-Id")}
	e.RetryAfter = retryAfter(header.Get("Retry-After"), time.Now())

	var env struct {
		Error *struct {
			Code      Code              `json:"code"`
			Message   string            `json:"message"`
			RequestID string            `json:"request_id"`
			Field     string            `json:"field"`
			Details   map[string]string `json:"details"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(payload, &env) == nil {
		if env.Error != nil {
			e.Code, e.Message, e.Field, e.Details = env.Error.Code, env.Error.Message, env.Error.Field, env.Error.Details
			if env.Error.RequestID != "" {
				e.RequestID = env.Error.RequestID
			}
			return e
		}
		e.Message = env.Message
	}
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	return e
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date (RFC
// 9110 allows both); 0 when absent, malformed or past.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(min(s, math.MaxInt32)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// discard is a slog.Handler that drops everything (slog.DiscardHandler
// needs Go 1.24; this module supports 1.23).
type discard struct{}

func (discard) Enabled(context.Context, slog.Level) bool  { return false }
func (discard) Handle(context.Context, slog.Record) error { return nil }
func (d discard) WithAttrs([]slog.Attr) slog.Handler      { return d }
func (d discard) WithGroup(string) slog.Handler           { return d }

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// quota is the client's retry token bucket.
type quota struct {
	mu       sync.Mutex
	capacity int
	tokens   int
}

// take spends cost tokens for a retry, or reports that the bucket is too
// low to retry.
func (q *quota) take(cost int) bool {
	if q.capacity < 0 {
		return true
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.tokens < cost {
		return false
	}
	q.tokens -= cost
	return true
}

// release refills the bucket after a success: what its retries took, or
// successGain when it needed none.
func (q *quota) release(spent int) {
	if q.capacity < 0 {
		return
	}
	if spent == 0 {
		spent = successGain
	}
	q.mu.Lock()
	q.tokens = min(q.capacity, q.tokens+spent)
	q.mu.Unlock()
}
