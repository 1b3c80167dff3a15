package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/sdk/go/webhook"
)

// FuzzVerify: whatever the headers and body, Verify never panics, and it
// accepts only a request that carries a correct signature of exactly that
// body (and, for the timestamped scheme, that id and timestamp) with one of
// the secrets — checked here by an HMAC computed independently of the kit;
// and what Sign makes for that id, timestamp and body it accepts, and
// refuses for any other body. The seeds are the shared vectors, each also
// with its body changed.
func FuzzVerify(f *testing.F) {
	vs := vectors(f)
	for _, v := range vs {
		f.Add(v.Botix, v.ID, strconv.FormatInt(v.Timestamp, 10), v.Standard, v.Body, false)
		f.Add(v.Botix, v.ID, strconv.FormatInt(v.Timestamp, 10), v.Standard, v.Body+" ", false)
		f.Add(v.Botix, "", "", "", v.Body, true)
	}
	secrets := vs[len(vs)-1].Secrets // the rotation vector: two secrets
	f.Fuzz(func(t *testing.T, botix, id, timestamp, standard, body string, allowLegacy bool) {
		h := http.Header{}
		for k, v := range map[string]string{"X-Botix-Signature": botix, "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": standard} {
			if v != "" {
				h.Set(k, v)
			}
		}
		ts, _ := strconv.ParseInt(timestamp, 10, 64)
		now := time.Unix(ts, 0)
		signed, err := webhook.Sign(secrets, id, ts, []byte(body))
		if err != nil {
			t.Fatalf("Sign: %v", err)
		}
		if err := webhook.Verify(secrets, signed, []byte(body), now); err != nil {
			t.Fatalf("Verify refuses what Sign made for id %q, timestamp %d and body %q: %v", id, ts, body, err)
		}
		if err := webhook.Verify(secrets, signed, []byte(body+"x"), now); !errors.Is(err, webhook.ErrBadSignature) {
			t.Fatalf("Verify of what Sign made for body %q, with another body: %v, want ErrBadSignature", body, err)
		}
		if err := (webhook.Verifier{Secrets: secrets, AllowLegacy: allowLegacy}).Verify(h, []byte(body), now); err != nil {
			return
		}
		if h.Get("webhook-signature") != "" {
			if !anyEntry(strings.Fields(standard), secrets, func(k []byte) string {
				return "v1," + base64.StdEncoding.EncodeToString(mac(k, id+"."+strconv.FormatInt(ts, 10)+"."+body))
			}) {
				t.Fatalf("accepted webhook-signature %q for id %q, timestamp %q and this body without a correct entry", standard, id, timestamp)
			}
			return
		}
		if !allowLegacy || !anyEntry(strings.Split(botix, ","), secrets, func(k []byte) string { return hex.EncodeToString(mac(k, body)) }) {
			t.Fatalf("accepted X-Botix-Signature %q (legacy allowed: %v) without a correct entry", botix, allowLegacy)
		}
	})
}

func mac(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return m.Sum(nil)
}

// anyEntry reports whether one of entries is want(key) for one secret's key.
func anyEntry(entries, secrets []string, want func([]byte) string) bool {
	for _, s := range secrets {
		k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "whsec_"))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e == want(k) {
				return true
			}
		}
	}
	return false
}
