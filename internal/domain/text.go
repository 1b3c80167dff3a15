package domain

import (
	"unicode"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/ids"
)

// ProblemControl is what a field with a control character is told.
const ProblemControl = "must not contain control characters"

// ProblemTime is what a field or parameter that is not an RFC 3339 time
// is told.
const ProblemTime = "must be an RFC 3339 time such as 2026-11-29T08:00:00Z"

// HasControl reports whether s holds a control character (C0, DEL, C1);
// multiline text may hold tabs, line feeds and carriage returns.
func HasControl(s string, multiline bool) bool {
	for _, r := range s {
		if unicode.IsControl(r) && !(multiline && (r == '\t' || r == '\n' || r == '\r')) {
			return true
		}
	}
	return false
}

// checkID adds a problem when a body field that holds an id is not one of
// prefix's ids (what names it for people, e.g. "a contact id"). A
// malformed id is the client's mistake (422), never a lookup.
func checkID(p apierr.Problems, field string, id *string, prefix, what string) {
	switch {
	case id == nil || *id == "":
		p.Add(field, "is required")
	default:
		if _, err := ids.Parse(prefix, *id); err != nil {
			p.Add(field, "must be "+what+" ("+prefix+"_...)")
		}
	}
}
