package template

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Function is an AWS::Serverless::Function with the template's Globals
// merged in, as SAM merges them.
type Function struct {
	LogicalID  string
	Properties map[string]any
}

// Functions returns every serverless function by logical id.
func (t *Template) Functions() map[string]Function {
	globals := asMap(t.Globals["Function"])
	out := map[string]Function{}
	for _, name := range t.OfType("AWS::Serverless::Function") {
		props := merge(globals, t.Resources[name].Properties)
		out[name] = Function{LogicalID: name, Properties: props}
	}
	return out
}

// merge overlays b on a: maps merge recursively, anything else replaces.
func merge(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if am, ok := out[k].(map[string]any); ok {
			if bm, ok := v.(map[string]any); ok {
				out[k] = merge(am, bm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// Timeout is the function's timeout (Lambda's default 3 s when unset).
func (f Function) Timeout() time.Duration {
	switch v := f.Properties["Timeout"].(type) {
	case int:
		return time.Duration(v) * time.Second
	case float64:
		return time.Duration(v * float64(time.Second))
	}
	return 3 * time.Second
}

// MemorySize is the function's memory in MB (Lambda's default 128 when
// unset).
func (f Function) MemorySize() int {
	switch v := f.Properties["MemorySize"].(type) {
	case int:
		return v
	case float64:
		return int(v)
	}
	return 128
}

// Architecture is the function's instruction set: "arm64" or "x86_64"
// (Lambda's default when unset).
func (f Function) Architecture() string {
	if a, ok := f.Properties["Architectures"].([]any); ok && len(a) == 1 {
		return asString(a[0])
	}
	return "x86_64"
}

// Environment returns the function's environment variables, unresolved.
func (f Function) Environment() map[string]any {
	return asMap(asMap(f.Properties["Environment"])["Variables"])
}

// Event is an event source of a function.
type Event struct {
	Name       string
	Type       string
	Properties map[string]any
}

// Events returns the function's event sources sorted by name.
func (f Function) Events() []Event {
	var out []Event
	for name, e := range asMap(f.Properties["Events"]) {
		m := asMap(e)
		out = append(out, Event{Name: name, Type: asString(m["Type"]), Properties: asMap(m["Properties"])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Route is an HTTP API route. The $default route has Key "$default" and
// empty Method and Path.
type Route struct {
	// Key is the route key as API Gateway reports it ("POST /public/v1/contacts").
	Key      string
	Method   string
	Path     string
	Function string
}

// Routes returns every HttpApi route of every function, sorted by key.
func (t *Template) Routes() []Route {
	var out []Route
	for name, f := range t.Functions() {
		for _, e := range f.Events() {
			if e.Type != "HttpApi" {
				continue
			}
			method := strings.ToUpper(asString(e.Properties["Method"]))
			path := asString(e.Properties["Path"])
			r := Route{Key: "$default", Function: name}
			if path != "" || method != "" {
				r = Route{Key: method + " " + path, Method: method, Path: path, Function: name}
			}
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// KeyElement is one attribute of a key schema.
type KeyElement struct {
	Name string
	// Type is HASH or RANGE.
	Type string
}

// Index is a global secondary index.
type Index struct {
	Name           string
	Key            []KeyElement
	ProjectionType string
	// NonKeyAttributes are the attributes an INCLUDE projection copies
	// besides the keys.
	NonKeyAttributes []string
}

// Table is an AWS::DynamoDB::Table.
type Table struct {
	LogicalID    string
	Attributes   map[string]string
	Key          []KeyElement
	Indexes      []Index
	TTLAttribute string
	// StreamView is the stream's view type, "" without a stream.
	StreamView string
}

// Tables returns every DynamoDB table by logical id.
func (t *Template) Tables() (map[string]Table, error) {
	out := map[string]Table{}
	for _, name := range t.OfType("AWS::DynamoDB::Table") {
		p := t.Resources[name].Properties
		tb := Table{LogicalID: name, Attributes: map[string]string{}, Key: keySchema(p["KeySchema"])}
		for _, a := range asSlice(p["AttributeDefinitions"]) {
			m := asMap(a)
			tb.Attributes[asString(m["AttributeName"])] = asString(m["AttributeType"])
		}
		for _, g := range asSlice(p["GlobalSecondaryIndexes"]) {
			m := asMap(g)
			projection := asMap(m["Projection"])
			ix := Index{Name: asString(m["IndexName"]), Key: keySchema(m["KeySchema"]), ProjectionType: asString(projection["ProjectionType"])}
			for _, a := range asSlice(projection["NonKeyAttributes"]) {
				ix.NonKeyAttributes = append(ix.NonKeyAttributes, asString(a))
			}
			tb.Indexes = append(tb.Indexes, ix)
		}
		if ttl := asMap(p["TimeToLiveSpecification"]); ttl["Enabled"] == true {
			tb.TTLAttribute = asString(ttl["AttributeName"])
		}
		tb.StreamView = asString(asMap(p["StreamSpecification"])["StreamViewType"])
		if len(tb.Key) == 0 {
			return nil, fmt.Errorf("template: table %s has no KeySchema", name)
		}
		out[name] = tb
	}
	return out, nil
}

func keySchema(v any) []KeyElement {
	var out []KeyElement
	for _, k := range asSlice(v) {
		m := asMap(k)
		out = append(out, KeyElement{Name: asString(m["AttributeName"]), Type: asString(m["KeyType"])})
	}
	return out
}
