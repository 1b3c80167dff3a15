package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/botix/public-api/internal/apierr"
)

// RequireJSON checks that a request with a body declares a JSON media type.
func RequireJSON(r *Request) error {
	if len(bytes.TrimSpace(r.Body)) == 0 {
		return nil
	}
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return apierr.New(apierr.UnsupportedMediaType, "send the body as JSON with 'Content-Type: application/json' (got %q)", ct)
	}
	return nil
}

// checkQuery refuses a query that gives a parameter more than once (the
// API would have to pick one value, and a client that sent two meant
// something the API cannot know) or with an empty value (endpoint_id= must
// not quietly widen a list to every endpoint: leave a filter out to mean
// "all"). Names are checked in order, so the answer is the same each time.
func checkQuery(q url.Values) error {
	for _, name := range slices.Sorted(maps.Keys(q)) {
		switch vs := q[name]; {
		case len(vs) > 1:
			return apierr.Problems{name: "is given more than once; give it once"}.ParamErr()
		case len(vs) == 1 && vs[0] == "":
			return apierr.Problems{name: "is empty; give it a value, or leave it out"}.ParamErr()
		}
	}
	return nil
}

// CheckKnown refuses query parameters not named (none, for a route that
// takes none). The problem lists the parameters the endpoint takes: a
// client that misspelt one sees the right spelling, and the contract tests
// learn from it what a handler reads.
func CheckKnown(q url.Values, names []string) error {
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if !slices.Contains(names, name) {
			takes := "(it takes none)"
			if len(names) > 0 {
				takes = "(it takes: " + strings.Join(slices.Sorted(slices.Values(names)), ", ") + ")"
			}
			return apierr.Problems{name: "is not a parameter of this endpoint " + takes}.ParamErr()
		}
	}
	return nil
}

// Decode parses the JSON body into dst. Syntax errors are 400 INVALID_JSON;
// unknown fields, wrongly typed values and nulls are 422 VALIDATION_FAILED
// naming the field. An empty body decodes as {}.
func Decode(body []byte, dst any) error { return DecodeNullable(body, dst) }

// DecodeNullable is Decode for a body whose top-level fields nullable may
// be null (a PATCH's "remove this limit").
func DecodeNullable(body []byte, dst any, nullable ...string) error {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if !utf8.Valid(body) {
		return apierr.New(apierr.InvalidJSON, "the body is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apierr.New(apierr.InvalidJSON, "the body must hold exactly one JSON value")
	}
	if field := firstNull(body, nullable); field != "" {
		return apierr.Problems{field: "must not be null; leave the field out instead"}.Err()
	}
	return nil
}

// firstNull returns the path (items[3].price) of the first null member or
// element of a valid JSON document, or "", leaving out the paths allowed.
// Request schemas admit null only where they say (allowed), and decoding
// alone cannot tell a null from an absent field.
func firstNull(body []byte, allowed []string) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	var walk func(path string) string
	walk = func(path string) string {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		switch tok {
		case nil:
			if path == "" {
				return "body"
			}
			if slices.Contains(allowed, path) {
				return ""
			}
			return path
		case json.Delim('{'):
			for dec.More() {
				name, _ := dec.Token()
				field, _ := name.(string)
				if path != "" {
					field = path + "." + field
				}
				if p := walk(field); p != "" {
					return p
				}
			}
			dec.Token() // }
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if p := walk(fmt.Sprintf("%s[%d]", path, i)); p != "" {
					return p
				}
			}
			dec.Token() // ]
		}
		return ""
	}
	return walk("")
}

func decodeError(err error) error {
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return apierr.New(apierr.ValidationFailed, "the body must be a JSON object")
		}
		return apierr.Problems{field: "must be " + jsonKind(typeErr.Type.Kind().String())}.Err()
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return apierr.Problems{field: "is not a known field"}.Err()
	default:
		return apierr.New(apierr.InvalidJSON, "the body is not valid JSON")
	}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	case "bool":
		return "a boolean"
	default:
		return "a number"
	}
}
