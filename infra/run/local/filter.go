package local

import (
	"encoding/json"
	"fmt"
	"strings"
)

// filterSet is an event source mapping's FilterCriteria: an event passes
// when it matches any of the patterns (or there are none).
type filterSet []map[string]any

func parseFilters(criteria map[string]any) (filterSet, error) {
	var out filterSet
	filters, _ := criteria["Filters"].([]any)
	for _, f := range filters {
		m, _ := f.(map[string]any)
		raw, _ := m["Pattern"].(string)
		var p map[string]any
		if err := json.Unmarshal([]byte(raw), &p); err != nil {
			return nil, fmt.Errorf("local: filter pattern %q: %w", raw, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// match reports whether the JSON form of an event matches the set.
func (fs filterSet) match(event any) bool {
	if len(fs) == 0 {
		return true
	}
	b, err := json.Marshal(event)
	if err != nil {
		return false
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return false
	}
	for _, p := range fs {
		if matchObject(p, doc) {
			return true
		}
	}
	return false
}

// matchObject implements the subset of Lambda event filtering the template
// uses: nested objects, lists of allowed values, and the prefix,
// anything-but and exists operators.
func matchObject(pattern, doc map[string]any) bool {
	for k, want := range pattern {
		got, present := doc[k]
		switch w := want.(type) {
		case map[string]any:
			sub, ok := got.(map[string]any)
			if !ok || !matchObject(w, sub) {
				return false
			}
		case []any:
			if !matchAny(w, got, present) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func matchAny(allowed []any, got any, present bool) bool {
	for _, a := range allowed {
		switch op := a.(type) {
		case map[string]any:
			if matchOperator(op, got, present) {
				return true
			}
		default:
			if present && fmt.Sprint(op) == fmt.Sprint(got) {
				return true
			}
		}
	}
	return false
}

func matchOperator(op map[string]any, got any, present bool) bool {
	if p, ok := op["prefix"].(string); ok {
		s, isStr := got.(string)
		return present && isStr && strings.HasPrefix(s, p)
	}
	if e, ok := op["exists"].(bool); ok {
		return e == present
	}
	if not, ok := op["anything-but"].([]any); ok {
		return present && !matchAny(not, got, present)
	}
	return false
}
