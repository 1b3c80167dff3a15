package conformance_test

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/botix/public-api/infra/testkit/apicontract"
	"github.com/botix/public-api/infra/testkit/faultproxy"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
	"github.com/botix/public-api/sdk"
)

const contactsPath = "/public/v1/contacts"

func num(p map[string]any, k string) int { return int(p[k].(float64)) }

func checkLossyCreates(r *run) {
	var rep struct {
		Calls, Completed, Reissues, Replayed int
		ContactIDs                           []string `json:"contact_ids"`
		Errors                               []Error
	}
	r.report(&rep)
	count := num(r.params, "count")
	if rep.Completed != count || rep.Calls != count {
		r.t.Errorf("%d of %d calls completed", rep.Completed, rep.Calls)
	}
	if n := r.contacts(); n != int64(count) {
		r.t.Errorf("%d contacts after %d creates: duplicates or lost creates", n, count)
	}
	distinct := map[string]bool{}
	for _, id := range rep.ContactIDs {
		distinct[id] = true
	}
	if len(distinct) != count {
		r.t.Errorf("%d distinct contact ids reported", len(distinct))
	}
	hidden := 0
	for _, e := range rep.Errors {
		if e.IdempotencyKey == "" || e.Attempts < 1 || !e.Reissuable {
			hidden++
			r.t.Errorf("an error that hides whether the create happened: %+v", e)
		}
	}
	bodies := map[string]map[string]bool{}
	for _, e := range r.wire(http.MethodPost, contactsPath) {
		if bodies[e.Key] == nil {
			bodies[e.Key] = map[string]bool{}
		}
		bodies[e.Key][e.BodyHash] = true
	}
	if len(bodies) != count {
		r.t.Errorf("the proxy saw %d keys for %d logical creates", len(bodies), count)
	}
	for k, b := range bodies {
		if len(b) != 1 || k == "" {
			r.t.Errorf("key %q sent with %d bodies", k, len(b))
		}
	}
	faults := 0
	for _, e := range r.wire(http.MethodPost, contactsPath) {
		if e.Action != "" {
			faults++
		}
	}
	if faults == 0 || len(rep.Errors) == 0 {
		r.t.Errorf("%d faults, %d errors: the scenario did not test", faults, len(rep.Errors))
	}
	r.t.Logf("%d creates: %d wire requests, %d faults injected, %d failed calls re-issued, %d replays, %d contacts, %d hidden", count, len(r.wire(http.MethodPost, contactsPath)), faults, rep.Reissues, rep.Replayed, r.contacts(), hidden)
}

// attemptsOf checks a one-create scenario: its result, n wire requests with
// one key, each at least gap after the one before, and one contact.
func (r *run) attemptsOf(n int, minGap, maxGap time.Duration) {
	r.t.Helper()
	var rep struct {
		Result *Result
		Error  *Error
	}
	r.report(&rep)
	if rep.Result == nil {
		r.t.Fatalf("the create failed: %+v", rep.Error)
	}
	if rep.Result.Attempts != n {
		r.t.Errorf("%d attempts reported, want %d", rep.Result.Attempts, n)
	}
	wire := r.wire(http.MethodPost, contactsPath)
	if len(wire) != n {
		r.t.Fatalf("the proxy saw %d requests, want %d", len(wire), n)
	}
	for i, e := range wire {
		if e.Key == "" || e.Key != wire[0].Key || e.Key != rep.Result.IdempotencyKey {
			r.t.Errorf("attempt %d sent key %q; the result says %q", i+1, e.Key, rep.Result.IdempotencyKey)
		}
		if i > 0 {
			if gap := e.At.Sub(wire[i-1].At); gap < minGap || gap > maxGap {
				r.t.Errorf("attempt %d came %v after the one before; want %v..%v", i+1, gap, minGap, maxGap)
			}
		}
	}
	if c := r.contacts(); c != 1 {
		r.t.Errorf("%d contacts", c)
	}
}

// The proxy's Retry-After is 1 s; an SDK may wait a little less than the
// header says only by clock granularity.
const retryAfterSlack = 50 * time.Millisecond

func checkInProgress(r *run) { r.attemptsOf(3, time.Second-retryAfterSlack, time.Minute) }

func checkRetryAfter(minGap, maxGap time.Duration) func(*run) {
	return func(r *run) { r.attemptsOf(2, minGap-retryAfterSlack, maxGap) }
}

