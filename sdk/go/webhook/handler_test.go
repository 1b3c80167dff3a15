package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botix/public-api/sdk/go/webhook"
	"github.com/botix/public-api/sdk/go/webhook/webhooktest"
)

const testSecret = "whsec_" + "c2VjcmV0LWZvci10aGUtaGFuZGxlci10ZXN0cw==" // base64 of "secret-for-the-handler-tests"

var testNow = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// delivery is one signed copy of the event id, as BOTIX sends it (every
// copy of an event carries the same id).
func delivery(t *testing.T, id string) *http.Request {
	t.Helper()
	body := fmt.Sprintf(`{"id":%q,"type":"contact.created","created_at":"2026-12-01T09:59:59Z","project_id":"prj_1","data":{"id":"ct_1"}}`, id)
	k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(testSecret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	ts := strconv.FormatInt(testNow.Unix(), 10)
	m := hmac.New(sha256.New, k)
	m.Write([]byte(id + "." + ts + "." + body))
	req := httptest.NewRequest(http.MethodPost, "/webhooks", strings.NewReader(body))
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", ts)
	req.Header.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	return req
}

func serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func newHandler(dedup webhook.Deduplicator, process func(context.Context, webhook.Event) error) *webhook.Handler {
	h := webhook.NewHandler([]string{testSecret}, dedup, process)
	h.Now = func() time.Time { return testNow }
	return h
}

// TestHandlerDuplicateWhileProcessing is the scenario of issue 21: a retry
// arrives while the first copy is still being processed, and that
// processing then fails. The retry must not be acknowledged, or the event
// is lost; the next redelivery is processed, exactly once overall.
func TestHandlerDuplicateWhileProcessing(t *testing.T) {
	const id = "evt_while_processing"
	var calls, succeeded atomic.Int32
	entered := make(chan struct{})
	release := make(chan error)
	h := newHandler(&webhook.MemoryDeduplicator{}, func(_ context.Context, ev webhook.Event) error {
		if calls.Add(1) == 1 {
			close(entered)
			if err := <-release; err != nil {
				return err
			}
		}
		succeeded.Add(1)
		return nil
	})

	first := make(chan *httptest.ResponseRecorder)
	go func() { first <- serve(h, delivery(t, id)) }()
	<-entered

	dup := serve(h, delivery(t, id))
	if _, has := dup.Header()["Retry-After"]; dup.Code != http.StatusServiceUnavailable || has {
		t.Fatalf("copy while the first is processing: %d Retry-After %q, want 503 without Retry-After (BOTIX retries it; a Retry-After would pause the whole endpoint)", dup.Code, dup.Header().Get("Retry-After"))
	}
	release <- errors.New("database down")
	if rec := <-first; rec.Code != http.StatusInternalServerError {
		t.Fatalf("first copy whose processing failed: %d, want 500", rec.Code)
	}
	if rec := serve(h, delivery(t, id)); rec.Code != http.StatusOK {
		t.Fatalf("redelivery after the failure: %d, want 200", rec.Code)
	}
	if rec := serve(h, delivery(t, id)); rec.Code != http.StatusOK {
		t.Fatalf("copy after the completed redelivery: %d, want 200", rec.Code)
	}
	if calls.Load() != 2 || succeeded.Load() != 1 {
		t.Fatalf("process ran %d times, succeeded %d times; want 2 runs (the failure and the redelivery) and exactly 1 success", calls.Load(), succeeded.Load())
	}
}

// TestHandlerAnswers: what each state of the deduplicator and each outcome
// of process is answered with, and whether process runs.
func TestHandlerAnswers(t *testing.T) {
	cases := []struct {
		name        string
		state       webhook.State
		beginErr    error
		processErr  error
		completeErr error
		wantCode    int
		wantProcess bool
		wantSettle  string // "complete", "forget" or ""
	}{
		{name: "unseen event → processed, completed, 200", state: webhook.StateUnseen, wantCode: 200, wantProcess: true, wantSettle: "complete"},
		{name: "unseen event whose processing fails → forgotten, 500 (BOTIX retries)", state: webhook.StateUnseen, processErr: errors.New("boom"), wantCode: 500, wantProcess: true, wantSettle: "forget"},
		{name: "processed, but recording it fails → still 200 (a retry could process it twice)", state: webhook.StateUnseen, completeErr: errors.New("store down"), wantCode: 200, wantProcess: true, wantSettle: "complete"},
		{name: "copy of an event being processed → 503 without Retry-After (it would pause the whole endpoint), not processed", state: webhook.StateProcessing, wantCode: 503},
		{name: "copy of a completed event → 200, not processed", state: webhook.StateDone, wantCode: 200},
		{name: "deduplicator unavailable → 503, not processed", beginErr: errors.New("store down"), wantCode: 503},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := &scriptedDedup{state: c.state, beginErr: c.beginErr, completeErr: c.completeErr}
			processed := false
			h := newHandler(d, func(context.Context, webhook.Event) error { processed = true; return c.processErr })
			rec := serve(h, delivery(t, "evt_answers"))
			// No answer carries Retry-After: BOTIX pauses the whole endpoint on
			// a 429, or a 503 with Retry-After, and none of these is overload.
			if _, has := rec.Header()["Retry-After"]; rec.Code != c.wantCode || has {
				t.Errorf("answer %d Retry-After %q, want %d without Retry-After", rec.Code, rec.Header().Get("Retry-After"), c.wantCode)
			}
			if processed != c.wantProcess {
				t.Errorf("processed = %v, want %v", processed, c.wantProcess)
			}
			if d.settled != c.wantSettle {
				t.Errorf("settled with %q, want %q", d.settled, c.wantSettle)
			}
		})
	}
}

