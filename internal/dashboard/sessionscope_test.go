package dashboard

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/internal/auth"
	"github.com/botix/public-api/internal/ids"
)

// TestSessionShapeIsTheAPIs: session.js takes a dashboard session's token
// exactly when it has internal/auth's shape.
func TestSessionShapeIsTheAPIs(t *testing.T) {
	m := regexp.MustCompile(`(?m)^export const SESSION_SHAPE = /(.+)/;$`).FindStringSubmatch(scripts(t)["session.js"])
	if m == nil {
		t.Fatal("no `export const SESSION_SHAPE = /.../;` line in static/session.js")
	}
	if m[1] != auth.SessionTokenPattern {
		t.Fatalf("SESSION_SHAPE is /%s/; auth.SessionTokenPattern is %s", m[1], auth.SessionTokenPattern)
	}
}

// TestGrantsAreTheAPIs: the buttons session.js leaves out for each scope
// follow auth's Scope.Grants: every scope reads; "retry" is the only other
// grant a session can hold.
func TestGrantsAreTheAPIs(t *testing.T) {
	m := regexp.MustCompile(`(?m)^export const GRANTS = (\{.+\});$`).FindStringSubmatch(scripts(t)["session.js"])
	if m == nil {
		t.Fatal("no `export const GRANTS = {...};` line in static/session.js")
	}
	var page map[string][]string
	if err := json.Unmarshal([]byte(regexp.MustCompile(`(\w+):`).ReplaceAllString(strings.ReplaceAll(m[1], `'`, `"`), `"$1":`)), &page); err != nil {
		t.Fatalf("GRANTS %s: %v", m[1], err)
	}
	if len(page) != len(auth.Scopes) {
		t.Errorf("GRANTS names %d scopes; auth has %d", len(page), len(auth.Scopes))
	}
	for _, s := range auth.Scopes {
		var want []string
		for _, g := range s.Grants() {
			if g != auth.GrantRead {
				want = append(want, string(g))
			}
		}
		if got, ok := page[string(s)]; !ok || !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Errorf("GRANTS[%s] = %v; auth grants %v besides reading", s, got, want)
		}
	}
}

// TestSearchIDsAreTheAPIs: the header's search box knows an id by
// ids.Pattern's ULID part.
func TestSearchIDsAreTheAPIs(t *testing.T) {
	m := regexp.MustCompile(`(?m)^export const ULID = '(.+)';$`).FindStringSubmatch(scripts(t)["search.js"])
	if m == nil {
		t.Fatal("no `export const ULID = '...';` line in static/search.js")
	}
	for _, prefix := range []string{ids.Event, ids.Delivery, ids.Request} {
		if want := ids.Pattern(prefix); "^"+prefix+"_"+m[1]+"$" != want {
			t.Errorf("search.js takes %s_%s; the API takes %s", prefix, m[1], want)
		}
		if !regexp.MustCompile("^" + prefix + "_" + m[1] + "$").MatchString(ids.New(prefix, time.Now())) {
			t.Errorf("a real %s id is refused", prefix)
		}
	}
}
