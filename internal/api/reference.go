package api

import (
	"context"

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
	return httpapi.Revalidated(r, "application/json", doc.JSON, doc.ETag, "public, max-age=300"), nil
}