func checkReuseConflict(r *run) {
	var rep struct {
		First, Replay *Result
		Conflict      *Error
		InvalidKey    *Error `json:"invalid_key"`
	}
	r.report(&rep)
	key := r.params["idempotency_key"].(string)
	switch {
	case rep.First == nil || rep.Replay == nil:
		r.t.Fatalf("the create or its replay failed: %+v", rep)
	case rep.First.IdempotencyKey != key || rep.First.Replayed:
		r.t.Errorf("first: %+v", rep.First)
	case !rep.Replay.Replayed || rep.Replay.ID != rep.First.ID:
		r.t.Errorf("the same key and body is not a replay of the first: %+v", rep.Replay)
	}
	if c := rep.Conflict; c == nil || c.Code != "IDEMPOTENCY_KEY_REUSE_CONFLICT" || c.Status != 409 || c.Reissuable || c.Attempts != 1 || c.IdempotencyKey != key || !requestID.MatchString(c.RequestID) {
		r.t.Errorf("reuse with another body: %+v", c)
	}
	if c := rep.InvalidKey; c == nil || c.Kind != "invalid_key" || c.Attempts != 0 {
		r.t.Errorf("a malformed caller's key: %+v", c)
	}
	if n := len(r.wire(http.MethodPost, contactsPath)); n != 3 {
		r.t.Errorf("%d creates reached the API, want 3 (the malformed key must not be sent)", n)
	}
	if c := r.contacts(); c != 1 {
		r.t.Errorf("%d contacts", c)
	}
}

func checkValidation(r *run) {
	var rep struct{ Error *Error }
	r.report(&rep)
	e := rep.Error
	if e == nil || e.Kind != "api" || e.Status != 422 || e.Code != "VALIDATION_FAILED" || e.Field != "phone" || e.Details["phone"] == "" || !requestID.MatchString(e.RequestID) || e.Attempts != 1 || e.Reissuable || e.IdempotencyKey == "" {
		r.t.Errorf("validation error: %+v", e)
	}
}

func checkBadKey(r *run) {
	var rep struct{ Error *Error }
	r.report(&rep)
	e := rep.Error
	if e == nil || e.Status != 401 || e.Code != "UNAUTHORIZED" || e.Attempts != 1 || e.IdempotencyKey != "" || e.Reissuable || !requestID.MatchString(e.RequestID) {
		r.t.Errorf("bad key: %+v", e)
	}
	if strings.Contains(e.Message, r.params["api_key"].(string)) {
		r.t.Errorf("the error message shows the API key")
	}
}

type outcome struct {
	OK       bool
	Attempts int
	Error    *Error
}

func checkRetryQuota(r *run) {
	var rep struct{ Outage, Refill, After []outcome }
	r.report(&rep)
	quota := 0
	for i, o := range rep.Outage {
		if o.OK {
			r.t.Errorf("outage call %d succeeded", i)
		}
		if o.Error != nil && o.Error.Kind == "quota" {
			quota++
		}
	}
	wire := 0
	for _, e := range r.wire(http.MethodGet, contactsPath) {
		if strings.Contains(e.RawQuery, "limit="+strconv.Itoa(num(r.params, "outage_limit"))) {
			wire++
		}
	}
	calls, attempts := num(r.params, "outage_calls"), num(r.params, "max_attempts")
	if quota == 0 || wire >= calls*attempts {
		r.t.Errorf("the quota never tripped: %d quota errors, %d wire requests for %d calls of %d attempts", quota, wire, calls, attempts)
	}
	for i, o := range rep.Refill {
		if !o.OK || o.Attempts != 1 {
			r.t.Errorf("refill call %d: %+v", i, o)
		}
	}
	for i, o := range rep.After {
		if !o.OK || o.Attempts != 2 {
			r.t.Errorf("call %d after the outage: %+v (the quota did not recover)", i, o)
		}
	}
	if len(rep.Outage) != calls || len(rep.Refill) != num(r.params, "refill_calls") || len(rep.After) != num(r.params, "after_calls") {
		r.t.Errorf("%d/%d/%d calls reported", len(rep.Outage), len(rep.Refill), len(rep.After))
	}
	r.t.Logf("outage: %d calls, %d wire requests, %d stopped by the quota", calls, wire, quota)
}

