// Package reference wires GetApiReferenceFunction, which serves the API's
// own documents and calls no AWS API: it links package awsfree and the
// documents, no AWS client (see package awsfree).
package reference

import (
	"context"

	"github.com/botix/public-api/internal/apidoc"
	"github.com/botix/public-api/internal/app/awsfree"
	"github.com/botix/public-api/internal/httpapi"
)

// GetApiReference serves the API's own documents, rendered once when the
// function starts: a document that cannot be rendered fails the function's
// init, not a request. The changelog dates the offset deprecation by this
// deployment's policy, as the offset answers do.
var GetApiReference = document((*apidoc.Reference).Serve)

// document builds the public routes of documents served by serve.
func document(serve func(*apidoc.Reference, context.Context, *httpapi.Request) (*httpapi.Response, error)) awsfree.Builder {
	return func(_ context.Context, env awsfree.Env, w awsfree.Wiring) (awsfree.HTTPHandler, error) {
		return awsfree.Build(env, w, func(c *awsfree.Core) awsfree.HTTPHandler {
			docs, err := apidoc.RenderReference(c.OffsetNotice())
			if err != nil {
				c.Vars.Bad("reference documents", err)
				return nil
			}
			set := &apidoc.Reference{Docs: docs}
			return c.Endpoint(func(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) { return serve(set, ctx, r) }, 0).Serve
		})
	}
}
