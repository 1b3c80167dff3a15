// Package api implements the endpoints of the public API: decode, validate,
// act, encode, one small function each. Mutations do not write directly:
// they return a store.Plan that the mutation runner commits in one
// DynamoDB transaction together with the idempotency record's completion.
package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

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

// Hooks let tests stop or fail a mutation between its steps, to prove that
// a crash at any point leaves exactly one effect. Production leaves them nil.
type Hooks struct {
	AfterCapture func(ctx context.Context) error
	BeforeCommit func(ctx context.Context) error
	AfterCommit  func(ctx context.Context) error
}

// Mutations runs Ops under the idempotency protocol (see package
// idempotency): capture the key, run, commit the plan and the stored
// response in one transaction, or release the key on failure.
type Mutations struct {
	Store *store.Store
	Log   *slog.Logger
	Hooks Hooks
	Now   func() time.Time
}

// Handler returns the httpapi.Handler of op.
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
		x := &execution{m: m, r: r, key: key, token: newToken(), fp: idempotency.Fingerprint(r.Method, r.Route, r.PathParams, body)}
		deadline, hasDeadline := ctx.Deadline()
		captured, existing, err := m.Store.CaptureKey(ctx, store.Capture{
			Project: r.Project, Key: key, Fingerprint: x.fp, LockToken: x.token, RequestID: r.RequestID,
			Method: r.Method, Route: r.Route, LeaseUntil: idempotency.LeaseUntil(deadline, hasDeadline, m.now()),
		})
		if err != nil {
			return nil, err
		}
		if !captured {
			return x.answer(existing)
		}
		return x.run(ctx, op)
	}
}

func (m *Mutations) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func (m *Mutations) log() *slog.Logger {
	if m.Log != nil {
		return m.Log
	}
	return slog.Default()
}

// execution is one request holding a captured key.
type execution struct {
	m     *Mutations
	r     *httpapi.Request
	key   string
	token string
	fp    string
}

// run executes op while holding the key. Whatever goes wrong before the
// commit releases the key; a panic releases it and propagates.
func (x *execution) run(ctx context.Context, op Op) (resp *httpapi.Response, err error) {
	committed := false
	defer func() {
		p := recover()
		if !committed && (p != nil || err != nil) {
			x.release(ctx)
		}
		if p != nil {
			panic(p)
		}
	}()
	if err := hook(ctx, x.m.Hooks.AfterCapture); err != nil {
		return nil, err
	}
	out, err := op(ctx, x.r)
	if err != nil {
		return x.finishWithError(ctx, err, &committed)
	}
	resp, err = httpapi.JSON(out.Status, out.Body)
	if err != nil {
		return nil, err
	}
	if len(resp.Body) > idempotency.MaxStoredResponse {
		return nil, fmt.Errorf("api: response of %s is %d bytes, over the %d bytes an idempotency record may store", x.r.Route, len(resp.Body), idempotency.MaxStoredResponse)
	}
	if err := hook(ctx, x.m.Hooks.BeforeCommit); err != nil {
		return nil, err
	}
	err = x.m.Store.Commit(ctx, out.Plan, x.m.Store.CompletionGuard(x.r.Project, x.key, x.token, x.r.RequestID, stored(resp)))
	var fenced *store.FencedError
	switch {
	case errors.As(err, &fenced):
		committed = true // not ours to release any more
		return x.fenced(fenced, resp)
	case err != nil:
		return x.finishWithError(ctx, err, &committed)
	}
	committed = true
	if err := hook(ctx, x.m.Hooks.AfterCommit); err != nil {
		return nil, err
	}
	return resp, nil
}

// finishWithError stores the operation's own 4xx answers as final and
// returns every other error for the caller to release the key.
func (x *execution) finishWithError(ctx context.Context, err error, committed *bool) (*httpapi.Response, error) {
	e, public := apierr.As(err)
	if !public || !idempotency.Final(httpapi.StatusOf(e.Code)) {
		return nil, err
	}
	resp := httpapi.ErrorResponse(err, x.r.RequestID)
	cerr := x.m.Store.CompleteKey(ctx, x.r.Project, x.key, x.token, x.r.RequestID, stored(resp))
	var fenced *store.FencedError
	switch {
	case errors.As(cerr, &fenced):
		*committed = true
		return x.fenced(fenced, resp)
	case cerr != nil:
		// The answer is still right; without a stored record the retry
		// (after release) computes it again.
		x.m.log().WarnContext(ctx, "idempotency: could not store a final answer", "request_id", x.r.RequestID, "error", cerr.Error())
		return nil, err
	}
	*committed = true
	return resp, nil
}

// fenced answers a request whose key was taken over while it ran: if the
// record is completed by our own commit (a lost response retried by the
// SDK) we answer ours; if another request completed it, we replay that
// answer; otherwise the other request is still running.
func (x *execution) fenced(f *store.FencedError, ours *httpapi.Response) (*httpapi.Response, error) {
	rec, err := store.DecodeIdempotencyRecord(f.Old)
	if err != nil {
		return nil, err
	}
	if rec.Status == idempotency.Completed && rec.LockToken == x.token {
		return ours, nil
	}
	return x.answer(rec)
}

// answer responds to a request that found the key held by a record.
func (x *execution) answer(rec idempotency.Record) (*httpapi.Response, error) {
	d := idempotency.Decide(rec, x.fp)
	if d != idempotency.Replay {
		return nil, d.Err()
	}
	h := http.Header{}
	for k, v := range rec.Response.Headers {
		h.Set(k, v)
	}
	h.Set("Idempotent-Replayed", "true")
	h.Set("Original-Request-Id", rec.RequestID)
	return &httpapi.Response{Status: rec.Response.Status, Header: h, Body: rec.Response.Body}, nil
}

func (x *execution) release(ctx context.Context) {
	// The request's context may be the reason we are here (deadline), so
	// the release gets a short one of its own.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := x.m.Store.ReleaseKey(rctx, x.r.Project, x.key, x.token); err != nil {
		x.m.log().WarnContext(ctx, "idempotency: release failed; the lease expiry frees the key", "request_id", x.r.RequestID, "error", err.Error())
	}
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

func hook(ctx context.Context, f func(context.Context) error) error {
	if f == nil {
		return nil
	}
	return f(ctx)
}

func newToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
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

func accepted(body any, plan store.Plan) (Outcome, error) {
	return Outcome{Status: http.StatusAccepted, Body: body, Plan: plan}, nil
}
