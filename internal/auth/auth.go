// Package auth authenticates API keys and dashboard sessions. Both are
// random bearer tokens of which only the SHA-256 hashes are stored, and
// their project is the only project a request can act on. A key may call
// every route; a session only the routes its scope grants.
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
	"github.com/botix/public-api/internal/clock"
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

// SessionStore finds the session of a token hash. It returns an error for
// which notFound reports true when no session has that hash (a revoked
// session has none); an expired session may still be returned.
type SessionStore interface {
	SessionOfToken(ctx context.Context, tokenHash string) (Session, error)
}

// Caller is who an authenticated request acts for.
type Caller struct {
	Project string
	// Session is the dashboard session the request came with; nil for an
	// API key.
	Session *Session
}

// May reports whether the caller may call a route that admits sessions
// holding grant ("" admits none: API keys only).
func (c Caller) May(grant Grant) bool {
	if c.Session == nil {
		return true
	}
	for _, g := range c.Session.Scope.Grants() {
		if grant != "" && g == grant {
			return true
		}
	}
	return false
}

// Cached authenticates keys against a KeyStore and remembers answers for a
// short time per Lambda instance, so that a busy function does not read
// DynamoDB on every request. A revoked key stops working within TTL.
// Session tokens are read from Sessions on every request (only unknown
// ones are remembered, for NegativeTTL), so that a revoked session stops
// at once; expiry is checked against the clock on every request.
type Cached struct {
	Keys     KeyStore
	Sessions SessionStore
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

var (
	errUnauthorized   = apierr.New(apierr.Unauthorized, "the API key is missing, malformed or unknown")
	errSessionUnknown = apierr.New(apierr.Unauthorized, "the dashboard session is unknown or was revoked; ask the project's owner for a new one")
	errSessionExpired = apierr.New(apierr.Unauthorized, "the dashboard session has expired; ask the project's owner for a new one")
)

// Authenticate implements httpapi.Authenticator: an API key or a dashboard
// session token.
func (c *Cached) Authenticate(ctx context.Context, token string) (Caller, error) {
	now := clock.Or(c.Now)()
	if strings.HasPrefix(token, SessionPrefix) {
		return c.session(ctx, token, now)
	}
	project, err := c.key(ctx, token, now)
	return Caller{Project: project}, err
}

func (c *Cached) session(ctx context.Context, token string, now time.Time) (Caller, error) {
	if !SessionToken(token) {
		return Caller{}, errSessionUnknown
	}
	h := Hash(token)
	if c.knownMissing(h, now) {
		return Caller{}, errSessionUnknown
	}
	s, err := c.Sessions.SessionOfToken(ctx, h)
	switch {
	case err != nil && c.NotFound(err):
		c.remember(h, "", now.Add(c.NegativeTTL))
		return Caller{}, errSessionUnknown
	case err != nil:
		return Caller{}, err
	case !s.Live(now):
		return Caller{}, errSessionExpired
	}
	return Caller{Project: s.Project, Session: &s}, nil
}

// knownMissing reports whether hash is remembered as unknown.
func (c *Cached) knownMissing(h string, now time.Time) bool {
	c.mu.Lock()
	e, ok := c.entries[h]
	c.mu.Unlock()
	return ok && now.Before(e.expires) && e.project == ""
}

func (c *Cached) remember(h, project string, expires time.Time) {
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= maxCacheEntries {
		c.entries = map[string]cacheEntry{}
	}
	c.entries[h] = cacheEntry{project: project, expires: expires}
	c.mu.Unlock()
}

func (c *Cached) key(ctx context.Context, key string, now time.Time) (string, error) {
	if !WellFormed(key) {
		return "", errUnauthorized
	}
	h := Hash(key)
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
	c.remember(h, project, now.Add(ttl))
	if project == "" {
		return "", errUnauthorized
	}
	return project, nil
}
