package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
)

// MaxCaptureBody is the largest body the capture URL accepts; the first
// store.InspectorMaxBody bytes are kept.
const MaxCaptureBody = 1 << 20

// Inspectors serves the built-in webhook inspector: capture URLs under
// /inspect/{id} that store whatever is sent to them.
type Inspectors struct {
	Deps
}

// Create is POST /public/v1/inspectors: a capture URL on this API, valid
// for 24 h, keeping up to 100 requests.
func (i *Inspectors) Create(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	if err := httpapi.Decode(r.Body, &struct{}{}); err != nil {
		return Outcome{}, err
	}
	if r.BaseURL == "" {
		return Outcome{}, errors.New("api: the API's public URL is unknown (PUBLIC_API_URL, or the request context's API id)")
	}
	id := ids.NewInspector()
	in := store.Inspector{ID: id, URL: r.BaseURL + "/inspect/" + id}
	var plan store.Plan
	if err := i.Store.AddInspector(&plan, r.Project, &in, i.now()); err != nil {
		return Outcome{}, err
	}
	return created(in, plan)
}

// Capture is ANY /inspect/{id}, without auth: the request is stored
// (method, headers, the first 64 KB of the body, time) and answered 200.
func (i *Inspectors) Capture(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	headers := map[string]string{}
	for k, v := range r.Header {
		headers[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	body, truncated := r.Body, false
	if len(body) > store.InspectorMaxBody {
		body, truncated = body[:store.InspectorMaxBody], true
	}
	text := string(body)
	if !utf8.Valid(body) {
		text = fmt.Sprintf("(binary body, %d bytes)", len(r.Body))
	}
	req := store.CapturedRequest{Method: r.Method, Path: r.Path, Query: r.Query.Encode(), Headers: headers, Body: text, Truncated: truncated, SourceIP: r.Header.Get("X-Forwarded-For")}
	if err := i.Store.Capture(ctx, r.PathParams["id"], req); err != nil {
		return nil, err
	}
	return httpapi.JSON(http.StatusOK, map[string]bool{"received": true})
}

// Requests is GET /public/v1/inspectors/{id}/requests: what the inspector
// caught, newest first, for its project only.
func (i *Inspectors) Requests(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	req, err := i.Pager.Params(r).Page()
	if err != nil {
		return nil, err
	}
	insp, err := i.Store.GetInspector(ctx, r.Project, r.PathParams["id"])
	if err != nil {
		return nil, err
	}
	return listPage(ctx, i.Store, i.Pager, store.InspectorRequestsQuery(insp.ID), req)
}
