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

func vectors(t *testing.T) []vector {
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
	cases := []struct {
		name    string
		secrets []string
		header  func() http.Header
		body    string
		now     time.Time
		want    error
	}{
		{"tampered body", v.Secrets, v.header, v.Body + " ", v.at(), webhook.ErrBadSignature},
		{"wrong secret", rotation.Secrets[:1], v.header, v.Body, v.at(), webhook.ErrBadSignature},
		{"timestamp 6 minutes old", v.Secrets, v.header, v.Body, time.Unix(v.Timestamp, 0).Add(6 * time.Minute), webhook.ErrStale},
		{"timestamp 6 minutes ahead", v.Secrets, v.header, v.Body, time.Unix(v.Timestamp, 0).Add(-6 * time.Minute), webhook.ErrStale},
		{"no signature headers", v.Secrets, func() http.Header { return http.Header{} }, v.Body, v.at(), webhook.ErrNoSignature},
		{"bad timestamp", v.Secrets, func() http.Header { h := v.header(); h.Set("webhook-timestamp", "soon"); return h }, v.Body, v.at(), webhook.ErrBadTimestamp},
		{"X-Botix-Signature alone, valid: refused, a stripped request could be a replay", v.Secrets, func() http.Header {
			h := http.Header{}
			h.Set("X-Botix-Signature", v.Botix)
			return h
		}, v.Body, v.at(), webhook.ErrUntimedSignature},
		{"X-Botix-Signature alone, days later: refused", v.Secrets, func() http.Header {
			h := http.Header{}
			h.Set("X-Botix-Signature", v.Botix)
			return h
		}, v.Body, v.at().Add(72 * time.Hour), webhook.ErrUntimedSignature},
		{"a valid webhook-signature does not excuse a bad X-Botix-Signature", v.Secrets, func() http.Header {
			h := v.header()
			h.Set("X-Botix-Signature", strings.Repeat("0", 64))
			return h
		}, v.Body, v.at(), webhook.ErrBadSignature},
		{"malformed secret", []string{"not-a-secret"}, v.header, v.Body, v.at(), webhook.ErrBadSecret},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := webhook.Verify(c.secrets, c.header(), []byte(c.body), c.now); !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
	t.Run("legacy receivers may opt in to X-Botix-Signature alone", func(t *testing.T) {
		legacy := webhook.Verifier{Secrets: v.Secrets, AllowLegacy: true}
		h := http.Header{}
		h.Set("X-Botix-Signature", v.Botix)
		if err := legacy.Verify(h, []byte(v.Body), v.at()); err != nil {
			t.Fatal(err)
		}
		h.Set("X-Botix-Signature", strings.Repeat("0", 64))
		if err := legacy.Verify(h, []byte(v.Body), v.at()); !errors.Is(err, webhook.ErrBadSignature) {
			t.Fatalf("tampered: %v", err)
		}
	})
	t.Run("during a rotation either secret verifies", func(t *testing.T) {
		for _, s := range rotation.Secrets {
			h := rotation.header()
			h.Del("X-Botix-Signature") // signed with the newest only
			if err := webhook.Verify([]string{s}, h, []byte(rotation.Body), rotation.at()); err != nil {
				t.Fatalf("secret %s...: %v", s[:10], err)
			}
		}
	})
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
