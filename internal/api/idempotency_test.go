package api_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/idempotency"
)

const ivan = `{"phone":"+79990000000","name":"Ivan","tags":["vip","lead"]}`

func TestIdempotencyContract(t *testing.T) {
	h := newHarness(t)
	create := h.fn(app.CreateContact)
	key := newKey()
	first := call(t, create, h.contact(key, ivan))

	t.Run("first call creates the contact", func(t *testing.T) {
		if first.StatusCode != 201 {
			t.Fatalf("status %d: %s", first.StatusCode, first.Body)
		}
		if first.Headers["Idempotent-Replayed"] != "" {
			t.Fatal("first call marked as replay")
		}
	})
	t.Run("replay returns the stored status, body and headers byte for byte", func(t *testing.T) {
		again := call(t, create, h.contact(key, ivan))
		if again.StatusCode != first.StatusCode || again.Body != first.Body {
			t.Fatalf("replay %d %s differs from %d %s", again.StatusCode, again.Body, first.StatusCode, first.Body)
		}
		if again.Headers["Idempotent-Replayed"] != "true" || again.Headers["Original-Request-Id"] != first.Headers["X-Request-Id"] {
			t.Fatalf("replay headers %v", again.Headers)
		}
		if again.Headers["X-Request-Id"] == first.Headers["X-Request-Id"] || again.Headers["Content-Type"] != first.Headers["Content-Type"] {
			t.Fatalf("replay must carry its own X-Request-Id and the stored Content-Type: %v", again.Headers)
		}
	})
	t.Run("reordered keys and whitespace are the same request", func(t *testing.T) {
		again := call(t, create, h.contact(key, "{ \"tags\": [\"vip\",\"lead\"],\n \"name\":\"Ivan\", \"phone\":\"+79990000000\" }"))
		if again.Body != first.Body || again.Headers["Idempotent-Replayed"] != "true" {
			t.Fatalf("got %d %s", again.StatusCode, again.Body)
		}
	})
	t.Run("the operation ran once: one contact, one event, counter 1", func(t *testing.T) {
		if n := h.count("CT"); n != 1 {
			t.Fatalf("%d contacts", n)
		}
		if n := h.count("EVT"); n != 1 {
			t.Fatalf("%d events", n)
		}
		if n, _ := h.store.CountContacts(context.Background(), h.project); n != 1 {
			t.Fatalf("counter %d", n)
		}
	})
	checkAnswers(t, []answerCase{
		{"missing key -> 400 IDEMPOTENCY_KEY_REQUIRED", create, h.contact("", ivan), 400, "IDEMPOTENCY_KEY_REQUIRED"},
		{"timestamp as key -> 400 IDEMPOTENCY_KEY_INVALID", create, h.contact("1795939200", ivan), 400, "IDEMPOTENCY_KEY_INVALID"},
		{"uuid v1 as key -> 400 IDEMPOTENCY_KEY_INVALID", create, h.contact("6ba7b810-9dad-11d1-80b4-00c04fd430c8", ivan), 400, "IDEMPOTENCY_KEY_INVALID"},
		{"key checked before the body: bad JSON without key -> 400 IDEMPOTENCY_KEY_REQUIRED", create, h.contact("", `{"phone":`), 400, "IDEMPOTENCY_KEY_REQUIRED"},
		{"reuse with other body -> 409 IDEMPOTENCY_KEY_REUSE_CONFLICT", create, h.contact(key, `{"phone":"+79990000001","name":"Ivan"}`), 409, "IDEMPOTENCY_KEY_REUSE_CONFLICT"},
		{"reuse on other endpoint -> 409 IDEMPOTENCY_KEY_REUSE_CONFLICT", h.fn(app.SendMessage), h.post("POST /public/v1/messages", "/public/v1/messages", key, ivan, nil), 409, "IDEMPOTENCY_KEY_REUSE_CONFLICT"},
	})
	t.Run("keys are scoped by project", func(t *testing.T) {
		other := newHarness(t)
		other.tables, other.store = h.tables, h.store
		resp := call(t, h.fnFor(other, app.CreateContact), other.contact(key, ivan))
		if resp.StatusCode != 201 || resp.Headers["Idempotent-Replayed"] != "" {
			t.Fatalf("another project's same key: %d %s", resp.StatusCode, resp.Body)
		}
	})
}

