// Package template reads template.yaml, the single declaration of the
// system's tables, queues, routes and functions. The local runtime derives
// everything it emulates from it, and tests check it against the code.
package template

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// Template is a parsed SAM template. Intrinsic functions appear in their
// JSON form: {"Ref": "X"}, {"Fn::GetAtt": ["X", "Arn"]}, {"Fn::Sub": ...}.
type Template struct {
	Parameters map[string]map[string]any
	Conditions map[string]any
	Globals    map[string]any
	Resources  map[string]Resource
	Outputs    map[string]map[string]any
}

// Resource is one entry of Resources.
type Resource struct {
	Type       string
	Properties map[string]any
	Metadata   map[string]any
}

// Load reads and parses a template file.
func Load(path string) (*Template, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

// Root returns the repository root: the nearest directory at or above the
// working directory that holds go.mod.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("template: no go.mod above the working directory")
		}
		dir = parent
	}
}

// LoadRepo loads template.yaml from the repository root.
func LoadRepo() (*Template, error) {
	root, err := Root()
	if err != nil {
		return nil, err
	}
	return Load(filepath.Join(root, "template.yaml"))
}

// Parse parses template YAML, turning CloudFormation short-form tags
// (!Ref, !GetAtt, !Sub, ...) into their long form.
func Parse(b []byte) (*Template, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, errors.New("template: empty document")
	}
	v, err := convert(doc.Content[0])
	if err != nil {
		return nil, err
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("template: top level is not a mapping")
	}
	t := &Template{Parameters: map[string]map[string]any{}, Resources: map[string]Resource{}, Outputs: map[string]map[string]any{}}
	t.Globals, _ = root["Globals"].(map[string]any)
	t.Conditions = asMap(root["Conditions"])
	for name, p := range asMap(root["Parameters"]) {
		t.Parameters[name] = asMap(p)
	}
	for name, o := range asMap(root["Outputs"]) {
		t.Outputs[name] = asMap(o)
	}
	for name, r := range asMap(root["Resources"]) {
		m := asMap(r)
		typ, _ := m["Type"].(string)
		if typ == "" {
			return nil, fmt.Errorf("template: resource %s has no Type", name)
		}
		t.Resources[name] = Resource{Type: typ, Properties: asMap(m["Properties"]), Metadata: asMap(m["Metadata"])}
	}
	return t, nil
}

// OfType returns the logical ids of resources of type typ, sorted.
func (t *Template) OfType(typ string) []string {
	var out []string
	for name, r := range t.Resources {
		if r.Type == typ {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

var fnTags = map[string]string{
	"!Ref": "Ref", "!Condition": "Condition",
	"!GetAtt": "Fn::GetAtt", "!Sub": "Fn::Sub", "!Join": "Fn::Join", "!If": "Fn::If",
	"!Equals": "Fn::Equals", "!Not": "Fn::Not", "!And": "Fn::And", "!Or": "Fn::Or",
	"!Select": "Fn::Select", "!Split": "Fn::Split", "!FindInMap": "Fn::FindInMap",
	"!Base64": "Fn::Base64", "!GetAZs": "Fn::GetAZs", "!ImportValue": "Fn::ImportValue",
	"!Cidr": "Fn::Cidr", "!ToJsonString": "Fn::ToJsonString", "!Length": "Fn::Length",
}

func convert(n *yaml.Node) (any, error) {
	if fn, ok := fnTags[n.Tag]; ok {
		inner := *n
		inner.Tag = ""
		switch n.Kind {
		case yaml.ScalarNode:
			inner.Tag = "!!str"
		case yaml.SequenceNode:
			inner.Tag = "!!seq"
		case yaml.MappingNode:
			inner.Tag = "!!map"
		}
		v, err := convert(&inner)
		if err != nil {
			return nil, err
		}
		if s, ok := v.(string); ok && fn == "Fn::GetAtt" {
			res, attr, _ := strings.Cut(s, ".")
			v = []any{res, attr}
		}
		return map[string]any{fn: v}, nil
	}
	switch n.Kind {
	case yaml.AliasNode:
		return convert(n.Alias)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := convert(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := convert(c)
			if err != nil {
				return nil, err
			}
			s[i] = v
		}
		return s, nil
	default:
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("template: line %d: %w", n.Line, err)
		}
		return v, nil
	}
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	if m == nil {
		return map[string]any{}
	}
	return m
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

// Kebab turns CreateContact into create-contact: a function's functions/
// directory is its logical id without "Function" in kebab case
// (infra/checks/templatecheck holds the repository to it).
func Kebab(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
