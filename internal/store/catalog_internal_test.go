package store

import (
	"encoding/json"
	"testing"
)

// unescapedJSON writes what Go escapes as the character itself, and reads
// back as what was written, escaped backslashes included.
func TestUnescapedJSON(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"HTML characters stand as they are", "<a&b>", `"<a&b>"`},
		{"line and paragraph separators stand as they are", "a\u2028b\u2029c", "\"a\u2028b\u2029c\""},
		{"quotes and backslashes stay escaped", `say "hi" \ bye`, `"say \"hi\" \\ bye"`},
		{"an escaped backslash before u2028 text is not an escape", `\u2028`, `"\\u2028"`},
		{"control characters stay escaped", "a\nb\x01", `"a\nb\u0001"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := unescapedJSON(tc.in)
			if err != nil || string(out) != tc.want {
				t.Fatalf("%s (%v), want %s", out, err, tc.want)
			}
			var back string
			if err := json.Unmarshal(out, &back); err != nil || back != tc.in {
				t.Fatalf("reads back as %q (%v), want %q", back, err, tc.in)
			}
		})
	}
}
