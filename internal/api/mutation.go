// Package api implements the endpoints of the public API: decode, validate,
// act, encode, one small function each. Mutations do not write directly:
// they return a store.Plan that pillar 1's runner (idempotency.Runner)
// commits in one transaction together with the idempotency record's
// completion.
package api

import (
	"context"
	"net/http"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/idempotency"
	"github.com/botix/public-api/internal/store"
)

// Outcome is the planned effect and the response of a mutation.
type Outcome struct {
	Status int
	Body   any
	Plan   store.Plan
}

// Op validates a mutating request and plans its writes. Returned
// *apierr.Error values with a 4xx status are the operation's own final
// answers (stored and replayed); any other error releases the key.
type Op func(ctx context.Context, r *httpapi.Request) (Outcome, error)

// Mutations serves mutating routes under pillar 1: the key, the
// fingerprint and the JSON rendering are HTTP's business and live here;
// capture, commit, replay and release are the idempotency.Runner's.
type Mutations struct {
	Runner *idempotency.Runner
}

// Handler returns the httpapi.Handler of op. The key is checked right
// after authentication, before the body is read.
func (m *Mutations) Handler(op Op) httpapi.Handler {
	return func(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
		key, err := idempotency.ParseKey(r.Header.Get(idempotency.Header))
		if err != nil {
			return nil, err
		}
		if err := httpapi.RequireJSON(r); err != nil {
			return nil, err
		}
		body, err := idempotency.Canonicalize(r.Body)
		if err != nil {
			return nil, err
		}
		req := idempotency.Request{
			Scope: r.Project, Key: key, Fingerprint: idempotency.Fingerprint(r.Method, r.Route, r.PathParams, body),
			RequestID: r.RequestID, Method: r.Method, Route: r.Route,
		}
		resp, err := m.Runner.Run(ctx, req, func(ctx context.Context) (idempotency.Outcome, error) {
			out, err := op(ctx, r)
			if err != nil {
				return idempotency.Outcome{}, err
			}
			resp, err := httpapi.JSON(out.Status, out.Body)
			if err != nil {
				return idempotency.Outcome{}, err
			}
			return idempotency.Outcome{Response: stored(resp), Effects: &out.Plan}, nil
		})
		if err != nil {
			return nil, err
		}
		h := make(http.Header, len(resp.Headers))
		for k, v := range resp.Headers {
			h.Set(k, v)
		}
		return &httpapi.Response{Status: resp.Status, Header: h, Body: resp.Body}, nil
	}
}

// FinalAnswer is the API's idempotency.Runner.Answer: an *apierr.Error
// with a 4xx status is the operation's final answer, stored and replayed
// in the error envelope (with the first request's request_id); anything
// else releases the key.
func FinalAnswer(requestID string, err error) (idempotency.Response, bool) {
	e, public := apierr.As(err)
	if !public || !idempotency.Final(httpapi.StatusOf(e.Code)) {
		return idempotency.Response{}, false
	}
	return stored(httpapi.ErrorResponse(err, requestID)), true
}

// stored is the part of a response that a record keeps: status, headers
// (but not X-Request-Id, which is each response's own) and body.
func stored(resp *httpapi.Response) idempotency.Response {
	h := map[string]string{}
	for k, v := range resp.Header {
		if k != "X-Request-Id" && len(v) > 0 {
			h[k] = v[0]
		}
	}
	return idempotency.Response{Status: resp.Status, Headers: h, Body: resp.Body}
}

func created(body any, plan store.Plan) (Outcome, error) {
	return Outcome{Status: http.StatusCreated, Body: body, Plan: plan}, nil
}

func accepted(body any, plan store.Plan) (Outcome, error) {
	return Outcome{Status: http.StatusAccepted, Body: body, Plan: plan}, nil
}
