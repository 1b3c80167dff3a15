// Package sdk holds what integrators build on: the API's OpenAPI document
// (openapi.yaml, embedded here so that the API serves the same bytes the
// repository holds), the Go client (sdk/go/botix, a module of its own) and the webhook receiver
// kit (sdk/go/webhook).
package sdk

import _ "embed"

// OpenAPI is openapi.yaml: the contract of the public API and its webhooks.
//
//go:embed openapi.yaml
var OpenAPI []byte