// TestHandlerPanicReleasesTheEvent: a panicking process drops the
// connection (BOTIX retries) and must not leave the event claimed until
// the lease runs out.
func TestHandlerPanicReleasesTheEvent(t *testing.T) {
	const id = "evt_panic"
	var calls atomic.Int32
	h := newHandler(&webhook.MemoryDeduplicator{}, func(context.Context, webhook.Event) error {
		if calls.Add(1) == 1 {
			panic("nil map in the receiver's code")
		}
		return nil
	})
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic was swallowed; net/http must see it to drop the connection")
			}
		}()
		serve(h, delivery(t, id))
	}()
	if rec := serve(h, delivery(t, id)); rec.Code != http.StatusOK || calls.Load() != 2 {
		t.Fatalf("redelivery after the panic: %d after %d runs, want 200 after 2", rec.Code, calls.Load())
	}
}

// TestHandlerLeaseTakeover: an instance that claimed the event crashed
// (it never completes nor forgets); copies are told to retry until the
// lease runs out, then one is processed.
func TestHandlerLeaseTakeover(t *testing.T) {
	const id = "evt_crashed_instance"
	clock := webhooktest.NewClock(testNow)
	dedup := &webhook.MemoryDeduplicator{Now: clock.Now, Lease: time.Minute}
	var processed atomic.Int32
	h := newHandler(dedup, func(context.Context, webhook.Event) error { processed.Add(1); return nil })
	if st, err := dedup.Begin(context.Background(), id); err != nil || st != webhook.StateUnseen {
		t.Fatalf("the crashed instance's claim: %v %v", st, err)
	}
	clock.Advance(59 * time.Second)
	if rec := serve(h, delivery(t, id)); rec.Code != http.StatusServiceUnavailable || processed.Load() != 0 {
		t.Fatalf("copy within the lease: %d, processed %d; want 503, 0", rec.Code, processed.Load())
	}
	clock.Advance(2 * time.Second)
	if rec := serve(h, delivery(t, id)); rec.Code != http.StatusOK || processed.Load() != 1 {
		t.Fatalf("copy past the lease: %d, processed %d; want 200, 1", rec.Code, processed.Load())
	}
	if rec := serve(h, delivery(t, id)); rec.Code != http.StatusOK || processed.Load() != 1 {
		t.Fatalf("copy after the takeover completed: %d, processed %d; want 200, 1", rec.Code, processed.Load())
	}
}

// TestMemoryDeduplicatorContract runs the whole contract, lease cases
// included, on the memory deduplicator.
func TestMemoryDeduplicatorContract(t *testing.T) {
	clock := webhooktest.NewClock(testNow)
	webhooktest.DeduplicatorContract(t, &webhook.MemoryDeduplicator{Now: clock.Now, Lease: time.Minute}, webhooktest.WithLease(clock, time.Minute))
}

// scriptedDedup answers Begin with a fixed state and records how the
// handler settled the claim.
type scriptedDedup struct {
	state       webhook.State
	beginErr    error
	completeErr error
	settled     string
}

func (d *scriptedDedup) Begin(context.Context, string) (webhook.State, error) {
	return d.state, d.beginErr
}

func (d *scriptedDedup) Complete(context.Context, string) error {
	d.settled = "complete"
	return d.completeErr
}

func (d *scriptedDedup) Forget(context.Context, string) error {
	d.settled = "forget"
	return nil
}
