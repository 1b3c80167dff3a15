// Package webhook is the receiver kit for BOTIX webhooks: verify a
// request's signatures, de-duplicate events by id, and serve them from an
// http.Handler. It is the public counterpart of what the BOTIX deliver
// function sends:
//
//	POST <your URL>
//	X-Botix-Signature: <hex HMAC-SHA256 of the body>[,<hex> per further active secret]
//	webhook-id: evt_...            (the event id; the same on every retry)
//	webhook-timestamp: <unix seconds>
//	webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body"> [v1,... per further active secret]
//
// Both headers carry one signature per active secret, newest first: one
// secret normally, two or more for 24 hours after a rotation, so that a
// receiver holding either the previous or the new secret verifies.
// X-Botix-Signature separates its hex signatures with "," (no spaces),
// webhook-signature its entries with " ". Verify judges a request by
// webhook-signature, which is timestamped; X-Botix-Signature is read only
// by a Verifier with AllowLegacy, for requests that lack webhook-signature.
//
// The HMAC key is the base64 part of the endpoint secret ("whsec_<base64>").
// Delivery is at-least-once: de-duplicate on the event id. Sign makes the
// headers BOTIX sends, for a receiver's tests.
package webhook

import (
	"crypto/hmac"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Event is a BOTIX event as a webhook carries it.
type Event struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt time.Time       `json:"created_at"`
	ProjectID string          `json:"project_id"`
	Data      json.RawMessage `json:"data"`
	// Thin events carry only {"object","id"} in Data: the event was over
	// 64 KB; fetch the object through the API.
	Thin bool `json:"thin,omitempty"`
}

// DefaultTolerance is how far webhook-timestamp may be from now.
const DefaultTolerance = 5 * time.Minute

// Verification errors. Verify returns one of them (wrapped in nothing),
// so callers can tell them apart with errors.Is.
var (
	// ErrNoSignature: the request carries neither signature scheme.
	ErrNoSignature = errors.New("webhook: no X-Botix-Signature or webhook-signature header")
	// ErrUntimedSignature: the request carries X-Botix-Signature only. It
	// signs the body without a time, so a captured request could be
	// replayed forever; BOTIX always sends the timestamped webhook-signature
	// too, and a request without it was stripped. Verifier.AllowLegacy
	// accepts it.
	ErrUntimedSignature = errors.New("webhook: only X-Botix-Signature, which carries no timestamp; webhook-signature is required")
	// ErrBadSignature: no signature matches any of the secrets.
	ErrBadSignature = errors.New("webhook: signature does not match")
	// ErrBadTimestamp: webhook-timestamp is missing or not a number.
	ErrBadTimestamp = errors.New("webhook: invalid webhook-timestamp")
	// ErrStale: webhook-timestamp is outside the tolerance (a replay?).
	ErrStale = errors.New("webhook: timestamp outside the tolerance")
	// ErrBadSecret: a secret is not "whsec_" + base64.
	ErrBadSecret = errors.New("webhook: secret must be whsec_ followed by base64")
)

// Verify checks a request against the endpoint's secrets (more than one
// during a rotation) with DefaultTolerance: the timestamped Standard
// Webhooks signature (webhook-signature) must be present and verify with
// one of the secrets. X-Botix-Signature is then not needed and not read —
// webhook-signature already covers the body, and during a rotation
// X-Botix-Signature lists secrets this receiver may not hold — so a
// request is never refused because of it. A request with X-Botix-Signature
// alone is refused with ErrUntimedSignature (see Verifier.AllowLegacy).
// Comparisons are constant-time.
func Verify(secrets []string, header http.Header, body []byte, now time.Time) error {
	return Verifier{Secrets: secrets}.Verify(header, body, now)
}

// Verifier verifies requests with its secrets and tolerance.
type Verifier struct {
	Secrets []string
	// Tolerance bounds |now - webhook-timestamp|; 0 means DefaultTolerance.
	Tolerance time.Duration
	// AllowLegacy also accepts a request signed with X-Botix-Signature
	// alone, for a legacy receiver behind a proxy that drops the Standard
	// Webhooks headers: it verifies when any of the header's hex
	// signatures (one per active secret, comma-separated) matches any of
	// the secrets. Such a request has no timestamp: a captured one can be
	// replayed at any time, and only the deduplicator stops it. Leave it
	// off unless you must. A request that carries webhook-signature is
	// judged by it alone, with or without AllowLegacy.
	AllowLegacy bool
}

// Verify is the package-level Verify with v's settings.
func (v Verifier) Verify(header http.Header, body []byte, now time.Time) error {
	keys := make([][]byte, 0, len(v.Secrets))
	for _, s := range v.Secrets {
		k, err := key(s)
		if err != nil {
			return err
		}
		keys = append(keys, k)
	}
	std := header.Get("Webhook-Signature")
	botix := header.Get("X-Botix-Signature")
	switch {
	case std != "":
		// A bad webhook-signature is not excused by X-Botix-Signature: that
		// would let a stale or tampered request through the legacy scheme.
		return v.verifyStandard(keys, header, body, std, now)
	case botix == "":
		return ErrNoSignature
	case !v.AllowLegacy:
		return ErrUntimedSignature
	}
	var candidates []string
	for _, c := range strings.Split(botix, ",") {
		candidates = append(candidates, strings.ToLower(strings.TrimSpace(c)))
	}
	if !anyMatch(keys, func(k []byte) []byte { return []byte(hexMAC(k, body)) }, candidates) {
		return ErrBadSignature
	}
	return nil
}

func (v Verifier) verifyStandard(keys [][]byte, header http.Header, body []byte, sigs string, now time.Time) error {
	ts, err := strconv.ParseInt(header.Get("Webhook-Timestamp"), 10, 64)
	if err != nil {
		return ErrBadTimestamp
	}
	tol := v.Tolerance
	if tol == 0 {
		tol = DefaultTolerance
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tol || d < -tol {
		return ErrStale
	}
	id := header.Get("Webhook-Id")
	var candidates []string
	for _, part := range strings.Fields(sigs) {
		if v, sig, ok := strings.Cut(part, ","); ok && v == "v1" {
			candidates = append(candidates, sig)
		}
	}
	signed := func(k []byte) []byte { return []byte(standardMAC(k, id, ts, body)) }
	if !anyMatch(keys, signed, candidates) {
		return ErrBadSignature
	}
	return nil
}

// anyMatch compares every expected signature with every candidate in
// constant time.
func anyMatch(keys [][]byte, expected func([]byte) []byte, candidates []string) bool {
	ok := false
	for _, k := range keys {
		want := expected(k)
		for _, c := range candidates {
			if hmac.Equal(want, []byte(c)) {
				ok = true
			}
		}
	}
	return ok
}
