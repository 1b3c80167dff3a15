package webhooks_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/internal/app"
	pipeline "github.com/botix/public-api/internal/webhook"
	"github.com/botix/public-api/sdk/go/webhook"
)

// TestWebhookSecretRotationOverlap: after a rotation, a receiver that still
// holds the previous secret and one that already holds the new secret —
// both on the receiver kit, both real HTTP servers — accept every webhook
// until the overlap ends; after it, the previous secret no longer signs,
// so its receiver answers 401 (the delivery goes dead) while the new one
// accepts. Every request also verifies with a Standard Webhooks check
// written here, independently of the kit and of the signer.
//
// The endpoint's URL fans each request out to both receivers and answers
// with the worse of their two answers, so what BOTIX records for a
// delivery (delivered or dead) is what each receiver alone would have got.
// The overlap ends the way it does in production: the deliver function's
// clock passes the previous secret's stored expiry.
func TestWebhookSecretRotationOverlap(t *testing.T) {
	var ahead atomic.Int64 // how far the deliver function's clock is ahead of the wall clock
	clock := func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	_, c, s, project := webhookRuntime(t, func(cfg *local.Config) {
		cfg.FunctionOptions = map[string][]app.Option{"DeliverFunction": {app.WithClock(clock)}}
	})
	front := apitest.NewReceiver(t, nil)
	ep := c.Endpoint(front.URL, "contact.created")

	r := c.Post("/public/v1/webhook-endpoints/"+ep.ID+"/rotate-secret", uuid.NewString(), "")
	var rot struct {
		Secret       string `json:"secret"`
		PreviousEnds string `json:"previous_secret_expires_at"`
	}
	r.JSON(t, &rot)
	previousEnds, err := time.Parse(time.RFC3339Nano, rot.PreviousEnds)
	if r.Status != 200 || rot.Secret == "" || rot.Secret == ep.Secret || err != nil {
		t.Fatalf("rotate: %d %s", r.Status, r.Body)
	}

	old := newKitReceiver(t, ep.Secret, clock)
	cur := newKitReceiver(t, rot.Secret, clock)
	var mu sync.Mutex
	answers := map[string][2]int{} // event id -> status of the old-secret and the new-secret receiver
	front.SetRespond(func(n int, r *http.Request, w http.ResponseWriter) {
		body := front.Requests()[n].Body
		a := [2]int{old.post(t, r.Header, body), cur.post(t, r.Header, body)}
		mu.Lock()
		answers[r.Header.Get("Webhook-Id")] = a
		mu.Unlock()
		w.WriteHeader(max(a[0], a[1])) // 401 beats 200: the worse answer
	})
	oldKey, newKey := secretKey(t, ep.Secret), secretKey(t, rot.Secret)

	// deliver creates a contact and waits for its webhook's delivery to
	// settle; it returns the request and both receivers' answers.
	deliver := func(phone string) (apitest.Received, [2]int, pipeline.Delivery) {
		t.Helper()
		seen := len(front.Requests())
		c.Contact(phone)
		var req apitest.Received
		var d pipeline.Delivery
		apitest.Eventually(t, 30*time.Second, "the contact's webhook settled", func() bool {
			reqs := front.Requests()
			if len(reqs) <= seen {
				return false
			}
			req = reqs[seen]
			id, _ := pipeline.DeliveryID(req.Header.Get("Webhook-Id"), ep.ID)
			var err error
			d, err = s.Deliveries().Get(context.Background(), project, id)
			return err == nil && (d.Status == pipeline.StatusDelivered || d.Status == pipeline.StatusDead)
		})
		mu.Lock()
		defer mu.Unlock()
		return req, answers[req.Header.Get("Webhook-Id")], d
	}

	overlap := t.Run("during the overlap both secrets verify", func(t *testing.T) {
		for i, phone := range []string{"+79990020001", "+79990020002", "+79990020003"} {
			req, a, d := deliver(phone)
			if a != [2]int{200, 200} || d.Status != pipeline.StatusDelivered {
				t.Fatalf("webhook %d: old-secret receiver %d, new-secret receiver %d, delivery %s; both must accept during the overlap", i+1, a[0], a[1], d.Status)
			}
			if got, want := req.Header.Get("X-Botix-Signature"), hexHMAC(newKey, req.Body)+","+hexHMAC(oldKey, req.Body); got != want {
				t.Fatalf("X-Botix-Signature = %q, want the new secret's then the previous one's, comma-separated: %q", got, want)
			}
			for name, key := range map[string][]byte{"previous": oldKey, "new": newKey} {
				if !standardWebhooksVerifies(req.Header, req.Body, key) {
					t.Fatalf("webhook %d: webhook-signature %q does not verify with the %s secret", i+1, req.Header.Get("Webhook-Signature"), name)
				}
			}
		}
		if old.processed.Load() != 3 || cur.processed.Load() != 3 {
			t.Fatalf("processed: old-secret receiver %d, new-secret receiver %d; want 3 each", old.processed.Load(), cur.processed.Load())
		}
	})

	if !overlap {
		return // the counts below build on the overlap's
	}
	t.Run("after the overlap only the new secret verifies", func(t *testing.T) {
		ahead.Store(int64(time.Until(previousEnds) + time.Minute))
		req, a, d := deliver("+79990020004")
		if a != [2]int{401, 200} {
			t.Fatalf("old-secret receiver %d, new-secret receiver %d; want 401 and 200 once the previous secret stopped signing", a[0], a[1])
		}
		if d.Status != pipeline.StatusDead || d.Attempts != 1 {
			t.Fatalf("delivery %s after %d attempts; a 401 is dead at once", d.Status, d.Attempts)
		}
		if got, want := req.Header.Get("X-Botix-Signature"), hexHMAC(newKey, req.Body); got != want {
			t.Fatalf("X-Botix-Signature = %q, want the new secret's alone: %q", got, want)
		}
		if !standardWebhooksVerifies(req.Header, req.Body, newKey) || standardWebhooksVerifies(req.Header, req.Body, oldKey) {
			t.Fatalf("webhook-signature %q: must verify with the new secret only", req.Header.Get("Webhook-Signature"))
		}
		if old.processed.Load() != 3 || cur.processed.Load() != 4 {
			t.Fatalf("processed: old-secret receiver %d (want 3), new-secret receiver %d (want 4)", old.processed.Load(), cur.processed.Load())
		}
	})
}

