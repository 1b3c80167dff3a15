package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
)

// ErrNoSecret: Sign was given no secret to sign with.
var ErrNoSecret = errors.New("webhook: no secret to sign with")

// Sign returns the signature headers BOTIX sends with body as the webhook
// id (the event id), at timestamp (unix seconds), signed with secrets (the
// endpoint's active secrets, newest first): X-Botix-Signature, the hex
// HMAC-SHA256 of body with each secret joined by ","; webhook-id and
// webhook-timestamp; webhook-signature, "v1," and the base64 HMAC-SHA256
// of "id.timestamp.body" with each secret, joined by " ". The deliver
// function signs with it, so a receiver's tests can make with it the
// requests BOTIX sends; Verify accepts them.
func Sign(secrets []string, id string, timestamp int64, body []byte) (http.Header, error) {
	if len(secrets) == 0 {
		return nil, ErrNoSecret
	}
	botix := make([]string, 0, len(secrets))
	std := make([]string, 0, len(secrets))
	for _, s := range secrets {
		k, err := key(s)
		if err != nil {
			return nil, err
		}
		botix = append(botix, hexMAC(k, body))
		std = append(std, "v1,"+standardMAC(k, id, timestamp, body))
	}
	h := http.Header{}
	h.Set("X-Botix-Signature", strings.Join(botix, ","))
	h.Set("Webhook-Id", id)
	h.Set("Webhook-Timestamp", strconv.FormatInt(timestamp, 10))
	h.Set("Webhook-Signature", strings.Join(std, " "))
	return h, nil
}

// hexMAC is an X-Botix-Signature entry: hex HMAC-SHA256 of the body.
func hexMAC(k, body []byte) string {
	m := hmac.New(sha256.New, k)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// standardMAC is a webhook-signature entry without its "v1,": base64
// HMAC-SHA256 of "id.timestamp.body".
func standardMAC(k []byte, id string, timestamp int64, body []byte) string {
	m := hmac.New(sha256.New, k)
	m.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
	m.Write(body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// key is the HMAC key of a secret: the bytes the base64 after "whsec_"
// encodes (the Standard Webhooks convention, for both schemes).
func key(secret string) ([]byte, error) {
	raw, ok := strings.CutPrefix(secret, "whsec_")
	if !ok {
		return nil, ErrBadSecret
	}
	k, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(k) == 0 {
		return nil, ErrBadSecret
	}
	return k, nil
}
