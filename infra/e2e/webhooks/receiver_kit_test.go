package webhooks_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/internal/app"
	pipeline "github.com/botix/public-api/internal/webhook"
	"github.com/botix/public-api/sdk/go/webhook"
)

// TestReceiverKitEndToEnd: real deliveries verify with the kit, and a
// webhook sent twice (the deliver function crashed after its POST) is
// processed once.
func TestReceiverKitEndToEnd(t *testing.T) {
	t.Parallel() // its own runtime, and mostly waiting (see main_test.go)
	crash := crashOnce()
	_, c, _, _ := webhookRuntime(t, func(cfg *local.Config) {
		cfg.Options = append(cfg.Options, app.WithDeliveryHooks(pipeline.Hooks{AfterPost: func(context.Context, string) error { crash(); return nil }}))
	})
	var mu sync.Mutex
	var processed []webhook.Event
	var requests atomic.Int32
	h := webhook.NewHandler(nil, &webhook.MemoryDeduplicator{}, func(_ context.Context, ev webhook.Event) error {
		mu.Lock()
		processed = append(processed, ev)
		mu.Unlock()
		return nil
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ep := c.Endpoint(srv.URL+"/webhooks", "contact.created")
	h.Verifier.Secrets = []string{ep.Secret}
	c.Contact("+79990010001")
	apitest.Eventually(t, 20*time.Second, "the webhook and its repeat arrived", func() bool { return requests.Load() == 2 })
	mu.Lock()
	defer mu.Unlock()
	if len(processed) != 1 || processed[0].Type != "contact.created" || processed[0].CreatedAt.IsZero() {
		t.Fatalf("2 requests, %d events processed: %+v", len(processed), processed)
	}
}

// TestReceiverKitDuplicateWhileProcessing: BOTIX retries a delivery whose
// first attempt timed out while the receiver is still processing it; the
// kit answers that copy 503 (BOTIX retries it) instead of acknowledging
// it, the first processing then fails, and the third attempt is processed:
// the event is processed successfully exactly once and not lost.
func TestReceiverKitDuplicateWhileProcessing(t *testing.T) {
	t.Parallel()                               // its own runtime, and mostly waiting (see main_test.go)
	_, c, s, project := webhookRuntime(t, nil) // read timeout 1 s, retries 1 s apart
	var calls, succeeded atomic.Int32
	release := make(chan struct{})
	var releaseOnce sync.Once
	h := webhook.NewHandler(nil, &webhook.MemoryDeduplicator{}, func(context.Context, webhook.Event) error {
		if calls.Add(1) == 1 {
			<-release // past BOTIX's read timeout: attempt 1 times out, attempt 2 comes
			return errors.New("the database went away")
		}
		succeeded.Add(1)
		return nil
	})
	var mu sync.Mutex
	var answers []int
	firstDone := make(chan struct{})
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		mu.Lock()
		answers = append(answers, sw.status)
		mu.Unlock()
		if n == 1 {
			close(firstDone)
		}
		if n == 2 && sw.status == http.StatusServiceUnavailable {
			// The copy was told to retry: now the first processing fails,
			// and is settled before BOTIX's next attempt can arrive.
			releaseOnce.Do(func() { close(release) })
			<-firstDone
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) }) // runs before srv.Close: never leave a handler blocked
	ep := c.Endpoint(srv.URL+"/webhooks", "contact.created")
	h.Verifier.Secrets = []string{ep.Secret}
	c.Contact("+79990010002")

	d := onlyDelivery(t, s, project, ep.ID, 30*time.Second, "the delivery ended", func(d pipeline.Delivery) bool {
		return d.Status == pipeline.StatusDelivered || d.Status == pipeline.StatusDead
	})
	attempts, err := s.Deliveries().Attempts(context.Background(), project, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, a := range attempts {
		seen = append(seen, a.ErrorClass+"/"+strconv.Itoa(a.StatusCode))
	}
	mu.Lock()
	defer mu.Unlock()
	if d.Status != pipeline.StatusDelivered || len(attempts) != 3 ||
		attempts[0].ErrorClass != pipeline.ClassReadTimeout || attempts[1].StatusCode != 503 || attempts[2].StatusCode != 200 {
		t.Fatalf("delivery %s after attempts %v (receiver answered %v); want delivered after read_timeout, 503, 200", d.Status, seen, answers)
	}
	if calls.Load() != 2 || succeeded.Load() != 1 {
		t.Fatalf("processing ran %d times with %d successes (receiver answered %v); want 2 runs, exactly 1 success", calls.Load(), succeeded.Load(), answers)
	}
}

// statusWriter remembers the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}
