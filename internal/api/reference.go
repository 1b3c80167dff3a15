package api

import (
	"context"
	"net/http"

	"github.com/botix/public-api/internal/apidoc"
	"github.com/botix/public-api/internal/httpapi"
)

// Reference serves the API's own contract.
type Reference struct {
	Deps
}

// OpenAPI is GET /public/v1/openapi.json: sdk/openapi.yaml as JSON, public,
// cacheable for five minutes and revalidated with its ETag.
func (d *Reference) OpenAPI(_ context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	doc, err := apidoc.Load()
	if err != nil {
		return nil, err
	}
	h := http.Header{"Etag": {doc.ETag}, "Cache-Control": {"public, max-age=300"}}
	if httpapi.ETagMatches(r.Header.Get("If-None-Match"), doc.ETag) {
		return &httpapi.Response{Status: http.StatusNotModified, Header: h}, nil
	}
	h.Set("Content-Type", "application/json")
	return &httpapi.Response{Status: http.StatusOK, Header: h, Body: doc.JSON}, nil
}
