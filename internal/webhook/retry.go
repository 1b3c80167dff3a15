package webhook

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultSchedule is the wait before attempts 2..5: 1 min, 15 min, 1 h,
// 24 h (about 25 h in all). WEBHOOK_RETRY_SCHEDULE overrides it.
var DefaultSchedule = []time.Duration{time.Minute, 15 * time.Minute, time.Hour, 24 * time.Hour}

// Default timeouts of one attempt: to connect (TCP and TLS), and from the
// request to the response headers. WEBHOOK_CONNECT_TIMEOUT and
// WEBHOOK_READ_TIMEOUT override them.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultReadTimeout    = 30 * time.Second
)

// MaxRetryAfter caps a receiver's Retry-After.
const MaxRetryAfter = 24 * time.Hour

// ParseSchedule parses "1m,15m,1h,24h" (Go durations, each > 0).
func ParseSchedule(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, part := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(part))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("webhook: retry schedule %q: each step is a positive duration such as 1m or 24h", s)
		}
		out = append(out, d)
	}
	return out, nil
}

// Response is what one attempt observed.
type Response struct {
	// Status is the HTTP status, 0 when no response arrived.
	Status int
	// Body is the first MaxResponseBody bytes of the answer.
	Body string
	// RetryAfter is the response's Retry-After header.
	RetryAfter string
	Duration   time.Duration
	// Class names a failure without a response (see the Class constants);
	// Err is that failure.
	Class string
	Err   error
}

// Failure classes of attempts without a usable response.
const (
	ClassConnectTimeout = "connect_timeout"
	ClassReadTimeout    = "read_timeout"
	ClassConnection     = "connection"
	ClassDNS            = "dns"
	ClassTLS            = "tls"
	ClassForbidden      = "forbidden_address"
	// ClassEndpointDeleted and ClassEndpointDisabled end a delivery
	// without an attempt: there is no endpoint to send to.
	ClassEndpointDeleted  = "endpoint_deleted"
	ClassEndpointDisabled = "endpoint_disabled"
)

// Verdict is what to do after an attempt.
type Verdict int

// Verdicts.
const (
	Delivered Verdict = iota + 1
	Retry
	Dead
	// DeadAndDisable: dead, and the endpoint is disabled (410 Gone).
	DeadAndDisable
	// DeadEndpointGone: dead without a dead letter: the endpoint was
	// deleted, so there is nothing to redrive to.
	DeadEndpointGone
)

// Decision is a verdict with its details.
type Decision struct {
	Verdict Verdict
	// Wait is how long until the next attempt (Retry).
	Wait time.Duration
	// Class names why the attempt failed ("" when delivered): a Class
	// constant or http_<status>.
	Class string
	// Reason explains a dead delivery to the project's owner.
	Reason string
	// Throttled: the receiver asked to slow down (Throttled); the retry
	// keeps the delivery's place in the schedule.
	Throttled bool
}

// Decide classifies the outcome of attempt (1-based) under schedule: 2xx is
// delivered; timeouts, connection, TLS and DNS errors and 5xx are retried
// after schedule[attempt-1]; 429 after its Retry-After (capped at 24 h;
// absent or invalid: the schedule); 410 is dead and disables the endpoint;
// 401, 403, any other 4xx and 3xx are dead at once. After the last attempt
// every retryable failure is dead.
func Decide(o Response, attempt int, schedule []time.Duration, now time.Time) Decision {
	s := o.Status
	switch {
	case s >= 200 && s < 300:
		return Decision{Verdict: Delivered}
	case s == 0 && o.Class == ClassForbidden:
		return Decision{Verdict: Dead, Class: o.Class, Reason: "the endpoint resolves to an address webhooks may not reach"}
	case s == http.StatusGone:
		return Decision{Verdict: DeadAndDisable, Class: "http_410", Reason: "the endpoint answered 410 Gone; it is disabled"}
	case s == http.StatusTooManyRequests, s >= 500, s == 0:
		class := o.Class
		if s != 0 {
			class = "http_" + strconv.Itoa(s)
		}
		if attempt > len(schedule) {
			return Decision{Verdict: Dead, Class: class, Reason: fmt.Sprintf("%d attempts failed; the last: %s", attempt, causeText(class))}
		}
		wait := schedule[attempt-1]
		if s == http.StatusTooManyRequests {
			if d, ok := ParseRetryAfter(o.RetryAfter, now); ok {
				wait = d
			}
		}
		return Decision{Verdict: Retry, Wait: wait, Class: class}
	default:
		return Decision{Verdict: Dead, Class: "http_" + strconv.Itoa(s), Reason: fmt.Sprintf("the endpoint answered %d, which is not retried", s)}
	}
}

// causeText is an attempt's failure class as its owner reads it in a dead
// reason: "HTTP 503" for http_503, the class itself (read_timeout,
// connect_failed, ...) otherwise.
func causeText(class string) string {
	if code, ok := strings.CutPrefix(class, "http_"); ok {
		return "HTTP " + code
	}
	return class
}

// ParseRetryAfter reads a Retry-After value: delta seconds (RFC 9110:
// digits only) or an HTTP-date. It reports false for an absent or invalid
// value; a value past MaxRetryAfter is capped — however many digits it
// has, so that 99999999999999999999 (past int64) waits as long as
// 9223372036854775807 — and one in the past is zero.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	var d time.Duration
	if allDigits(v) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n > int64(MaxRetryAfter/time.Second) {
			// Only a range error is left: more seconds than int64 holds.
			return MaxRetryAfter, true
		}
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	} else {
		return 0, false
	}
	return min(max(d, 0), MaxRetryAfter), true
}

// allDigits reports whether v is one or more ASCII digits.
func allDigits(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return v != ""
}
