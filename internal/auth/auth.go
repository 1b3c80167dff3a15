// Package auth authenticates API keys. Keys are random bearer tokens; only
// their SHA-256 hashes are stored, and a key's project is the only project
// a request can act on.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/botix/public-api/internal/apierr"
)

// KeyPrefix starts every API key, so that leaked keys are easy to scan for.
const KeyPrefix = "bx_"

var wellFormed = regexp.MustCompile(`^bx_[A-Za-z0-9_-]{16,128}$`)

// NewKey returns a fresh random API key: "bx_live_" and 40 base32 characters
// (200 bits).
func NewKey() string {
	b := make([]byte, 25)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return KeyPrefix + "live_" + strings.ToLower(base32.StdEncoding.EncodeToString(b))
}

// WellFormed reports whether key has the shape of an API key.
func WellFormed(key string) bool { return wellFormed.MatchString(key) }

// Hash returns the stored form of a key: hex SHA-256.
func Hash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// KeyStore finds the project of a key hash. It returns an error for which
// notFound reports true when no key has that hash.
type KeyStore interface {
	ProjectOfKey(ctx context.Context, keyHash string) (string, error)
}

// Cached authenticates keys against a KeyStore and remembers answers for a
// short time per Lambda instance, so that a busy function does not read
// DynamoDB on every request. A revoked key stops working within TTL.
type Cached struct {
	Keys     KeyStore
	NotFound func(error) bool
	// TTL is how long a known key is remembered; unknown keys are
	// remembered for NegativeTTL.
	TTL, NegativeTTL time.Duration
	Now              func() time.Time

	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	project string
	expires time.Time
}

// maxCacheEntries bounds the cache's memory; past it the cache starts over.
const maxCacheEntries = 10000

var errUnauthorized = apierr.New(apierr.Unauthorized, "the API key is missing, malformed or unknown")

// Authenticate implements httpapi.Authenticator.
func (c *Cached) Authenticate(ctx context.Context, key string) (string, error) {
	if !WellFormed(key) {
		return "", errUnauthorized
	}
	h := Hash(key)
	now := time.Now()
	if c.Now != nil {
		now = c.Now()
	}
	c.mu.Lock()
	e, ok := c.entries[h]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		if e.project == "" {
			return "", errUnauthorized
		}
		return e.project, nil
	}
	project, err := c.Keys.ProjectOfKey(ctx, h)
	ttl := c.TTL
	switch {
	case err != nil && c.NotFound(err):
		project, ttl = "", c.NegativeTTL
	case err != nil:
		return "", err
	}
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= maxCacheEntries {
		c.entries = map[string]cacheEntry{}
	}
	c.entries[h] = cacheEntry{project: project, expires: now.Add(ttl)}
	c.mu.Unlock()
	if project == "" {
		return "", errUnauthorized
	}
	return project, nil
}
