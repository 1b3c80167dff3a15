package main

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestSchemaTypesMatchTheDocument is the fast check of the Go SDK's types
// (`cd sdk/go && go test ./internal/conformance/`, seconds, no runtime):
// each type of schemaTypes has exactly the JSON fields of its component
// schema's properties in sdk/openapi.yaml, as the schemas scenario of the
// conformance suite checks for every SDK. A field added to the document
// and not to the SDK (or the other way) fails here first.
func TestSchemaTypesMatchTheDocument(t *testing.T) {
	doc, err := os.ReadFile("../../../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	props := schemaProperties(string(doc))
	if len(props) < 10 {
		t.Fatalf("read %d schemas' properties from the document: the reader lost its way", len(props))
	}
	for name, v := range schemaTypes {
		t.Run(name, func(t *testing.T) {
			want, ok := props[name]
			if !ok {
				t.Fatalf("the document has no schema %s with properties", name)
			}
			got := jsonFields(reflect.TypeOf(v))
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%T has JSON fields %v; the schema %s has %v", v, got, name, want)
			}
		})
	}
}

// schemaProperties reads the property names of each schema under
// components/schemas of the document, in the two shapes it writes them:
// a block (one name per line, indented under properties:) or a flow
// mapping on the properties: line. The module takes no YAML library.
func schemaProperties(doc string) map[string][]string {
	out := map[string][]string{}
	lines := strings.Split(doc, "\n")
	start := slices.Index(lines, "  schemas:")
	schema := regexp.MustCompile(`^    ([A-Za-z0-9]+):\s*$`)
	key := regexp.MustCompile(`^        ([A-Za-z0-9_]+):`)
	name, inProps := "", false
	for _, l := range lines[start+1:] {
		if l != "" && !strings.HasPrefix(l, "    ") {
			break // the end of components/schemas
		}
		switch {
		case schema.MatchString(l):
			name, inProps = schema.FindStringSubmatch(l)[1], false
		case name != "" && strings.HasPrefix(l, "      properties: {"):
			out[name] = flowKeys(strings.TrimPrefix(l, "      properties: "))
		case name != "" && l == "      properties:":
			inProps, out[name] = true, []string{}
		case inProps && key.MatchString(l):
			out[name] = append(out[name], key.FindStringSubmatch(l)[1])
		case inProps && !strings.HasPrefix(l, "        "):
			inProps = false
		}
	}
	return out
}

// flowKeys are the top-level keys of a YAML flow mapping "{ a: {...}, b: 1 }".
func flowKeys(s string) []string {
	var keys []string
	depth, token := 0, ""
	for _, r := range s {
		switch r {
		case '{', '[':
			depth++
			if depth == 1 {
				token = ""
				continue
			}
		case '}', ']':
			depth--
		case ',':
			if depth == 1 {
				token = ""
				continue
			}
		case ':':
			if depth == 1 && token != "" {
				keys = append(keys, strings.TrimSpace(token))
				token = "\x00" // the value follows: no key until the next comma
				continue
			}
		}
		if depth == 1 && token != "\x00" {
			token += string(r)
		}
	}
	return keys
}
