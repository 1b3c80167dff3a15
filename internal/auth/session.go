package auth

import (
	"crypto/rand"
	"encoding/base32"
	"regexp"
	"strings"
	"time"
)

// SessionPrefix starts every dashboard session token. It differs from
// KeyPrefix in its first three characters, so a token is never taken for
// a key (nor a key for a token) and each is looked up in its own place.
const SessionPrefix = "bxs_"

// SessionTokenPattern is the shape of a session token, as the OpenAPI
// document states it (a test compares).
const SessionTokenPattern = `^bxs_[a-z2-7]{40}$`

var sessionShape = regexp.MustCompile(SessionTokenPattern)

// NewSessionToken returns a fresh random session token: "bxs_" and 40
// base32 characters (200 bits), as random as an API key.
func NewSessionToken() string {
	b := make([]byte, 25)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return SessionPrefix + strings.ToLower(base32.StdEncoding.EncodeToString(b))
}

// SessionToken reports whether token has the shape of a session token.
func SessionToken(token string) bool { return sessionShape.MatchString(token) }

// Scope is what a dashboard session may do besides what its project's API
// key may do: a session can never do more than read and, with
// ScopeReadRetry, retry deliveries and recover endpoints.
type Scope string

// The scopes of a dashboard session.
const (
	// ScopeRead reads: every GET route of the API.
	ScopeRead Scope = "read"
	// ScopeReadRetry reads, retries a delivery and recovers an endpoint:
	// the dashboard's catch-up after an outage, and nothing that creates,
	// changes or deletes a resource.
	ScopeReadRetry Scope = "read_retry"
)

// Scopes lists every scope, in the order the API documents them.
var Scopes = []Scope{ScopeRead, ScopeReadRetry}

// Grant names a kind of route a session may call; a route admits sessions
// whose scope holds its grant (see Scope.Grants).
type Grant string

// The grants of the routes that admit sessions.
const (
	// GrantRead is every authenticated GET route.
	GrantRead Grant = "read"
	// GrantRetry is retrying a delivery and recovering an endpoint.
	GrantRetry Grant = "retry"
)

// Grants returns the grants of a scope; an unknown scope holds none.
func (s Scope) Grants() []Grant {
	switch s {
	case ScopeRead:
		return []Grant{GrantRead}
	case ScopeReadRetry:
		return []Grant{GrantRead, GrantRetry}
	}
	return nil
}

// Valid reports whether s is one of Scopes.
func (s Scope) Valid() bool { return len(s.Grants()) > 0 }

// Session lifetimes: a session lives DefaultSessionTTL unless its creator
// asks for another lifetime between MinSessionTTL and MaxSessionTTL. A
// session cannot be extended; create a new one.
const (
	MinSessionTTL     = time.Minute
	DefaultSessionTTL = time.Hour
	MaxSessionTTL     = 12 * time.Hour
)

// Session is a dashboard session: a short-lived bearer token of a project
// with a scope. Only the token's SHA-256 hash is stored (Hash).
type Session struct {
	ID      string
	Project string
	// KeyID is the API key that made the session: revoking the key ends
	// the session. Empty for sessions made before sessions recorded it.
	KeyID     string
	Scope     Scope
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Live reports whether the session may still be used at now.
func (s Session) Live(now time.Time) bool { return now.Before(s.ExpiresAt) }
