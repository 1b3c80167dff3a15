package dashboard

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/internal/ids"
)

// TestEventIDFieldIsTheAPIs: the deliveries filter's event id field takes
// exactly the ids the API's event_id parameter takes (ids.Pattern), with
// blanks around them: a pattern looser than the API's lets a typo through
// to a 400, a stricter one refuses a real id.
func TestEventIDFieldIsTheAPIs(t *testing.T) {
	m := regexp.MustCompile(`(?m)^const EVENT_ID = '(.+)';$`).FindStringSubmatch(scripts(t)["deliveries.js"])
	if m == nil {
		t.Fatal("no `const EVENT_ID = '...';` line in static/deliveries.js")
	}
	pattern := strings.ReplaceAll(m[1], `\\`, `\`) // a JavaScript string literal
	inner, before := strings.CutPrefix(pattern, `\s*`)
	inner, after := strings.CutSuffix(inner, `\s*`)
	if !before || !after {
		t.Fatalf("EVENT_ID %q does not allow blanks around the id", pattern)
	}
	if want := ids.Pattern(ids.Event); "^"+inner+"$" != want {
		t.Fatalf("EVENT_ID takes %q; the API takes %s", inner, want)
	}
	// An HTML pattern attribute matches the whole value.
	field := regexp.MustCompile(`^(?:` + pattern + `)$`)
	real := ids.New(ids.Event, time.Now())
	for value, want := range map[string]bool{
		real:                  true,
		"  " + real + "\t":    true,
		"evt_8" + real[5:]:    false,
		strings.ToLower(real): false,
		real[:len(real)-1]:    false,
		"dlv_" + real[4:]:     false,
		real + " " + real:     false,
		"evt_typo":            false,
	} {
		if got := field.MatchString(value); got != want {
			t.Errorf("the field takes %q: %v, want %v", value, got, want)
		}
	}
}
