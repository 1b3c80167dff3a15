package webhook_test

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/sdk/go/webhook"
)

// TestSignMakesTheSharedVectors: Sign, with which the deliver function
// signs, makes exactly the headers of the vectors, and Verify accepts them.
func TestSignMakesTheSharedVectors(t *testing.T) {
	for _, v := range vectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			h, err := webhook.Sign(v.Secrets, v.ID, v.Timestamp, []byte(v.Body))
			if err != nil {
				t.Fatal(err)
			}
			if h.Get("X-Botix-Signature") != v.Botix || h.Get("Webhook-Signature") != v.Standard || h.Get("Webhook-Id") != v.ID || h.Get("Webhook-Timestamp") != strconv.FormatInt(v.Timestamp, 10) {
				t.Fatalf("signed %v, vector says %s / %s", h, v.Botix, v.Standard)
			}
			if err := webhook.Verify(v.Secrets, h, []byte(v.Body), time.Unix(v.Timestamp, 0)); err != nil {
				t.Fatalf("Verify refuses what Sign made: %v", err)
			}
		})
	}
}

// TestSignEverySecretNewestFirst: during a rotation every active secret
// signs, in the order given (newest first); checked by an HMAC computed
// outside the kit.
func TestSignEverySecretNewestFirst(t *testing.T) {
	body := []byte(`{"id":"evt_1"}`)
	secrets := []string{secret(1), secret(2), secret(3)}
	for n := 1; n <= len(secrets); n++ {
		h, err := webhook.Sign(secrets[:n], "evt_1", 1795939200, body)
		if err != nil {
			t.Fatal(err)
		}
		var botix, std []string
		for _, s := range secrets[:n] {
			k, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "whsec_"))
			botix = append(botix, hex.EncodeToString(mac(k, string(body))))
			std = append(std, "v1,"+base64.StdEncoding.EncodeToString(mac(k, "evt_1.1795939200."+string(body))))
		}
		if got, want := h.Get("X-Botix-Signature"), strings.Join(botix, ","); got != want {
			t.Errorf("%d secrets: X-Botix-Signature = %q, want %q", n, got, want)
		}
		if got, want := h.Get("Webhook-Signature"), strings.Join(std, " "); got != want {
			t.Errorf("%d secrets: webhook-signature = %q, want %q", n, got, want)
		}
	}
}

func TestSignRefusesWhatCannotSign(t *testing.T) {
	if _, err := webhook.Sign(nil, "evt_1", 1, nil); !errors.Is(err, webhook.ErrNoSecret) {
		t.Errorf("no secret: %v, want ErrNoSecret", err)
	}
	for _, bad := range []string{"not-a-secret", "whsec_", "whsec_!!!"} {
		if _, err := webhook.Sign([]string{secret(1), bad}, "evt_1", 1, nil); !errors.Is(err, webhook.ErrBadSecret) {
			t.Errorf("secret %q: %v, want ErrBadSecret", bad, err)
		}
	}
}

// secret is a fixed, distinct test secret.
func secret(n byte) string {
	return "whsec_" + base64.StdEncoding.EncodeToString([]byte(strings.Repeat(string(rune('a'+n)), 32)))
}