// fnFor builds a function for another project's harness over the same
// tables.
func (h *harness) fnFor(other *harness, build app.Builder[app.HTTPHandler]) app.HTTPHandler {
	p, err := h.store.CreateProject(context.Background(), "other")
	if err != nil {
		h.t.Fatal(err)
	}
	other.project = p.ID
	if _, err := h.store.AddAPIKey(context.Background(), p.ID, authHash(other.key)); err != nil {
		h.t.Fatal(err)
	}
	return h.fn(build)
}

func TestFinalAnswersAreStoredAndReplayed(t *testing.T) {
	h := newHarness(t)
	create := h.fn(app.CreateContact)
	if r := call(t, create, h.contact(newKey(), ivan)); r.StatusCode != 201 {
		t.Fatalf("seed: %d %s", r.StatusCode, r.Body)
	}
	cases := []struct {
		name, body string
		status     int
		code       string
	}{
		{"409 CONTACT_ALREADY_EXISTS", `{"phone":"+79990000000","name":"Twin"}`, 409, "CONTACT_ALREADY_EXISTS"},
		{"422 VALIDATION_FAILED", `{"phone":"12","name":"Ivan"}`, 422, "VALIDATION_FAILED"},
	}
	for _, c := range cases {
		t.Run(c.name+" is replayed with its original body", func(t *testing.T) {
			key := newKey()
			first := call(t, create, h.contact(key, c.body))
			if first.StatusCode != c.status || code(first) != c.code {
				t.Fatalf("got %d %s", first.StatusCode, first.Body)
			}
			again := call(t, create, h.contact(key, c.body))
			if again.StatusCode != c.status || again.Body != first.Body || again.Headers["Idempotent-Replayed"] != "true" {
				t.Fatalf("replay %d %s (headers %v)", again.StatusCode, again.Body, again.Headers)
			}
		})
	}
	if n := h.count("CT"); n != 1 {
		t.Fatalf("%d contacts, want 1", n)
	}
}

func TestInProgress(t *testing.T) {
	h := newHarness(t)
	release := make(chan struct{})
	captured := make(chan struct{})
	slow := h.fn(app.CreateContact, app.WithMutationHooks(idempotency.Hooks{AfterCapture: func(context.Context) error {
		close(captured)
		<-release
		return nil
	}}))
	create := h.fn(app.CreateContact)
	key := newKey()
	done := make(chan events.APIGatewayV2HTTPResponse)
	go func() { done <- call(t, slow, h.contact(key, ivan)) }()
	<-captured
	t.Run("same key while running -> 409 IDEMPOTENCY_KEY_IN_PROGRESS with Retry-After: 5", func(t *testing.T) {
		resp := call(t, create, h.contact(key, ivan))
		if resp.StatusCode != 409 || code(resp) != "IDEMPOTENCY_KEY_IN_PROGRESS" || resp.Headers["Retry-After"] != "5" {
			t.Fatalf("got %d %s %v", resp.StatusCode, resp.Body, resp.Headers)
		}
	})
	t.Run("other body while running -> 409 IDEMPOTENCY_KEY_REUSE_CONFLICT", func(t *testing.T) {
		resp := call(t, create, h.contact(key, `{"phone":"+79990000002","name":"X"}`))
		if code(resp) != "IDEMPOTENCY_KEY_REUSE_CONFLICT" {
			t.Fatalf("got %d %s", resp.StatusCode, resp.Body)
		}
	})
	close(release)
	if first := <-done; first.StatusCode != 201 {
		t.Fatalf("first: %d %s", first.StatusCode, first.Body)
	}
}

func TestExpiredRecordCountsAsAbsent(t *testing.T) {
	h := newHarness(t)
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	create := h.fn(app.CreateContact, app.WithClock(clock))
	key := newKey()
	if r := call(t, create, h.contact(key, ivan)); r.StatusCode != 201 {
		t.Fatalf("first: %d %s", r.StatusCode, r.Body)
	}
	mu.Lock()
	now = now.Add(24*time.Hour + time.Second) // TTL has not swept the record
	mu.Unlock()
	r := call(t, create, h.contact(key, `{"phone":"+79990000003","name":"Petr"}`))
	if r.StatusCode != 201 || r.Headers["Idempotent-Replayed"] != "" {
		t.Fatalf("after 24 h the key must be free: %d %s", r.StatusCode, r.Body)
	}
}