// kitReceiver is a receiver on the kit, verifying with one secret, served
// over HTTP.
type kitReceiver struct {
	url       string
	processed atomic.Int32
}

func newKitReceiver(t *testing.T, secret string, clock func() time.Time) *kitReceiver {
	k := &kitReceiver{}
	h := webhook.NewHandler([]string{secret}, &webhook.MemoryDeduplicator{}, func(context.Context, webhook.Event) error {
		k.processed.Add(1)
		return nil
	})
	// The deliver function's clock, so that its timestamps are within the
	// tolerance after it moves past the overlap; the 401s that follow are
	// expected, not news for the log.
	h.Now = clock
	h.Log = slog.New(slog.DiscardHandler)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	k.url = srv.URL + "/webhooks"
	return k
}

// post sends a webhook request on to the receiver and returns its status.
func (k *kitReceiver) post(t *testing.T, header http.Header, body []byte) int {
	req, err := http.NewRequest(http.MethodPost, k.url, bytes.NewReader(body))
	if err != nil {
		t.Error(err)
		return http.StatusBadGateway
	}
	req.Header = header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return http.StatusBadGateway
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// standardWebhooksVerifies is the Standard Webhooks check as its
// specification states it, written without the kit or the signer: some
// space-separated "v1,<sig>" entry of webhook-signature is the base64
// HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>" with key.
func standardWebhooksVerifies(h http.Header, body, key []byte) bool {
	ts := h.Get("Webhook-Timestamp")
	if _, err := strconv.ParseInt(ts, 10, 64); err != nil {
		return false
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(h.Get("Webhook-Id") + "." + ts + "."))
	m.Write(body)
	want := base64.StdEncoding.EncodeToString(m.Sum(nil))
	for _, entry := range strings.Split(h.Get("Webhook-Signature"), " ") {
		if sig, ok := strings.CutPrefix(entry, "v1,"); ok && hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}

// hexHMAC is the X-Botix-Signature scheme written independently of the
// signer: hex HMAC-SHA256 of the raw body.
func hexHMAC(key, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// secretKey is the HMAC key of a secret as the specification states it,
// also written without the kit or the signer: the bytes the base64 after
// "whsec_" encodes.
func secretKey(t *testing.T, secret string) []byte {
	t.Helper()
	k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(k) == 0 {
		t.Fatalf("secret %q is not whsec_ and base64", secret)
	}
	return k
}
