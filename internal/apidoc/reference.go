package apidoc

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/pagination"
)

// Reference serves the API's own public documents: its contract, the
// error-code reference and the changelog. They are static for a
// deployment, so one function serves them all, rendered when it starts
// (see RenderReference).
type Reference struct {
	// Docs maps each route to its document.
	Docs map[string]Served

	// served holds the OpenAPI document rendered for each base URL the
	// function was asked under (one per deployment: the base URL comes from
	// configuration, never from the client).
	served sync.Map
}

// Served is a rendered document with how it is answered.
type Served struct {
	Document
	ContentType string
	// Header is added to the answer (the HTML page's security headers).
	Header http.Header
}

// The routes of the documents, as template.yaml declares them.
const (
	RouteOpenAPI        = "GET " + OpenAPIPath
	RouteErrorCodes     = "GET " + ErrorCodesPath
	RouteErrorCodesPage = "GET " + ErrorCodesPagePath
	RouteChangelog      = "GET " + ChangelogPath
)

// RenderReference renders every document of the Reference routes; offset
// is the deployment's offset policy, whose deprecation the changelog
// announces. Links between the documents are relative to the API's base
// URL, so that they are the same on every request.
func RenderReference(offset pagination.Offset) (map[string]Served, error) {
	openapi, err := Load()
	if err != nil {
		return nil, err
	}
	codes, err := ErrorCodesJSON()
	if err != nil {
		return nil, err
	}
	page, err := ErrorCodesPage()
	if err != nil {
		return nil, err
	}
	feed, err := Feed(offset)
	if err != nil {
		return nil, err
	}
	return map[string]Served{
		RouteOpenAPI:        {openapi, "application/json", nil},
		RouteErrorCodes:     {codes, "application/json", nil},
		RouteErrorCodesPage: {page, "text/html; charset=utf-8", httpapi.PageSecurityHeaders},
		RouteChangelog:      {feed, "application/atom+xml", nil},
	}, nil
}

// forServer is the OpenAPI document whose servers list is base alone.
func (d *Reference) forServer(base string) (Served, error) {
	if v, ok := d.served.Load(base); ok {
		return v.(Served), nil
	}
	doc, err := ForServer(base)
	if err != nil {
		return Served{}, err
	}
	s := Served{doc, "application/json", nil}
	d.served.Store(base, s)
	return s, nil
}

// Serve answers GET /public/v1/openapi.json (sdk/openapi.yaml as JSON),
// GET /public/v1/error-codes (the error-code reference as JSON),
// GET /docs/error-codes (the same as an HTML page) and
// GET /public/v1/changelog.atom (the changelog, Atom 1.0): public,
// cacheable for five minutes and revalidated with their ETags.
func (d *Reference) Serve(_ context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	doc, ok := d.Docs[r.Route]
	if ok && r.Route == RouteOpenAPI && r.BaseURL != "" {
		var err error
		if doc, err = d.forServer(r.BaseURL); err != nil {
			return nil, err
		}
	}
	if !ok {
		// API Gateway routes only the template's routes here: a wiring bug.
		return nil, fmt.Errorf("apidoc: the reference function serves no route %q", r.Route)
	}
	resp := httpapi.Revalidated(r, doc.ContentType, doc.Body, doc.ETag, "public, max-age=300")
	for k, v := range doc.Header {
		resp.Header[k] = v
	}
	return resp, nil
}
