// Package apidoc renders the API's public documents: the OpenAPI document
// (sdk/openapi.yaml as JSON), the error-code reference (JSON and an HTML
// page) and the changelog (Atom), each with a content-hash ETag.
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
