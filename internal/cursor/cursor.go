// Package cursor encodes and verifies the opaque cursors of pillar 2.
//
// A cursor is base64url (no padding) of
//
//	version (1 byte) | len(kid) (1 byte) | kid | HMAC-SHA256 (32 bytes) | payload
//
// where payload is the JSON of the DynamoDB ExclusiveStartKey (index keys
// included on a GSI) and the MAC covers version, kid, payload and a binding:
// SHA-256 of the project, the endpoint and the normalised filters. A cursor
// therefore verifies only for the walk it was issued for; anything else —
// not base64, truncated, a flipped byte, an unknown key id, another
// project, endpoint or filter set — is INVALID_CURSOR.
package cursor

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/botix/public-api/internal/apierr"
)

const version = 1

// MinSecretLength is the shortest accepted signing secret.
const MinSecretLength = 32

// Key is a signing key.
type Key struct {
	ID     string
	Secret []byte
}

// Keyring holds the signing keys: the first signs, all verify. Rotation is
// "prepend a new key, keep the old until the walks it signed are done".
type Keyring struct {
	keys []Key
}

// ParseKeyring parses "kid:secret[,kid:secret...]". Empty entries and "-"
// are ignored (the deployed secret says "-" when there is no previous key);
// key ids are 1-32 chars of [A-Za-z0-9_-] and unique; secrets have at least
// MinSecretLength chars.
func ParseKeyring(s string) (*Keyring, error) {
	kr := &Keyring{}
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" || part == "-" {
			continue
		}
		id, secret, ok := strings.Cut(part, ":")
		if !ok || !validKID(id) {
			return nil, fmt.Errorf("cursor: key %q must be kid:secret with a kid of 1-32 letters, digits, '_' or '-'", redact(part))
		}
		if len(secret) < MinSecretLength {
			return nil, fmt.Errorf("cursor: the secret of key %s is shorter than %d characters", id, MinSecretLength)
		}
		if seen[id] {
			return nil, fmt.Errorf("cursor: key id %s appears twice", id)
		}
		seen[id] = true
		kr.keys = append(kr.keys, Key{ID: id, Secret: []byte(secret)})
	}
	if len(kr.keys) == 0 {
		return nil, errors.New("cursor: no signing key configured")
	}
	return kr, nil
}

func redact(part string) string {
	id, _, _ := strings.Cut(part, ":")
	return id + ":***"
}

func validKID(id string) bool {
	if len(id) == 0 || len(id) > 32 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// IDs returns the key ids, the signing one first (for logs: never the
// secrets).
func (kr *Keyring) IDs() []string {
	out := make([]string, len(kr.keys))
	for i, k := range kr.keys {
		out[i] = k.ID
	}
	return out
}

// Binding is what a cursor is valid for.
type Binding struct {
	Project  string
	Endpoint string
	// Filters are the request's filters, normalised (see Normalize).
	Filters string
}

func (b Binding) digest() []byte {
	h := sha256.Sum256([]byte(b.Project + "\n" + b.Endpoint + "\n" + b.Filters))
	return h[:]
}

// Normalize renders filters in one canonical form: sorted name=value
// pairs, empty values dropped.
func Normalize(filters map[string]string) string {
	names := make([]string, 0, len(filters))
	for k, v := range filters {
		if v != "" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for i, k := range names {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(k + "=" + filters[k])
	}
	return b.String()
}

// Position is a DynamoDB ExclusiveStartKey with string attributes.
type Position map[string]string

// Encode signs pos for binding with the first key.
func (kr *Keyring) Encode(b Binding, pos Position) (string, error) {
	payload, err := json.Marshal(pos)
	if err != nil {
		return "", err
	}
	k := kr.keys[0]
	var buf bytes.Buffer
	buf.WriteByte(version)
	buf.WriteByte(byte(len(k.ID)))
	buf.WriteString(k.ID)
	buf.Write(mac(k.Secret, k.ID, payload, b))
	buf.Write(payload)
	return base64.RawURLEncoding.EncodeToString(buf.Bytes()), nil
}

// ErrInvalid is the public error of every unusable cursor.
var ErrInvalid = apierr.New(apierr.InvalidCursor, "the cursor is invalid: pass next_cursor exactly as returned, with the same filters, to the same endpoint")

// Decode verifies a cursor for binding and returns its position. Every
// failure is ErrInvalid: the caller learns nothing about why.
func (kr *Keyring) Decode(b Binding, token string) (Position, error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) < 2 || raw[0] != version {
		return nil, ErrInvalid
	}
	n := int(raw[1])
	if len(raw) < 2+n+sha256.Size+2 {
		return nil, ErrInvalid
	}
	kid := string(raw[2 : 2+n])
	sum := raw[2+n : 2+n+sha256.Size]
	payload := raw[2+n+sha256.Size:]
	key, ok := kr.key(kid)
	if !ok || !hmac.Equal(sum, mac(key.Secret, kid, payload, b)) {
		return nil, ErrInvalid
	}
	var pos Position
	if err := json.Unmarshal(payload, &pos); err != nil || len(pos) == 0 {
		return nil, ErrInvalid
	}
	return pos, nil
}

func (kr *Keyring) key(id string) (Key, bool) {
	for _, k := range kr.keys {
		if k.ID == id {
			return k, true
		}
	}
	return Key{}, false
}

func mac(secret []byte, kid string, payload []byte, b Binding) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte{version, byte(len(kid))})
	m.Write([]byte(kid))
	m.Write(b.digest())
	m.Write(payload)
	return m.Sum(nil)
}