// TestLeaseTakeoverIsFenced: a first attempt outlives its lease, a retry
// takes the key over and commits; the first attempt's commit is rejected
// and it answers with the retry's response. One contact exists.
func TestLeaseTakeoverIsFenced(t *testing.T) {
	h := newHarness(t)
	retryDone := make(chan events.APIGatewayV2HTTPResponse, 1)
	key := newKey()
	// The retry runs on an instance whose clock is past the first's lease.
	late := h.fn(app.CreateContact, app.WithClock(func() time.Time { return time.Now().Add(time.Hour) }))
	slow := h.fn(app.CreateContact, app.WithMutationHooks(idempotency.Hooks{BeforeCommit: func(context.Context) error {
		retryDone <- call(t, late, h.contact(key, ivan))
		return nil
	}}))
	first := call(t, slow, h.contact(key, ivan))
	retry := <-retryDone
	if retry.StatusCode != 201 || retry.Headers["Idempotent-Replayed"] != "" {
		t.Fatalf("retry: %d %s", retry.StatusCode, retry.Body)
	}
	if first.StatusCode != 201 || first.Body != retry.Body || first.Headers["Idempotent-Replayed"] != "true" {
		t.Fatalf("fenced first attempt must answer the winner's response: %d %s vs %s", first.StatusCode, first.Body, retry.Body)
	}
	if n := h.count("CT"); n != 1 {
		t.Fatalf("%d contacts, want exactly 1", n)
	}
	if n := h.count("EVT"); n != 1 {
		t.Fatalf("%d events, want exactly 1", n)
	}
}

// TestFaultAtEveryStep: a crash or failure at each step of a mutation never
// leaves two effects, and the client's retry ends with exactly one effect
// and a correct response.
func TestFaultAtEveryStep(t *testing.T) {
	crash := errors.New("simulated crash")
	cases := []struct {
		name       string
		hooks      idempotency.Hooks
		fault      *dynamotest.Fault
		wantStatus int
		retry      string // "runs": the retry performs the operation; "replays": it gets the stored answer
	}{
		{"crash after capture, before the operation", idempotency.Hooks{AfterCapture: func(context.Context) error { return crash }}, nil, 500, "runs"},
		{"panic inside the operation", idempotency.Hooks{AfterCapture: func(context.Context) error { panic("boom") }}, nil, 500, "runs"},
		{"crash before commit", idempotency.Hooks{BeforeCommit: func(context.Context) error { return crash }}, nil, 500, "runs"},
		{"commit throttled by DynamoDB", idempotency.Hooks{}, &dynamotest.Fault{Op: "TransactWriteItems"}, 503, "runs"},
		{"commit applied but its response lost", idempotency.Hooks{}, &dynamotest.Fault{Op: "TransactWriteItems", AfterSuccess: true, Times: 1}, 503, "replays"},
		{"crash after commit, before the response", idempotency.Hooks{AfterCommit: func(context.Context) error { return crash }}, nil, 500, "replays"},
		{"capture throttled", idempotency.Hooks{}, &dynamotest.Fault{Op: "PutItem"}, 503, "runs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			healthy := h.fn(app.CreateContact)
			if r := call(t, healthy, h.contact(newKey(), `{"phone":"+79990000099","name":"Warm"}`)); r.StatusCode != 201 {
				t.Fatalf("warm-up: %d %s", r.StatusCode, r.Body) // also warms the auth cache
			}
			faulty := h.fn(app.CreateContact, app.WithMutationHooks(c.hooks))
			if c.fault != nil {
				h.faults.Add(*c.fault)
			}
			key := newKey()
			first := call(t, faulty, h.contact(key, ivan))
			if first.StatusCode != c.wantStatus {
				t.Fatalf("faulty call: %d %s", first.StatusCode, first.Body)
			}
			if first.StatusCode == 503 && first.Headers["Retry-After"] == "" {
				t.Fatal("503 without Retry-After")
			}
			if strings.Contains(first.Body, "simulated") || strings.Contains(first.Body, "boom") || strings.Contains(first.Body, "Throttling") {
				t.Fatalf("5xx body leaks internals: %s", first.Body)
			}
			h.faults.Clear()
			retry := call(t, healthy, h.contact(key, ivan))
			if retry.StatusCode != 201 {
				t.Fatalf("retry: %d %s", retry.StatusCode, retry.Body)
			}
			if replayed := retry.Headers["Idempotent-Replayed"] == "true"; replayed != (c.retry == "replays") {
				t.Fatalf("retry replayed=%v, want %s", replayed, c.retry)
			}
			if n := h.count("CT"); n != 2 { // warm-up + exactly one
				t.Fatalf("%d contacts, want 2 (warm-up + one)", n)
			}
			if n := h.count("EVT"); n != 2 {
				t.Fatalf("%d events, want 2", n)
			}
		})
	}
}

