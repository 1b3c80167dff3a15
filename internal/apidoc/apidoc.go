// Package apidoc renders the API's public documents: the OpenAPI document
// (sdk/openapi.yaml as JSON), the error-code reference (JSON and an HTML
// page) and the changelog (Atom), each with a content-hash ETag, and
// serves them (Reference).
package apidoc

import (
	"encoding/json"
	"fmt"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/botix/public-api/sdk"
)

// Document is a rendered document with its ETag.
type Document struct {
	Body []byte
	ETag string
}

var (
	once sync.Once
	doc  Document
	err  error
)

// Load converts the embedded YAML document to JSON (once).
func Load() (Document, error) {
	once.Do(func() { doc, err = convert(sdk.OpenAPI) })
	return doc, err
}

func convert(src []byte) (Document, error) {
	var v any
	if err := yaml.Unmarshal(src, &v); err != nil {
		return Document{}, fmt.Errorf("apidoc: openapi.yaml: %w", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return Document{}, fmt.Errorf("apidoc: openapi.yaml as JSON: %w", err)
	}
	return document(b), nil
}

// ForServer is the OpenAPI document as one deployment serves it: its servers
// list is that deployment's base URL alone, so that a client or mock
// generated from the served document talks to the stack that served it.
func ForServer(base string) (Document, error) {
	d, err := Load()
	if err != nil {
		return Document{}, err
	}
	var v map[string]any
	if err := json.Unmarshal(d.Body, &v); err != nil {
		return Document{}, fmt.Errorf("apidoc: openapi.json: %w", err)
	}
	v["servers"] = []any{map[string]any{"url": base, "description": "this deployment"}}
	b, err := json.Marshal(v)
	if err != nil {
		return Document{}, fmt.Errorf("apidoc: openapi.json for %s: %w", base, err)
	}
	return document(b), nil
}
