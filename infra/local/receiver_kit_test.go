package local_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botix/public-api/infra/apitest"
	"github.com/botix/public-api/infra/local"
	"github.com/botix/public-api/internal/app"
	pipeline "github.com/botix/public-api/internal/webhook"
	"github.com/botix/public-api/sdk/go/webhook"
)

// TestReceiverKitEndToEnd: real deliveries verify with the kit, and a
// webhook sent twice (the deliver function crashed after its POST) is
// processed once.
func TestReceiverKitEndToEnd(t *testing.T) {
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
	ep := c.endpoint(srv.URL+"/webhooks", "contact.created")
	h.Verifier.Secrets = []string{ep.Secret}
	c.contact("+79990010001")
	apitest.Eventually(t, 20*time.Second, "the webhook and its repeat arrived", func() bool { return requests.Load() == 2 })
	mu.Lock()
	defer mu.Unlock()
	if len(processed) != 1 || processed[0].Type != "contact.created" || processed[0].CreatedAt.IsZero() {
		t.Fatalf("2 requests, %d events processed: %+v", len(processed), processed)
	}
}