// TestDynamoDBCallsPerRequest: the first execution of an idempotent POST
// costs exactly two DynamoDB calls (capture + transaction), a replay one.
func TestDynamoDBCallsPerRequest(t *testing.T) {
	h := newHarness(t)
	create := h.fn(app.CreateContact)
	call(t, create, h.contact(newKey(), `{"phone":"+79990000098","name":"Warm"}`)) // warms the key cache
	key := newKey()
	h.calls.Reset()
	if r := call(t, create, h.contact(key, ivan)); r.StatusCode != 201 {
		t.Fatalf("%d %s", r.StatusCode, r.Body)
	}
	if ops := h.calls.Ops(); strings.Join(ops, ",") != "PutItem,TransactWriteItems" {
		t.Fatalf("first execution made %v, want [PutItem TransactWriteItems]", ops)
	}
	h.calls.Reset()
	call(t, create, h.contact(key, ivan))
	if ops := h.calls.Ops(); strings.Join(ops, ",") != "PutItem" {
		t.Fatalf("replay made %v, want [PutItem]", ops)
	}
}

// TestConcurrentRetriesCreateOnce: 100 concurrent POSTs with one key and
// one body make exactly one contact and one event; each answer is the 201
// (original or replay, identical bodies) or 409 IN_PROGRESS.
func TestConcurrentRetriesCreateOnce(t *testing.T) {
	h := newHarness(t)
	create := h.fn(app.CreateContact)
	key := newKey()
	const n = 100
	var wg sync.WaitGroup
	resps := make([]events.APIGatewayV2HTTPResponse, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resps[i] = call(t, create, h.contact(key, ivan))
		}(i)
	}
	wg.Wait()
	body, created, busy := "", 0, 0
	for _, r := range resps {
		switch {
		case r.StatusCode == 201:
			if body == "" {
				body = r.Body
			}
			if r.Body != body {
				t.Fatalf("two different 201 bodies:\n%s\n%s", body, r.Body)
			}
			created++
		case r.StatusCode == 409 && code(r) == "IDEMPOTENCY_KEY_IN_PROGRESS":
			busy++
		default:
			t.Fatalf("unexpected answer %d %s", r.StatusCode, r.Body)
		}
	}
	if created == 0 || h.count("CT") != 1 || h.count("EVT") != 1 {
		t.Fatalf("201s=%d busy=%d contacts=%d events=%d", created, busy, h.count("CT"), h.count("EVT"))
	}
	t.Logf("100 concurrent: %d answered 201, %d answered 409 IN_PROGRESS", created, busy)
}

// TestStaleAttemptCannotCommitDuringTakeover: the retry has taken the key
// over and is still running when the stale first attempt tries to commit.
// The first attempt is rejected (it no longer holds the lock) and answers
// IN_PROGRESS; the retry commits. One contact exists.
func TestStaleAttemptCannotCommitDuringTakeover(t *testing.T) {
	h := newHarness(t)
	key := newKey()
	firstDone := make(chan events.APIGatewayV2HTTPResponse, 1)
	proceed := make(chan struct{})
	stale := h.fn(app.CreateContact, app.WithMutationHooks(idempotency.Hooks{BeforeCommit: func(context.Context) error {
		<-proceed
		return nil
	}}))
	go func() { firstDone <- call(t, stale, h.contact(key, ivan)) }()
	late := h.fn(app.CreateContact, app.WithClock(func() time.Time { return time.Now().Add(time.Hour) }), app.WithMutationHooks(idempotency.Hooks{BeforeCommit: func(context.Context) error {
		close(proceed) // the stale attempt commits now, while we hold the key
		first := <-firstDone
		if first.StatusCode != 409 || code(first) != "IDEMPOTENCY_KEY_IN_PROGRESS" {
			t.Errorf("stale attempt: got %d %s, want 409 IDEMPOTENCY_KEY_IN_PROGRESS", first.StatusCode, first.Body)
		}
		return nil
	}}))
	waitCaptured(t, h, key)
	retry := call(t, late, h.contact(key, ivan))
	if retry.StatusCode != 201 || retry.Headers["Idempotent-Replayed"] != "" {
		t.Fatalf("retry: %d %s", retry.StatusCode, retry.Body)
	}
	if n := h.count("CT"); n != 1 {
		t.Fatalf("%d contacts, want exactly 1", n)
	}
}

// waitCaptured waits until a request holds key.
func waitCaptured(t *testing.T, h *harness, key string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if dynamotest.CountItems(t, h.store.DB, h.tables.Idempotency, h.project+"#"+key) == 1 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the first attempt never captured the key")
}
