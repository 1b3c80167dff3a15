// Package faultproxy is the conformance suite's network: a reverse proxy in
// front of the API that breaks chosen requests the way real networks and
// servers do — it resets the connection before the API sees the request,
// lets the API act and then drops the answer, holds an answer past the
// client's attempt timeout, or answers itself with an error status (a 429
// or 503 with Retry-After, a 409 IDEMPOTENCY_KEY_IN_PROGRESS). Its rules
// are data (sdk/conformance/scenarios.json), and it logs every request it
// saw with its Idempotency-Key and a hash of its body, so that a test can
// count wire requests, keys and bodies.
package faultproxy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/botix/public-api/internal/ids"
)

// Actions a rule takes.
const (
	// ActionReset closes the client's connection with a TCP RST before the
	// request is forwarded: the API never sees it.
	ActionReset = "reset"
	// ActionDropAfterResponse forwards the request, reads the API's whole
	// answer, then closes the client's connection without it: the
	// operation happened, the client does not know.
	ActionDropAfterResponse = "drop_after_response"
	// ActionDelay forwards the request and holds the answer DelayMS
	// before passing it on (or until the client gives up).
	ActionDelay = "delay"
	// ActionStatus answers Status itself without forwarding: an error
	// envelope with Code (an API Gateway style body for a 429 without a
	// code), and Retry-After when RetryAfterS > 0.
	ActionStatus = "status"
)

// Rule picks requests and breaks them. A request is picked when Method and
// Path equal its own (empty matches any), Query is a substring of its raw
// query, and the counters agree: FirstPerKey > 0 picks only the first
// FirstPerKey requests of each Idempotency-Key; Every > 0 picks the 1st,
// (Every+1)th, ... request the rule matched; Probability in (0, 1) picks
// that share at random (0 means always). The first rule that picks a
// request acts on it.
type Rule struct {
	Method      string  `json:"method"`
	Path        string  `json:"path"`
	Query       string  `json:"query"`
	Action      string  `json:"action"`
	Probability float64 `json:"probability"`
	FirstPerKey int     `json:"first_per_key"`
	Every       int     `json:"every"`
	Status      int     `json:"status"`
	Code        string  `json:"code"`
	RetryAfterS int     `json:"retry_after_s"`
	DelayMS     int     `json:"delay_ms"`
}

// Validate reports a rule that cannot act.
func (r Rule) Validate() error {
	switch r.Action {
	case ActionReset, ActionDropAfterResponse:
	case ActionDelay:
		if r.DelayMS <= 0 {
			return fmt.Errorf("faultproxy: delay rule without delay_ms")
		}
	case ActionStatus:
		if r.Status < 400 || r.Status > 599 {
			return fmt.Errorf("faultproxy: status rule with status %d", r.Status)
		}
	default:
		return fmt.Errorf("faultproxy: unknown action %q", r.Action)
	}
	if r.Probability < 0 || r.Probability >= 1 {
		return fmt.Errorf("faultproxy: probability %v not in [0, 1)", r.Probability)
	}
	return nil
}

// Entry is one request the proxy saw.
type Entry struct {
	At       time.Time
	Method   string
	Path     string
	RawQuery string
	// Key is the request's Idempotency-Key ("" without one).
	Key string
	// BodyHash is the hex SHA-256 of the request body.
	BodyHash string
	// Action is what the proxy did ("" for a request passed through).
	Action string
}

// Proxy is a running fault proxy.
type Proxy struct {
	// URL is the proxy's base URL (use it as the SDK's base URL).
	URL string

	target string
	srv    *httptest.Server

	mu      sync.Mutex
	rules   []Rule
	matched []int
	perKey  []map[string]int
	rnd     *rand.Rand
	log     []Entry
}

// Start starts a proxy on a loopback port forwarding to target with rules;
// seed makes the random picks repeatable.
func Start(target string, rules []Rule, seed uint64) (*Proxy, error) {
	for _, r := range rules {
		if err := r.Validate(); err != nil {
			return nil, err
		}
	}
	p := &Proxy{target: strings.TrimSuffix(target, "/"), rules: rules, rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	p.matched = make([]int, len(rules))
	p.perKey = make([]map[string]int, len(rules))
	for i := range rules {
		p.perKey[i] = map[string]int{}
	}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	p.URL = p.srv.URL
	return p, nil
}

// Close stops the proxy.
func (p *Proxy) Close() { p.srv.Close() }

// Log returns a copy of the requests seen so far, in arrival order.
func (p *Proxy) Log() []Entry {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Entry(nil), p.log...)
}

// pick logs the request and returns the rule that acts on it, if any.
func (p *Proxy) pick(r *http.Request, body []byte) (Rule, bool) {
	key := r.Header.Get("Idempotency-Key")
	sum := sha256.Sum256(body)
	p.mu.Lock()
	defer p.mu.Unlock()
	e := Entry{At: time.Now(), Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Key: key, BodyHash: hex.EncodeToString(sum[:])}
	var chosen *Rule
	for i := range p.rules {
		rule := &p.rules[i]
		if (rule.Method != "" && rule.Method != r.Method) || (rule.Path != "" && rule.Path != r.URL.Path) || !strings.Contains(r.URL.RawQuery, rule.Query) {
			continue
		}
		n := p.matched[i]
		p.matched[i]++
		if rule.Every > 0 && n%rule.Every != 0 {
			continue
		}
		if rule.FirstPerKey > 0 {
			seen := p.perKey[i][key]
			p.perKey[i][key] = seen + 1
			if seen >= rule.FirstPerKey {
				continue
			}
		}
		if rule.Probability > 0 && p.rnd.Float64() >= rule.Probability {
			continue
		}
		chosen = rule
		e.Action = rule.Action
		break
	}
	p.log = append(p.log, e)
	if chosen == nil {
		return Rule{}, false
	}
	return *chosen, true
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	rule, faulty := p.pick(r, body)
	switch {
	case faulty && rule.Action == ActionReset:
		hangUp(w, true)
		return
	case faulty && rule.Action == ActionStatus:
		answer(w, rule)
		return
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, "faultproxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	// Forward even when the client has gone: the API acts either way.
	out = out.WithContext(context.WithoutCancel(r.Context()))
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, "faultproxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	answerBody, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if faulty {
		switch rule.Action {
		case ActionDropAfterResponse:
			hangUp(w, false)
			return
		case ActionDelay:
			select {
			case <-time.After(time.Duration(rule.DelayMS) * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(answerBody)
}

// hangUp closes the client's connection without an answer; rst closes it
// with a TCP RST rather than a FIN.
func hangUp(w http.ResponseWriter, rst bool) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	if tcp, ok := conn.(*net.TCPConn); ok && rst {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}

// answer writes the rule's own error answer, shaped as the API's (or, for a
// 429 without a code, as API Gateway's throttling answer).
func answer(w http.ResponseWriter, rule Rule) {
	w.Header().Set("Content-Type", "application/json")
	if rule.RetryAfterS > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(rule.RetryAfterS))
	}
	code := rule.Code
	if code == "" && rule.Status >= 500 {
		code = "SERVICE_UNAVAILABLE"
	}
	var body any = map[string]string{"message": "Too Many Requests"}
	if code != "" {
		reqID := ids.New("req", time.Now())
		w.Header().Set("X-Request-Id", reqID)
		body = map[string]any{"error": map[string]string{
			"code": code, "message": "injected by the conformance proxy", "request_id": reqID,
		}}
	}
	w.WriteHeader(rule.Status)
	_ = json.NewEncoder(w).Encode(body)
}
