package idempotency

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/botix/public-api/internal/clock"
	"github.com/botix/public-api/internal/metrics"
)

// Outcome is what an operation did: the response to store and replay, and
// the writes to commit with it.
type Outcome struct {
	Response Response
	Effects  Effects
}

// Operation is the work done under a captured key. It plans its writes in
// its Outcome instead of performing them. An error either is one of the
// operation's final answers (see Runner.Answer) or releases the key.
type Operation func(ctx context.Context) (Outcome, error)

// Request identifies one execution of an operation.
type Request struct {
	Scope       string
	Key         string
	Fingerprint string
	RequestID   string
	Method      string
	Route       string
}

// Hooks let tests stop or fail an execution between its steps, to prove
// that a crash at any point leaves exactly one effect. Production leaves
// them nil.
type Hooks struct {
	AfterCapture func(ctx context.Context) error
	BeforeCommit func(ctx context.Context) error
	AfterCommit  func(ctx context.Context) error
}

// Replay headers added to a stored response when it is answered again.
const (
	HeaderReplayed          = "Idempotent-Replayed"
	HeaderOriginalRequestID = "Original-Request-Id"
)

// Runner runs operations under the protocol: capture the key, run, commit
// the effects together with the stored response, or release the key.
type Runner struct {
	Store Store
	// Answer renders an error of an operation as a final answer to store
	// and replay; false means the error is not final and releases the key.
	// Nil treats every error as not final.
	Answer func(requestID string, err error) (Response, bool)
	Log    *slog.Logger
	Hooks  Hooks
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Run executes op once per key: the first request runs it, a repeat gets
// the stored response with HeaderReplayed, a request with another
// fingerprint gets IDEMPOTENCY_KEY_REUSE_CONFLICT and one that arrives
// while the first runs gets IDEMPOTENCY_KEY_IN_PROGRESS. The lease of a
// capture ends with ctx's deadline.
func (r *Runner) Run(ctx context.Context, req Request, op Operation) (Response, error) {
	now := r.now()
	deadline, hasDeadline := ctx.Deadline()
	x := &execution{r: r, req: req, lock: Lock{Scope: req.Scope, Key: req.Key, Token: rand.Text()}}
	held, err := r.Store.Capture(ctx, Capture{
		Lock: x.lock, Fingerprint: req.Fingerprint, RequestID: req.RequestID, Method: req.Method, Route: req.Route,
		Now: now, LeaseUntil: LeaseUntil(deadline, hasDeadline, now), ExpiresAt: now.Add(TTL),
	})
	if err != nil {
		return Response{}, err
	}
	if held != nil {
		return x.answer(ctx, held)
	}
	metrics.Put(ctx, r.Log, metrics.IdempotentRequests, 1, "captured")
	return x.run(ctx, op)
}

func (r *Runner) now() time.Time {
	return clock.Or(r.Now)()
}

func (r *Runner) log() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.Default()
}

// execution is one request holding a captured key.
type execution struct {
	r    *Runner
	req  Request
	lock Lock
}

// run executes op while holding the key. Until the record is settled
// (completed, or found fenced), whatever goes wrong releases the key; a
// panic releases it and propagates.
func (x *execution) run(ctx context.Context, op Operation) (resp Response, err error) {
	settled := false
	defer func() {
		p := recover()
		if !settled && (p != nil || err != nil) {
			x.release(ctx)
		}
		if p != nil {
			panic(p)
		}
	}()
	if err := hook(ctx, x.r.Hooks.AfterCapture); err != nil {
		return Response{}, err
	}
	out, err := op(ctx)
	if err != nil {
		return x.final(ctx, err, &settled)
	}
	if len(out.Response.Body) > MaxStoredResponse {
		return Response{}, fmt.Errorf("idempotency: the response of %s is %d bytes, over the %d a record may store", x.req.Route, len(out.Response.Body), MaxStoredResponse)
	}
	if err := hook(ctx, x.r.Hooks.BeforeCommit); err != nil {
		return Response{}, err
	}
	if out.Effects == nil || out.Effects.Empty() {
		return x.complete(ctx, out.Response, &settled)
	}
	err = x.r.Store.Commit(ctx, x.lock, Completion{RequestID: x.req.RequestID, Response: out.Response}, out.Effects)
	var fenced *FencedError
	switch {
	case errors.As(err, &fenced):
		settled = true // not ours to release any more
		return x.fenced(ctx, fenced, out.Response)
	case err != nil:
		return x.final(ctx, err, &settled)
	}
	settled = true
	if err := hook(ctx, x.r.Hooks.AfterCommit); err != nil {
		return Response{}, err
	}
	return out.Response, nil
}

