package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botix/public-api/sdk/go/webhook"
	"github.com/botix/public-api/sdk/go/webhook/webhooktest"
)

type vector struct {
	Name      string   `json:"name"`
	Secrets   []string `json:"secrets"`
	ID        string   `json:"webhook_id"`
	Timestamp int64    `json:"webhook_timestamp"`
	Body      string   `json:"body"`
	Botix     string   `json:"x_botix_signature"`
	Standard  string   `json:"webhook_signature"`
}

func vectors(t testing.TB) []vector {
	t.Helper()
	raw, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Vectors []vector }
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f.Vectors
}

func (v vector) header() http.Header {
	h := http.Header{}
	h.Set("X-Botix-Signature", v.Botix)
	h.Set("webhook-id", v.ID)
	h.Set("webhook-timestamp", strconv.FormatInt(v.Timestamp, 10))
	h.Set("webhook-signature", v.Standard)
	return h
}

func (v vector) at() time.Time { return time.Unix(v.Timestamp, 0).Add(30 * time.Second) }

func TestVerify(t *testing.T) {
	for _, v := range vectors(t) {
		t.Run(v.Name+": valid", func(t *testing.T) {
			if err := webhook.Verify(v.Secrets, v.header(), []byte(v.Body), v.at()); err != nil {
				t.Fatal(err)
			}
		})
	}
	v := vectors(t)[0]
	rotation := vectors(t)[1]
	newSecret, previousSecret := rotation.Secrets[:1], rotation.Secrets[1:]
	botixOnly := func(v vector) func() http.Header {
		return func() http.Header {
			h := http.Header{}
			h.Set("X-Botix-Signature", v.Botix)
			return h
		}
	}
	cases := []struct {
		name    string
		secrets []string
		legacy  bool // Verifier.AllowLegacy
		header  func() http.Header
		body    string
		now     time.Time
		want    error
	}{
		{"tampered body", v.Secrets, false, v.header, v.Body + " ", v.at(), webhook.ErrBadSignature},
		{"wrong secret", rotation.Secrets[:1], false, v.header, v.Body, v.at(), webhook.ErrBadSignature},
		{"timestamp 6 minutes old", v.Secrets, false, v.header, v.Body, time.Unix(v.Timestamp, 0).Add(6 * time.Minute), webhook.ErrStale},
		{"timestamp 6 minutes ahead", v.Secrets, false, v.header, v.Body, time.Unix(v.Timestamp, 0).Add(-6 * time.Minute), webhook.ErrStale},
		{"no signature headers", v.Secrets, false, func() http.Header { return http.Header{} }, v.Body, v.at(), webhook.ErrNoSignature},
		{"bad timestamp", v.Secrets, false, func() http.Header { h := v.header(); h.Set("webhook-timestamp", "soon"); return h }, v.Body, v.at(), webhook.ErrBadTimestamp},
		{"X-Botix-Signature alone, valid: refused, a stripped request could be a replay", v.Secrets, false, botixOnly(v), v.Body, v.at(), webhook.ErrUntimedSignature},
		{"X-Botix-Signature alone, days later: refused", v.Secrets, false, botixOnly(v), v.Body, v.at().Add(72 * time.Hour), webhook.ErrUntimedSignature},
		{"X-Botix-Signature alone during a rotation: refused too", previousSecret, false, botixOnly(rotation), rotation.Body, rotation.at(), webhook.ErrUntimedSignature},
		{"a verifying webhook-signature is enough: X-Botix-Signature is not read", v.Secrets, false, func() http.Header {
			h := v.header()
			h.Set("X-Botix-Signature", strings.Repeat("0", 64))
			return h
		}, v.Body, v.at(), nil},
		{"a verifying webhook-signature is enough without X-Botix-Signature", v.Secrets, false, func() http.Header {
			h := v.header()
			h.Del("X-Botix-Signature")
			return h
		}, v.Body, v.at(), nil},
		{"rotation, receiver holding only the new secret", newSecret, false, rotation.header, rotation.Body, rotation.at(), nil},
		{"rotation, receiver holding only the previous secret", previousSecret, false, rotation.header, rotation.Body, rotation.at(), nil},
		{"rotation, receiver holding neither", v.Secrets, false, rotation.header, rotation.Body, rotation.at(), webhook.ErrBadSignature},
		{"rotation, stale: neither secret excuses the time", previousSecret, false, rotation.header, rotation.Body, rotation.at().Add(6 * time.Minute), webhook.ErrStale},
		{"legacy: X-Botix-Signature alone accepted", v.Secrets, true, botixOnly(v), v.Body, v.at(), nil},
		{"legacy: X-Botix-Signature alone, tampered", v.Secrets, true, func() http.Header {
			h := http.Header{}
			h.Set("X-Botix-Signature", strings.Repeat("0", 64))
			return h
		}, v.Body, v.at(), webhook.ErrBadSignature},
		{"legacy, rotation: the new secret matches the list's first entry", newSecret, true, botixOnly(rotation), rotation.Body, rotation.at(), nil},
		{"legacy, rotation: the previous secret matches the list's second entry", previousSecret, true, botixOnly(rotation), rotation.Body, rotation.at(), nil},
		{"legacy, rotation: a secret in no entry", v.Secrets, true, botixOnly(rotation), rotation.Body, rotation.at(), webhook.ErrBadSignature},
		{"legacy, rotation: tampered body", previousSecret, true, botixOnly(rotation), rotation.Body + " ", rotation.at(), webhook.ErrBadSignature},
		{"legacy: a bad webhook-signature is not excused by a valid X-Botix-Signature", v.Secrets, true, func() http.Header {
			h := v.header()
			h.Set("webhook-signature", "v1,"+strings.Repeat("A", 44))
			return h
		}, v.Body, v.at(), webhook.ErrBadSignature},
		{"legacy: a stale webhook-signature is not excused by a valid X-Botix-Signature", v.Secrets, true, v.header, v.Body, v.at().Add(72 * time.Hour), webhook.ErrStale},
		{"malformed secret", []string{"not-a-secret"}, false, v.header, v.Body, v.at(), webhook.ErrBadSecret},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			verifier := webhook.Verifier{Secrets: c.secrets, AllowLegacy: c.legacy}
			if err := verifier.Verify(c.header(), []byte(c.body), c.now); !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
}

// TestHandlerDuringARotation: the kit's Handler answers 200 to
// the same rotation request whether it holds the previous or the new
// secret — the request exactly as BOTIX signs it, both headers included.
func TestHandlerDuringARotation(t *testing.T) {
	rotation := vectors(t)[1]
	for i, secret := range rotation.Secrets {
		h := webhook.NewHandler([]string{secret}, &webhook.MemoryDeduplicator{}, func(context.Context, webhook.Event) error { return nil })
		h.Now = rotation.at
		req := httptest.NewRequest(http.MethodPost, "/hooks", strings.NewReader(rotation.Body))
		req.Header = rotation.header()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("receiver holding secret %d of %d: %d %s", i+1, len(rotation.Secrets), rec.Code, rec.Body)
		}
	}
}

