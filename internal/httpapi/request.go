// Package httpapi implements the common HTTP contract of every API function:
// request ids, the error envelope, authentication, body limits, JSON
// decoding and logging, on top of API Gateway HTTP API (payload 2.0) events.
package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/botix/public-api/internal/auth"
)

// Request is an API call as our handlers see it, decoded from the
// API Gateway event.
type Request struct {
	Method string
	// Route is the matched route template, e.g. "POST /public/v1/contacts".
	Route      string
	Path       string
	Header     http.Header
	Query      url.Values
	PathParams map[string]string
	Body       []byte
	// RequestID is this response's X-Request-Id ("req_<ULID>").
	RequestID string
	// Project is the authenticated project; empty on public routes.
	Project string
	// KeyID is the API key the request came with; empty for a session
	// and on public routes.
	KeyID string
	// Session is the dashboard session the request came with; nil for an
	// API key.
	Session  *auth.Session
	Received time.Time
	// BaseURL is the API's public scheme://host, from configuration (see
	// Endpoint.PublicURL) — never from what the client sent.
	BaseURL string
}

// Response is what a handler returns; the adapter adds the common headers.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	// Page is the paging mode of a list page ("cursor", "offset"; "" for
	// other responses), counted in the ListPages metric.
	Page string
}

// Handler serves one endpoint. A returned error is rendered in the error
// envelope: an *apierr.Error with its code, anything else as 500 INTERNAL.
type Handler func(ctx context.Context, r *Request) (*Response, error)

// JSON encodes v as the body of a response with the given status.
func JSON(status int, v any) (*Response, error) {
	body, err := Marshal(v)
	if err != nil {
		return nil, err
	}
	return &Response{Status: status, Header: http.Header{"Content-Type": []string{"application/json"}}, Body: body}, nil
}

// Marshal encodes v as compact JSON without HTML escaping ("<" stays "<"):
// API bodies are not embedded in HTML.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// ContentVersion is a short content hash of body (12 hex digits of its
// SHA-256): an asset's version in its URL and, quoted, its ETag.
func ContentVersion(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:6])
}

// Revalidated answers a static body with its validator: 304 without a body
// when the request's If-None-Match names etag, else 200 with the body.
func Revalidated(r *Request, contentType string, body []byte, etag, cacheControl string) *Response {
	h := http.Header{"Etag": {etag}, "Cache-Control": {cacheControl}}
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		return &Response{Status: http.StatusNotModified, Header: h}
	}
	h.Set("Content-Type", contentType)
	return &Response{Status: http.StatusOK, Header: h, Body: body}
}

// etagMatches reports whether an If-None-Match header names etag (weak
// comparison; "*" matches anything).
func etagMatches(ifNoneMatch, etag string) bool {
	if ifNoneMatch == "" {
		return false
	}
	for _, t := range strings.Split(ifNoneMatch, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}