// final stores an error that is one of the operation's final answers
// (including the effects' own conflicts found by the commit); any other
// error is returned, and the deferred release frees the key.
func (x *execution) final(ctx context.Context, err error, settled *bool) (Response, error) {
	if x.r.Answer == nil {
		return Response{}, err
	}
	resp, final := x.r.Answer(x.req.RequestID, err)
	if !final {
		return Response{}, err
	}
	return x.complete(ctx, resp, settled)
}

// complete stores an answer that writes nothing. If it cannot be stored,
// the answer is still right: the key is released and a retry computes it
// again, which is safe because nothing was written.
func (x *execution) complete(ctx context.Context, resp Response, settled *bool) (Response, error) {
	err := x.r.Store.Complete(ctx, x.lock, Completion{RequestID: x.req.RequestID, Response: resp})
	*settled = true
	var fenced *FencedError
	switch {
	case errors.As(err, &fenced):
		return x.fenced(ctx, fenced, resp)
	case err != nil:
		x.r.log().WarnContext(ctx, "idempotency: could not store a final answer; the key is released", "request_id", x.req.RequestID, "error", err.Error())
		x.release(ctx)
	}
	return resp, nil
}

// fenced answers a request whose key was taken over while it ran. If the
// record holds our own completion (our commit landed but its answer was
// lost and the engine's retry found it done), we answer ours; if another
// request completed it, we replay that answer; otherwise the other
// request still runs (or gave up), and the client should retry.
func (x *execution) fenced(ctx context.Context, f *FencedError, ours Response) (Response, error) {
	if f.Record != nil && f.Record.Status == Completed && f.Record.LockToken == x.lock.Token {
		return ours, nil
	}
	metrics.Put(ctx, x.r.Log, metrics.FencedCommits, 1)
	if f.Record == nil {
		return Response{}, Busy.Err()
	}
	return x.answer(ctx, f.Record)
}

// answer responds to a request that found the key held by rec.
func (x *execution) answer(ctx context.Context, rec *Record) (Response, error) {
	d := Decide(*rec, x.req.Fingerprint)
	metrics.Put(ctx, x.r.Log, metrics.IdempotentRequests, 1, d.outcome())
	if d != Replay {
		return Response{}, d.Err()
	}
	h := make(map[string]string, len(rec.Response.Headers)+2)
	for k, v := range rec.Response.Headers {
		h[k] = v
	}
	h[HeaderReplayed] = "true"
	h[HeaderOriginalRequestID] = rec.RequestID
	return Response{Status: rec.Response.Status, Headers: h, Body: rec.Response.Body}, nil
}

func (x *execution) release(ctx context.Context) {
	// The request's context may be the reason we are here (its deadline),
	// so the release gets a short one of its own.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := x.r.Store.Release(rctx, x.lock); err != nil {
		x.r.log().WarnContext(ctx, "idempotency: release failed; the lease expiry frees the key", "request_id", x.req.RequestID, "error", err.Error())
	}
}

func hook(ctx context.Context, f func(context.Context) error) error {
	if f == nil {
		return nil
	}
	return f(ctx)
}
