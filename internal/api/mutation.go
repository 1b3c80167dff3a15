// Package api implements the endpoints of the public API: decode, validate,
// act, encode, one small function each. Mutations do not write directly:
// they return a store.Plan that the mutation runner commits in one
// DynamoDB transaction.
package api

import (
	"context"
	"net/http"
	"time"

	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/store"
)

// Outcome is the planned effect and the response of a mutation.
type Outcome struct {
	Status int
	Body   any
	Plan   store.Plan
}

// Op validates a mutating request and plans its writes. Returned
// *apierr.Error values are the operation's own answers (4xx).
type Op func(ctx context.Context, r *httpapi.Request) (Outcome, error)

// Mutations runs Ops: it commits each plan atomically and answers with
// the operation's response.
type Mutations struct {
	Store *store.Store
}

// Handler returns the httpapi.Handler of op.
func (m *Mutations) Handler(op Op) httpapi.Handler {
	return func(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
		if err := httpapi.RequireJSON(r); err != nil {
			return nil, err
		}
		out, err := op(ctx, r)
		if err != nil {
			return nil, err
		}
		if err := m.Store.Commit(ctx, out.Plan, nil); err != nil {
			return nil, err
		}
		return httpapi.JSON(out.Status, out.Body)
	}
}

// clock is embedded by handlers that mint ids and timestamps.
type clock struct {
	Now func() time.Time
}

func (c clock) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func created(body any, plan store.Plan) (Outcome, error) {
	return Outcome{Status: http.StatusCreated, Body: body, Plan: plan}, nil
}
