package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
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

// ErrBadSecret reports a secret that is not "whsec_" + base64.
var ErrBadSecret = errors.New("webhook: a secret is whsec_ followed by base64")

// SecretKey returns the HMAC key of a secret: the bytes its base64 encodes
// (the Standard Webhooks convention, used for both signature schemes).
func SecretKey(secret string) ([]byte, error) {
	raw, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, ErrBadSecret
	}
	key, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(key) == 0 {
		return nil, ErrBadSecret
	}
	return key, nil
}

// BotixSignature is one X-Botix-Signature entry of a body: hex HMAC-SHA256
// of the raw body with the secret's key.
func BotixSignature(key, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// BotixSignatureSeparator separates the entries of X-Botix-Signature, one
// per active secret. Hex never contains it, and a list parser that splits
// on it reads today's single value as a list of one.
const BotixSignatureSeparator = ","

// StandardSignature is one Standard Webhooks signature: "v1," + base64
// HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>".
func StandardSignature(key []byte, id string, timestamp int64, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
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

// SignedHeaders returns the signature headers of a request, with one
// signature per active secret in both schemes, newest first, so that a
// receiver holding any of them verifies during a rotation:
// X-Botix-Signature is the hex signatures joined by "," (no spaces; with
// one secret, the single hex value), and webhook-signature the Standard
// Webhooks entries joined by " ".
func SignedHeaders(secrets []string, eventID string, timestamp int64, body []byte) (map[string]string, error) {
	if len(secrets) == 0 {
		return nil, errors.New("webhook: no active secret")
	}
	botix := make([]string, 0, len(secrets))
	std := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := SecretKey(s)
		if err != nil {
			return nil, err
		}
		botix = append(botix, BotixSignature(key, body))
		std = append(std, StandardSignature(key, eventID, timestamp, body))
	}
	return map[string]string{
		HeaderSignature: strings.Join(botix, BotixSignatureSeparator),
		HeaderID:        eventID,
		HeaderTimestamp: strconv.FormatInt(timestamp, 10),
		HeaderStdSig:    strings.Join(std, " "),
	}, nil
}
