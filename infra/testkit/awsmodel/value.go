package awsmodel

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// walker checks decoded JSON values (json.Decoder with UseNumber) against
// a model's shapes, collecting problems by member path.
type walker struct {
	m        *Model
	problems []problem
}

// problem is a violation before it is told its service, operation and
// direction.
type problem struct{ path, what string }

func (w *walker) add(path, format string, args ...any) {
	w.problems = append(w.problems, problem{path, fmt.Sprintf(format, args...)})
}

// rawPayload stands for a payload the model says nothing about (Lambda
// Invoke's): present, and not checked.
type rawPayload struct{}

// value checks v, found at path, against the shape ref names.
func (w *walker) value(path string, ref *member, v any) {
	if _, ok := v.(rawPayload); ok {
		return
	}
	s := w.m.shapes[ref.Shape]
	switch s.Type {
	case "structure":
		obj, ok := v.(map[string]any)
		if !ok {
			w.add(path, "want an object (%s), got %s", ref.Shape, kind(v))
			return
		}
		w.structure(path, ref.Shape, obj, nil)
	case "list":
		arr, ok := v.([]any)
		if !ok {
			w.add(path, "want a list (%s), got %s", ref.Shape, kind(v))
			return
		}
		w.size(path, s, len(arr))
		for i, e := range arr {
			w.value(fmt.Sprintf("%s[%d]", path, i), s.Member, e)
		}
	case "map":
		obj, ok := v.(map[string]any)
		if !ok {
			w.add(path, "want a map (%s), got %s", ref.Shape, kind(v))
			return
		}
		w.size(path, s, len(obj))
		for _, k := range sortedKeys(obj) {
			p := fmt.Sprintf("%s[%q]", path, k)
			w.value(p+" (key)", s.Key, k)
			w.value(p, s.Value, obj[k])
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			w.add(path, "want a string, got %s", kind(v))
			return
		}
		w.str(path, s, str)
	case "integer", "long":
		n, ok := v.(json.Number)
		if !ok {
			w.add(path, "want an integer, got %s", kind(v))
			return
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil || (s.Type == "integer" && (i < math.MinInt32 || i > math.MaxInt32)) {
			w.add(path, "want a%s %s, got %s", map[bool]string{true: "n"}[s.Type == "integer"], s.Type, n)
			return
		}
		w.rng(path, s, float64(i), string(n))
	case "float", "double":
		switch n := v.(type) {
		case json.Number:
			f, err := n.Float64()
			if err != nil {
				w.add(path, "want a number, got %s", n)
				return
			}
			w.rng(path, s, f, string(n))
		case string:
			// The JSON protocols send the non-finite values as strings.
			if n != "NaN" && n != "Infinity" && n != "-Infinity" {
				w.add(path, "want a number, got the string %q", n)
			}
		default:
			w.add(path, "want a number, got %s", kind(v))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			w.add(path, "want a boolean, got %s", kind(v))
		}
	case "blob":
		str, ok := v.(string)
		if !ok {
			w.add(path, "want a base64 string (blob), got %s", kind(v))
			return
		}
		b, err := base64.StdEncoding.DecodeString(str)
		if err != nil {
			w.add(path, "not base64 (blob): %v", err)
			return
		}
		w.length(path, s, len(b), "length")
	case "timestamp":
		w.timestamp(path, s, ref, v, "unixTimestamp")
	default:
		w.add(path, "shape %s of type %s cannot be checked", ref.Shape, s.Type)
	}
}

// structure checks an object against a structure shape. Members with a
// location (URI, query string, headers, status) are taken from located
// instead of obj; a member obj has that the shape has not is a problem.
func (w *walker) structure(path, name string, obj map[string]any, located map[string]any) {
	s := w.m.shapes[name]
	inBody := map[string]bool{}
	for mname, ref := range s.Members {
		v, present := located[mname]
		if !present && ref.Location == "" {
			key := mname
			if ref.LocationName != "" {
				key = ref.LocationName
			}
			inBody[key] = true
			v, present = obj[key]
		}
		p := join(path, mname)
		if !present || v == nil {
			if s.required[mname] {
				w.add(p, "required member missing")
			}
			continue
		}
		w.value(p, ref, v)
	}
	for _, k := range sortedKeys(obj) {
		if !inBody[k] {
			w.add(join(path, k), "not a member of %s", name)
		}
	}
}

// size checks a list's or map's number of entries.
func (w *walker) size(path string, s *shape, n int) { w.length(path, s, n, "size") }

func (w *walker) length(path string, s *shape, n int, what string) {
	if s.Min != nil && float64(n) < *s.Min {
		w.add(path, "%s %d < min %s", what, n, num(*s.Min))
	}
	if s.Max != nil && float64(n) > *s.Max {
		w.add(path, "%s %d > max %s", what, n, num(*s.Max))
	}
}

func (w *walker) rng(path string, s *shape, f float64, text string) {
	if s.Min != nil && f < *s.Min {
		w.add(path, "value %s < min %s", text, num(*s.Min))
	}
	if s.Max != nil && f > *s.Max {
		w.add(path, "value %s > max %s", text, num(*s.Max))
	}
}

// str checks a string's length (in characters, as AWS counts them), enum
// and pattern. A Smithy pattern is not anchored: it must match somewhere.
func (w *walker) str(path string, s *shape, v string) {
	w.length(path, s, utf8.RuneCountInString(v), "length")
	if s.enum != nil && !s.enum[v] {
		w.add(path, "%q is not one of %s", clip(v), clipList(s.Enum))
	}
	if s.reErr != nil {
		w.add(path, "pattern %s cannot be checked here (%v)", s.Pattern, s.reErr)
	}
	if s.re != nil && !s.re.MatchString(v) {
		w.add(path, "%q does not match pattern %s", clip(v), s.Pattern)
	}
}

// timestamp checks a timestamp in the format its member, its shape or
// its location says (def: the location's default).
func (w *walker) timestamp(path string, s *shape, ref *member, v any, def string) {
	format := def
	if s.TimestampFormat != "" {
		format = s.TimestampFormat
	}
	if ref.TimestampFormat != "" {
		format = ref.TimestampFormat
	}
	switch format {
	case "unixTimestamp":
		n, ok := v.(json.Number)
		if !ok {
			w.add(path, "want a timestamp in epoch seconds (a number), got %s", kind(v))
			return
		}
		if _, err := n.Float64(); err != nil {
			w.add(path, "want a timestamp in epoch seconds, got %s", n)
		}
	case "iso8601":
		str, ok := v.(string)
		if !ok {
			w.add(path, "want an ISO 8601 timestamp, got %s", kind(v))
			return
		}
		if _, err := time.Parse(time.RFC3339Nano, str); err != nil {
			w.add(path, "want an ISO 8601 timestamp, got %q", clip(str))
		}
	case "rfc822":
		str, ok := v.(string)
		if !ok {
			w.add(path, "want an HTTP date, got %s", kind(v))
			return
		}
		if _, err := http.ParseTime(str); err != nil {
			w.add(path, "want an HTTP date, got %q", clip(str))
		}
	default:
		w.add(path, "timestamp format %q cannot be checked", format)
	}
}

// text turns a URI label's, query parameter's or header's text into the
// value the member's shape has, so that value can check it; the problem
// is set when the text is not of the shape's type.
func (w *walker) text(path string, ref *member, texts []string) (any, bool) {
	s := w.m.shapes[ref.Shape]
	if s.Type == "list" {
		var out []any
		for _, t := range texts {
			if ref.Location == "header" {
				// A header list is comma separated.
				for _, part := range strings.Split(t, ",") {
					out = append(out, w.scalar(path, s.Member, strings.TrimSpace(part)))
				}
				continue
			}
			out = append(out, w.scalar(path, s.Member, t))
		}
		return out, true
	}
	if len(texts) > 1 {
		w.add(path, "given %d times", len(texts))
	}
	if ref.Location != "" && s.Type == "timestamp" {
		def := "iso8601"
		if ref.Location == "header" {
			def = "rfc822"
		}
		w.timestamp(path, s, ref, texts[0], def)
		return nil, false
	}
	return w.scalar(path, ref, texts[0]), true
}

// scalar converts one text to a JSON-like value of ref's shape.
func (w *walker) scalar(path string, ref *member, t string) any {
	switch w.m.shapes[ref.Shape].Type {
	case "integer", "long", "float", "double":
		return json.Number(t) // value parses it and says what is wrong
	case "boolean":
		switch t {
		case "true":
			return true
		case "false":
			return false
		}
		return t
	default:
		return t
	}
}

func join(path, name string) string {
	if path == "" || name == "" {
		return path + name
	}
	return path + "." + name
}

func kind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return fmt.Sprintf("the string %q", clip(v))
	case json.Number:
		return "the number " + string(v)
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

func clipList(vs []string) string {
	if len(vs) > 12 {
		return "[" + strings.Join(vs[:12], " ") + fmt.Sprintf(" ... (%d in all)]", len(vs))
	}
	return "[" + strings.Join(vs, " ") + "]"
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
