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

// Key is an API key as authentication knows it: its id and its project.
type Key struct {
	ID      string
	Project string
}

// KeyStore finds the keys of projects. KeyOfHash returns the key of a key
// hash, KeyLive nil when project still has the key of id keyID; both
// return an error for which notFound reports true when there is no such
// key (a revoked key has none).
type KeyStore interface {
	KeyOfHash(ctx context.Context, keyHash string) (Key, error)
	KeyLive(ctx context.Context, project, keyID string) error
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
	// KeyID is the API key the request came with; empty for a session.
	KeyID string
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
// at once; expiry is checked against the clock on every request. A
// session ends with the key that made it: its key is checked as a key is
// (remembered for TTL), so that a session outlives no revoked key by more
// than the key itself.
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
	project, keyID string
	expires        time.Time
}

// maxCacheEntries bounds the cache's memory; past it the cache starts over.
const maxCacheEntries = 10000

var (
	errUnauthorized   = apierr.New(apierr.Unauthorized, "the API key is missing, malformed or unknown")
	errSessionUnknown = apierr.New(apierr.Unauthorized, "the dashboard session is unknown or was revoked; ask the project's owner for a new one")
	errSessionExpired = apierr.New(apierr.Unauthorized, "the dashboard session has expired; ask the project's owner for a new one")
	// errSessionKeyRevoked says as little as errSessionUnknown: the holder
	// of a session has no business with the project's keys.
	errSessionKeyRevoked = apierr.New(apierr.Unauthorized, "the dashboard session was revoked with the API key that made it; ask the project's owner for a new one")
)

// Authenticate implements httpapi.Authenticator: an API key or a dashboard
// session token.
func (c *Cached) Authenticate(ctx context.Context, token string) (Caller, error) {
	now := clock.Or(c.Now)()
	if strings.HasPrefix(token, SessionPrefix) {
		return c.session(ctx, token, now)
	}
	k, err := c.key(ctx, token, now)
	return Caller{Project: k.Project, KeyID: k.ID}, err
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
		c.remember(h, Key{}, now.Add(c.NegativeTTL))
		return Caller{}, errSessionUnknown
	case err != nil:
		return Caller{}, err
	case !s.Live(now):
		return Caller{}, errSessionExpired
	}
	if err := c.sessionKeyLive(ctx, s, now); err != nil {
		return Caller{}, err
	}
	return Caller{Project: s.Project, Session: &s}, nil
}

// sessionKeyLive reports whether the key that made s is still live (nil),
// its answer remembered for TTL as a key's is. Sessions made before
// sessions recorded their key have none and live out their 12 h at most.
func (c *Cached) sessionKeyLive(ctx context.Context, s Session, now time.Time) error {
	if s.KeyID == "" {
		return nil
	}
	ref := "key:" + s.Project + "/" + s.KeyID
	c.mu.Lock()
	e, ok := c.entries[ref]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		if e.project == "" {
			return errSessionKeyRevoked
		}
		return nil
	}
	err := c.Keys.KeyLive(ctx, s.Project, s.KeyID)
	switch {
	case err != nil && c.NotFound(err):
		c.remember(ref, Key{}, now.Add(c.TTL))
		return errSessionKeyRevoked
	case err != nil:
		return err
	}
	c.remember(ref, Key{ID: s.KeyID, Project: s.Project}, now.Add(c.TTL))
	return nil
}

// knownMissing reports whether hash is remembered as unknown.
func (c *Cached) knownMissing(h string, now time.Time) bool {
	c.mu.Lock()
	e, ok := c.entries[h]
	c.mu.Unlock()
	return ok && now.Before(e.expires) && e.project == ""
}

func (c *Cached) remember(h string, k Key, expires time.Time) {
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= maxCacheEntries {
		c.entries = map[string]cacheEntry{}
	}
	c.entries[h] = cacheEntry{project: k.Project, keyID: k.ID, expires: expires}
	c.mu.Unlock()
}

func (c *Cached) key(ctx context.Context, key string, now time.Time) (Key, error) {
	if !WellFormed(key) {
		return Key{}, errUnauthorized
	}
	h := Hash(key)
	c.mu.Lock()
	e, ok := c.entries[h]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		if e.project == "" {
			return Key{}, errUnauthorized
		}
		return Key{ID: e.keyID, Project: e.project}, nil
	}
	k, err := c.Keys.KeyOfHash(ctx, h)
	ttl := c.TTL
	switch {
	case err != nil && c.NotFound(err):
		k, ttl = Key{}, c.NegativeTTL
	case err != nil:
		return Key{}, err
	}
	c.remember(h, k, now.Add(ttl))
	if k.Project == "" {
		return Key{}, errUnauthorized
	}
	return k, nil
}