func checkIterateResume(r *run) {
	var rep struct {
		IDs      []string
		Position string
	}
	r.report(&rep)
	want := r.e.seeded.ids
	if len(rep.IDs) != len(want) {
		r.t.Errorf("%d ids walked, want %d", len(rep.IDs), len(want))
	}
	for i := range min(len(rep.IDs), len(want)) {
		if rep.IDs[i] != want[i] {
			r.t.Errorf("item %d is %s, want %s (newest first, none lost or repeated)", i, rep.IDs[i], want[i])
			break
		}
	}
	stop := num(r.params, "stop_after")
	parts := strings.SplitN(rep.Position, ".", 3)
	if len(parts) != 3 || parts[0] != "p1" || stop > len(want) || parts[1] != want[stop-1] {
		r.t.Errorf("position %q does not name item %d (%s)", rep.Position, stop, want[min(stop, len(want))-1])
	}
	limit := strconv.Itoa(num(r.params, "limit"))
	lists := r.wire(http.MethodGet, contactsPath)
	for _, e := range lists {
		// The page size is cursor_limit in cursor mode (limit is the offset
		// mode's).
		if q, err := url.ParseQuery(e.RawQuery); err != nil || q.Get("cursor_limit") != limit {
			r.t.Errorf("a list request without cursor_limit=%s: %q", limit, e.RawQuery)
		}
	}
	// 1,000 items by 37 are 28 pages; the resume fetches one page again.
	if pages := (len(want) + num(r.params, "limit") - 1) / num(r.params, "limit"); len(lists) > pages+2 {
		r.t.Errorf("%d list requests for %d pages", len(lists), pages)
	}
}

// The receivers' secrets and the events webhook-receive sends.
var (
	secrets = map[string]string{"old": webhook.NewSecret(), "new": webhook.NewSecret(), "legacy": webhook.NewSecret()}
	events  = struct{ failOnce, slow string }{ids.New("evt", time.Now()), ids.New("evt", time.Now())}
)

// slowMS is how long the runner takes to process the slow event; the copy
// is sent a third of the way in.
const slowMS = 3000

// delivery is one signed request the harness sends to a receiver.
type delivery struct {
	to      string
	id      string
	signers []string
	at      time.Time
	legacy  bool // X-Botix-Signature alone
	tamper  bool
}

