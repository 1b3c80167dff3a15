// Package ids mints and parses the public identifiers of the API.
//
// Every identifier is a type prefix and a ULID ("ct_01JD..."). The ULID's
// millisecond timestamp IS the resource's created_at, so ordering by id is
// ordering by (created_at, id): one sort key serves cursor pagination, time
// range filters and lookups by id, with no secondary index.
package ids

import (
	"crypto/rand"
	"encoding/base32"
	"errors"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// Prefixes of the public identifiers, one per resource type.
const (
	Contact         = "ct"
	Message         = "msg"
	Import          = "imp"
	Run             = "run"
	Event           = "evt"
	Request         = "req"
	Project         = "prj"
	WebhookEndpoint = "we"
	Delivery        = "dlv"
	Inspector       = "insp"
	APIKey          = "key"
	Recovery        = "rcv"
	// DashboardSession ids name a session (for its revocation); the
	// session's bearer token is a secret of its own (auth.SessionPrefix).
	DashboardSession = "dss"
)

// ErrMalformed reports an identifier that does not have the expected prefix
// or does not carry a valid ULID.
var ErrMalformed = errors.New("ids: malformed identifier")

var (
	mu      sync.Mutex
	entropy = ulid.Monotonic(rand.Reader, 0)
)

// NewULID returns a ULID for time t. Within one process ULIDs minted in the
// same millisecond one after another are strictly increasing, so ids never
// tie. A ULID minted for another millisecond in between draws fresh
// entropy: the first millisecond's later ULIDs are then ordered among
// themselves, not after its earlier ones.
func NewULID(t time.Time) ulid.ULID {
	mu.Lock()
	defer mu.Unlock()
	return ulid.MustNew(ulid.Timestamp(t), entropy)
}

// New returns "<prefix>_<ULID>" for time t.
func New(prefix string, t time.Time) string {
	return prefix + "_" + NewULID(t).String()
}

// ulidText is the text of a ULID as the API writes it: 26 upper-case
// Crockford base32 characters, the first at most 7 (128 bits). Ids are
// compared as text (they are sort keys), so the lower-case spelling that
// ULID parsers also read is refused rather than looked up and not found.
const ulidText = `[0-7][0-9A-HJKMNP-TV-Z]{25}`

var ulidShape = regexp.MustCompile(`^` + ulidText + `$`)

// Pattern is the regular expression of the ids with prefix, as the OpenAPI
// document states it (a test compares every id pattern of the document
// with it).
func Pattern(prefix string) string { return `^` + prefix + `_` + ulidText + `$` }

// Parse checks that id is "<prefix>_<ULID>" (Pattern) and returns the ULID
// part.
func Parse(prefix, id string) (ulid.ULID, error) {
	rest, ok := strings.CutPrefix(id, prefix+"_")
	if !ok || !ulidShape.MatchString(rest) {
		return ulid.ULID{}, ErrMalformed
	}
	u, err := ulid.ParseStrict(rest)
	if err != nil {
		return ulid.ULID{}, ErrMalformed
	}
	return u, nil
}

// inspectorEncoding spells inspector ids: lowercase base32, no padding.
var inspectorEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// inspectorIDLength is the length of an inspector id: the prefix and 160
// random bits (32 base32 characters).
const inspectorIDLength = len(Inspector) + 1 + 32

// NewInspector returns an inspector id. Inspector ids are capabilities (a
// capture URL needs no key), so they are unguessable, not ULIDs: 160
// random bits.
func NewInspector() string {
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	return Inspector + "_" + strings.ToLower(inspectorEncoding.EncodeToString(b))
}

// InspectorPattern is the regular expression of inspector ids.
const InspectorPattern = `^` + Inspector + `_[a-z2-7]{32}$`

// ValidInspector reports whether id has the shape of an inspector id.
func ValidInspector(id string) bool {
	rest, ok := strings.CutPrefix(id, Inspector+"_")
	if !ok || len(id) != inspectorIDLength {
		return false
	}
	_, err := inspectorEncoding.DecodeString(strings.ToUpper(rest))
	return err == nil && rest == strings.ToLower(rest)
}

// Time returns the creation time carried by a ULID, in UTC.
func Time(u ulid.ULID) time.Time {
	return ulid.Time(u.Time()).UTC()
}

// Timestamp formats t the way every created_at of the API is formatted:
// RFC 3339 in UTC with milliseconds.
func Timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// LowerBound returns the smallest ULID string whose time is >= t; with
// UpperBound it turns a time range into a sort key range.
func LowerBound(t time.Time) string {
	var u ulid.ULID
	_ = u.SetTime(ulid.Timestamp(t))
	return u.String()
}

// UpperBound returns the largest ULID string whose time is <= t (to the ms).
func UpperBound(t time.Time) string {
	u := ulid.ULID{0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	_ = u.SetTime(ulid.Timestamp(t))
	return u.String()
}
