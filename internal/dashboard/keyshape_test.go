package dashboard

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/botix/public-api/internal/auth"
)

// TestFragmentKeyShapeIsTheAPIs: the dashboard takes a key from a "#key="
// link only when it has the API's key shape; session.js's KEY_SHAPE must accept
// exactly what auth.WellFormed accepts, or a real key is refused (or a
// malformed one stored).
func TestFragmentKeyShapeIsTheAPIs(t *testing.T) {
	src, err := os.ReadFile("static/session.js")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^export const KEY_SHAPE = /(.+)/;$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("no `export const KEY_SHAPE = /.../;` line in static/session.js")
	}
	shape := regexp.MustCompile(string(m[1])) // the pattern uses only syntax Go and JavaScript read alike
	cases := []struct{ name, key string }{
		{"a key the API issues", auth.NewKey()},
		{"16 characters after bx_", "bx_" + strings.Repeat("a", 16)},
		{"15 characters after bx_", "bx_" + strings.Repeat("a", 15)},
		{"128 characters after bx_", "bx_" + strings.Repeat("Z9", 64)},
		{"129 characters after bx_", "bx_" + strings.Repeat("a", 129)},
		{"underscores and dashes", "bx_live_-_-_-_-_-_-_-_-"},
		{"another prefix", "sk_live_aaaaaaaaaaaaaaaaaaaa"},
		{"a space inside", "bx_live_aaaaaaaa aaaaaaaaaaa"},
		{"percent-encoding", "bx_live_aaaaaaaaaaaaaaaa%41"},
		{"a second parameter", "bx_live_aaaaaaaaaaaaaaaa&x=1"},
		{"a trailing newline", "bx_live_aaaaaaaaaaaaaaaa\n"},
		{"empty", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, want := shape.MatchString(c.key), auth.WellFormed(c.key); got != want {
				t.Fatalf("KEY_SHAPE matches %q: %v, auth.WellFormed: %v", c.key, got, want)
			}
		})
	}
}