func TestMemoryDeduplicator(t *testing.T) {
	webhooktest.DeduplicatorContract(t, &webhook.MemoryDeduplicator{})
}

func TestHandler(t *testing.T) {
	v := vectors(t)[0]
	var processed atomic.Int32
	fail := atomic.Bool{}
	h := webhook.NewHandler(v.Secrets, &webhook.MemoryDeduplicator{}, func(_ context.Context, ev webhook.Event) error {
		if ev.ID != v.ID || ev.Type != "contact.created" {
			t.Errorf("event %+v", ev)
		}
		if fail.Load() {
			return errors.New("database down")
		}
		processed.Add(1)
		return nil
	})
	h.Now = v.at
	send := func(header http.Header, body string) int {
		req := httptest.NewRequest(http.MethodPost, "/hooks", strings.NewReader(body))
		req.Header = header
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	if code := send(v.header(), v.Body+"x"); code != http.StatusUnauthorized {
		t.Fatalf("tampered: %d", code)
	}
	fail.Store(true)
	if code := send(v.header(), v.Body); code != http.StatusInternalServerError {
		t.Fatalf("failing handler: %d", code)
	}
	fail.Store(false)
	if code := send(v.header(), v.Body); code != http.StatusOK || processed.Load() != 1 {
		t.Fatalf("the retry after a failure must be processed: %d, %d", code, processed.Load())
	}
	if code := send(v.header(), v.Body); code != http.StatusOK || processed.Load() != 1 {
		t.Fatalf("a duplicate must be acknowledged, not processed: %d, %d", code, processed.Load())
	}
}
