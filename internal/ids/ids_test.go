package ids

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestNewIsMonotonicAndParses(t *testing.T) {
	now := time.Date(2026, 11, 29, 8, 0, 0, 123e6, time.UTC)
	prev := ""
	for i := 0; i < 1000; i++ {
		id := New(Contact, now)
		if id <= prev {
			t.Fatalf("id %s not greater than %s", id, prev)
		}
		prev = id
		u, err := Parse(Contact, id)
		if err != nil {
			t.Fatalf("parse %s: %v", id, err)
		}
		if got := Time(u); !got.Equal(now) {
			t.Fatalf("time = %v, want %v", got, now)
		}
	}
}

func TestParseRejects(t *testing.T) {
	good := New(Contact, time.Now())
	for name, id := range map[string]string{
		"empty":        "",
		"other prefix": "msg_" + good[3:],
		"no prefix":    good[3:],
		"short":        good[:len(good)-1],
		"bad char":     good[:len(good)-1] + "U",
		"overflow":     "ct_8ZZZZZZZZZZZZZZZZZZZZZZZZZ",
		"lower case":   "ct_" + strings.ToLower(good[3:]),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse(Contact, id); err == nil {
				t.Fatalf("Parse(%q) accepted", id)
			}
		})
	}
}

func TestBoundsEncloseIDsOfTheirMillisecond(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)
	u := NewULID(at).String()
	if !(LowerBound(at) <= u && u <= UpperBound(at)) {
		t.Fatalf("%s not within [%s, %s]", u, LowerBound(at), UpperBound(at))
	}
	if UpperBound(at) >= LowerBound(at.Add(time.Millisecond)) {
		t.Fatal("bounds of adjacent milliseconds overlap")
	}
	if got := Timestamp(at); got != "2026-01-02T03:04:05.006Z" {
		t.Fatalf("Timestamp = %s", got)
	}
}

func TestInspectorIDs(t *testing.T) {
	id := NewInspector()
	if !ValidInspector(id) || len(id) != 37 {
		t.Fatalf("new inspector id %q", id)
	}
	for _, bad := range []string{"", "insp_", "insp_nope", "insp_" + strings.Repeat("a", 31), "insp_" + strings.Repeat("a", 33),
		"insp_" + strings.Repeat("A", 32), "insp_" + strings.Repeat("1", 32), "ct_" + strings.Repeat("a", 34), "insp_" + strings.Repeat("a", 2043)} {
		if ValidInspector(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestPatternIsWhatParseTakes: the pattern the document states and Parse
// accept the same strings.
func TestPatternIsWhatParseTakes(t *testing.T) {
	good := New(Contact, time.Now())
	re := regexp.MustCompile(Pattern(Contact))
	for _, id := range []string{
		good, "ct_00000000000000000000000000", "ct_7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "ct_8ZZZZZZZZZZZZZZZZZZZZZZZZZ",
		"ct_" + strings.ToLower(good[3:]), good + "0", good[:len(good)-1], good[:len(good)-1] + "I", good[:len(good)-1] + "L",
		good[:len(good)-1] + "O", good[:len(good)-1] + "U", "CT_" + good[3:], "ct-" + good[3:], " " + good, good + "\n",
	} {
		_, err := Parse(Contact, id)
		if re.MatchString(id) != (err == nil) {
			t.Errorf("%q: pattern match %v, Parse error %v", id, re.MatchString(id), err)
		}
	}
}
