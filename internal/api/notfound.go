package api

import (
	"context"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/httpapi"
)

// NotFound answers the $default route: any method and path that no route
// of the API matches gets 404 NOT_FOUND in our envelope, not API Gateway's.
func NotFound(_ context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	return nil, apierr.New(apierr.NotFound, "no route matches %s %s", r.Method, r.Path)
}