func (r *run) send(urls map[string]string, d delivery) *http.Response {
	r.t.Helper()
	body := fmt.Sprintf(`{"id":%q,"type":"contact.created","created_at":"2026-12-01T08:00:00.000Z","project_id":"prj_01JDQ7X3ZV8N5W2K4R6T9Y1B3E","data":{"id":"ct_01JDQ7X3ZV8N5W2K4R6T9Y1B3C","phone":"+79990000000","name":"Ivan","tags":[],"created_at":"2026-12-01T08:00:00.000Z"}}`, d.id)
	var keys []string
	for _, s := range d.signers {
		keys = append(keys, secrets[s])
	}
	h, err := webhook.SignedHeaders(keys, d.id, d.at.Unix(), []byte(body))
	if err != nil {
		r.t.Fatal(err)
	}
	if d.tamper {
		body = strings.Replace(body, "Ivan", "Ivan2", 1)
	}
	req, err := http.NewRequest(http.MethodPost, urls[d.to], strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range h {
		if d.legacy && k != webhook.HeaderSignature {
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func checkWebhookReceive(r *run) {
	var ann struct{ Receivers map[string]string }
	r.next(&ann)
	now := time.Now()
	e := func() string { return ids.New("evt", time.Now()) }
	e1, e2, e3, e4, e5, e6 := e(), e(), e(), e(), e(), e()
	cases := []struct {
		name string
		d    delivery
		want int
	}{
		{"rotation overlap: the old-secret receiver accepts", delivery{to: "old", id: e1, signers: []string{"new", "old"}, at: now}, 200},
		{"rotation overlap: the new-secret receiver accepts", delivery{to: "new", id: e1, signers: []string{"new", "old"}, at: now}, 200},
		{"after the overlap: the old secret no longer verifies", delivery{to: "old", id: e2, signers: []string{"new"}, at: now}, 401},
		{"after the overlap: the new secret does", delivery{to: "new", id: e2, signers: []string{"new"}, at: now}, 200},
		{"a stale timestamp", delivery{to: "old", id: e3, signers: []string{"old"}, at: now.Add(-10 * time.Minute)}, 401},
		{"a tampered body", delivery{to: "old", id: e4, signers: []string{"old"}, at: now, tamper: true}, 401},
		{"legacy signature alone, not allowed", delivery{to: "old", id: e5, signers: []string{"old"}, at: now, legacy: true}, 401},
		{"legacy signature alone, allowed", delivery{to: "legacy", id: e5, signers: []string{"legacy"}, at: now, legacy: true}, 200},
		{"an event", delivery{to: "old", id: e6, signers: []string{"old"}, at: now}, 200},
		{"its duplicate: 200, not processed again", delivery{to: "old", id: e6, signers: []string{"old"}, at: now}, 200},
		{"processing fails: 500, so BOTIX retries", delivery{to: "old", id: events.failOnce, signers: []string{"old"}, at: now}, 500},
		{"the retry is processed", delivery{to: "old", id: events.failOnce, signers: []string{"old"}, at: now}, 200},
	}
	for _, c := range cases {
		if got := r.send(ann.Receivers, c.d).StatusCode; got != c.want {
			r.t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	// A copy that arrives while the first is processing is answered with a
	// retryable status, never 200, and without Retry-After: BOTIX pauses the
	// whole endpoint on a 503 with Retry-After, and one event's contention is
	// not the receiver being overloaded.
	slow := delivery{to: "old", id: events.slow, signers: []string{"old"}, at: time.Now()}
	var wg sync.WaitGroup
	var first int
	wg.Add(1)
	go func() { defer wg.Done(); first = r.send(ann.Receivers, slow).StatusCode }()
	time.Sleep(slowMS / 3 * time.Millisecond)
	if dup := r.send(ann.Receivers, slow); dup.StatusCode != 503 || dup.Header.Values("Retry-After") != nil {
		r.t.Errorf("a copy during processing: %d with Retry-After %q, want 503 without one", dup.StatusCode, dup.Header.Get("Retry-After"))
	}
	wg.Wait()
	if first != 200 {
		r.t.Errorf("the slow event: %d", first)
	}
	if again := r.send(ann.Receivers, slow).StatusCode; again != 200 {
		r.t.Errorf("a copy after processing: %d", again)
	}
	var rep struct{ Processed map[string][]string }
	r.report(&rep)
	want := map[string][]string{"old": {e1, e6, events.failOnce, events.slow}, "new": {e1, e2}, "legacy": {e5}}
	for name, ids := range want {
		if got := rep.Processed[name]; strings.Join(got, ",") != strings.Join(ids, ",") {
			r.t.Errorf("receiver %s processed %v, want %v (each once)", name, got, ids)
		}
	}
}

// checkListParams: the runner called each list method of its SDK (every
// GET of the document that takes a query) once, with every parameter the
// method takes set, and reported each call's path and how many it set.
// The query each request carried must be exactly the document's
// parameters of that path (the deprecated offset mode aside), each set
// parameter one of them: a filter the SDK lost, or one it sends that the
// API does not take, fails here.
func checkListParams(r *run) {
	var rep struct {
		Calls []struct {
			Path string `json:"path"`
			Set  int    `json:"set"`
		} `json:"calls"`
	}
	r.report(&rep)
	documented, err := apicontract.QueryParameters(sdk.OpenAPI)
	if err != nil {
		r.t.Fatal(err)
	}
	var gets []faultproxy.Entry
	for _, e := range r.proxy.Log() {
		if e.Method == "GET" {
			gets = append(gets, e)
		}
	}
	if len(gets) != len(rep.Calls) {
		r.t.Fatalf("the runner reports %d calls; the proxy saw %d GET requests", len(rep.Calls), len(gets))
	}
	called := map[string]bool{}
	for i, c := range rep.Calls {
		doc, ok := documented[c.Path]
		if !ok {
			r.t.Errorf("a call of %s, which the document does not have", c.Path)
			continue
		}
		called[c.Path] = true
		pattern := strings.ReplaceAll(regexp.QuoteMeta(pathParam.ReplaceAllString(c.Path, "\x00")), "\x00", `[^/]+`)
		if !regexp.MustCompile("^" + pattern + "$").MatchString(gets[i].Path) {
			r.t.Errorf("call %d is reported as %s; the request went to %s", i, c.Path, gets[i].Path)
			continue
		}
		var want []string
		for name, deprecated := range doc {
			if !deprecated {
				want = append(want, name)
			}
		}
		slices.Sort(want)
		q, err := url.ParseQuery(gets[i].RawQuery)
		if err != nil {
			r.t.Fatal(err)
		}
		sent := slices.Sorted(maps.Keys(q))
		if !slices.Equal(sent, want) {
			r.t.Errorf("GET %s: the SDK sends %v; the document's parameters are %v", c.Path, sent, want)
		}
		if c.Set != len(sent) {
			r.t.Errorf("GET %s: the SDK's method takes %d parameters but sends %d %v: a parameter reaches no query parameter", c.Path, c.Set, len(sent), sent)
		}
	}
	for path, params := range documented {
		if len(params) > 0 && !called[path] {
			r.t.Errorf("GET %s takes a query, and the runner called no method of it", path)
		}
	}
}
