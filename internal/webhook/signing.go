package webhook

import (
	"crypto/rand"
	"encoding/base64"

	kit "github.com/botix/public-api/sdk/go/webhook"
)

// SecretPrefix starts every endpoint secret.
const SecretPrefix = "whsec_"

// NewSecret returns a fresh endpoint secret: "whsec_" and the base64 of 32
// random bytes.
func NewSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// Headers of a webhook request.
const (
	HeaderEvent       = "X-Botix-Event"
	HeaderSignature   = "X-Botix-Signature"
	HeaderRequestID   = "X-Botix-Request-Id"
	HeaderAttempt     = "X-Delivery-Attempt"
	HeaderID          = "Webhook-Id"
	HeaderTimestamp   = "Webhook-Timestamp"
	HeaderStdSig      = "Webhook-Signature"
	UserAgent         = "Botix-Webhooks/1.1"
	ContentTypeHeader = "application/json"
)

// SignedHeaders returns the signature headers of a request, signed by the
// receiver kit's Sign (one HMAC for the sender and the kit that verifies):
// one signature per active secret in both schemes, newest first, so that a
// receiver holding any of them verifies during a rotation.
// X-Botix-Signature is the hex signatures joined by "," (no spaces; with
// one secret, the single hex value), and webhook-signature the Standard
// Webhooks entries joined by " ".
func SignedHeaders(secrets []string, eventID string, timestamp int64, body []byte) (map[string]string, error) {
	h, err := kit.Sign(secrets, eventID, timestamp, body)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(h))
	for k := range h {
		out[k] = h.Get(k)
	}
	return out, nil
}
