package httpapi

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/auth"
	"github.com/botix/public-api/internal/clock"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/logs"
	"github.com/botix/public-api/internal/metrics"
	"github.com/botix/public-api/internal/tracing"
)

// DefaultMaxBody is the request body limit of routes that set none (64 KiB).
const DefaultMaxBody = 64 << 10

// Authenticator resolves a bearer token (an API key or a dashboard session
// token) to its caller. It returns an UNAUTHORIZED *apierr.Error for a
// malformed, unknown, expired or revoked token and a SERVICE_UNAVAILABLE
// one when the store cannot be reached.
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (auth.Caller, error)
}

// Endpoint is one API function: its handler and how the common contract
// applies to it.
type Endpoint struct {
	Handler Handler
	// Auth authenticates the caller; nil makes the route public.
	Auth Authenticator
	// SessionGrant is what a dashboard session's scope must grant to call
	// this route; "" admits API keys only. A session without it is
	// refused with 403 INSUFFICIENT_SCOPE before the handler runs, so a
	// mutation's Idempotency-Key is not taken.
	SessionGrant auth.Grant
	// MaxBody bounds the request body in bytes; 0 means DefaultMaxBody.
	MaxBody int
	Log     *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// PublicURL is the API's public base URL (a custom domain, or the
	// local runtime's address). Empty means the HTTP API's own execute-api
	// URL, from the API id API Gateway puts in the request context and
	// Region. Client headers (Host, X-Forwarded-*) are never used.
	PublicURL string
	Region    string
	// Headers are added to every response, errors included (the
	// dashboard's security headers).
	Headers http.Header
	// NoQuery refuses any query parameter of an authenticated request with
	// 400 INVALID_PARAMETER: the route takes none, and a parameter it
	// would ignore (a filter on a route that cannot filter) must not look
	// honoured.
	NoQuery bool
}

// Serve is the Lambda handler of the endpoint. It never returns an error:
// every failure is rendered in the error envelope with the request id.
func (e *Endpoint) Serve(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (out events.APIGatewayV2HTTPResponse, _ error) {
	now := clock.Or(e.Now)
	log := e.Log
	if log == nil {
		log = slog.Default()
	}
	start := now()
	req := &Request{RequestID: ids.New(ids.Request, start), Received: start}
	ctx, _ = tracing.Start(ctx, ev.Headers[tracing.Header])
	ctx = logs.WithLogger(logs.With(ctx, logs.RequestID, req.RequestID), log)
	var resp *Response
	var cause error
	defer func() {
		if p := recover(); p != nil {
			cause = &panicError{p}
			log.ErrorContext(ctx, "panic", "request_id", req.RequestID, "route", ev.RouteKey, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			resp = ErrorResponse(cause, req.RequestID)
		}
		resp = finish(resp, req.RequestID)
		for k, v := range e.Headers {
			resp.Header[k] = v
		}
		out = toEvent(resp)
		attrs := []any{
			"request_id", req.RequestID, "route", ev.RouteKey, "status", out.StatusCode,
			"latency_ms", now().Sub(start).Milliseconds(), "project_id", req.Project,
			"apigw_request_id", ev.RequestContext.RequestID,
		}
		if req.Session != nil {
			attrs = append(attrs, "session_id", req.Session.ID)
		}
		count(ctx, log, resp, cause)
		if cause != nil && out.StatusCode >= 500 {
			log.ErrorContext(ctx, "request failed", append(attrs, "error", cause.Error())...)
			return
		}
		log.InfoContext(ctx, "request", attrs...)
	}()
	resp, cause = e.serve(ctx, req, ev)
	if cause != nil {
		resp = ErrorResponse(cause, req.RequestID)
	}
	return out, nil
}

func (e *Endpoint) serve(ctx context.Context, req *Request, ev events.APIGatewayV2HTTPRequest) (*Response, error) {
	if err := fromEvent(req, ev); err != nil {
		return nil, err
	}
	req.BaseURL = e.PublicURL
	if req.BaseURL == "" && ev.RequestContext.APIID != "" {
		req.BaseURL = "https://" + ev.RequestContext.APIID + ".execute-api." + e.Region + ".amazonaws.com"
	}
	limit := e.MaxBody
	if limit == 0 {
		limit = DefaultMaxBody
	}
	if len(req.Body) > limit {
		return nil, apierr.New(apierr.PayloadTooLarge, "request body is %d bytes; the limit of this route is %d", len(req.Body), limit)
	}
	if e.Auth != nil {
		token, ok := bearer(req.Header.Get("Authorization"))
		if !ok {
			return nil, apierr.New(apierr.Unauthorized, "send your API key as 'Authorization: Bearer <key>'")
		}
		caller, err := e.Auth.Authenticate(ctx, token)
		if err != nil {
			return nil, err
		}
		req.Project, req.KeyID = caller.Project, caller.KeyID
		ctx = logs.With(ctx, logs.ProjectID, req.Project)
		if caller.Session != nil {
			req.Session = caller.Session
			if !caller.May(e.SessionGrant) {
				return nil, scopeError(caller.Session.Scope, req.Route, e.SessionGrant)
			}
		}
		if err := checkQuery(req.Query); err != nil {
			return nil, err
		}
		if e.NoQuery {
			if err := CheckKnown(req.Query, nil); err != nil {
				return nil, err
			}
		}
	}
	return e.Handler(ctx, req)
}

// count writes the request's metrics: a list page, a refused cursor, a
// 5xx by its cause.
func count(ctx context.Context, log *slog.Logger, resp *Response, cause error) {
	if resp.Page != "" {
		metrics.Put(ctx, log, metrics.ListPages, 1, resp.Page)
	}
	if apierr.Is(cause, apierr.InvalidCursor) {
		metrics.Put(ctx, log, metrics.CursorRefusals, 1)
	}
	if resp.Status >= 500 {
		code := string(apierr.Internal)
		if e, ok := apierr.As(cause); ok {
			code = string(e.Code)
		}
		if errors.As(cause, new(*panicError)) {
			code = "panic"
		}
		metrics.Put(ctx, log, metrics.ServerErrors, 1, code)
	}
}

// panicError is a handler's panic, answered 500 INTERNAL.
type panicError struct{ value any }

func (p *panicError) Error() string { return fmt.Sprintf("panic: %v", p.value) }

func fromEvent(req *Request, ev events.APIGatewayV2HTTPRequest) error {
	req.Method = ev.RequestContext.HTTP.Method
	req.Route = ev.RouteKey
	req.Path = ev.RawPath
	req.PathParams = ev.PathParameters
	req.Header = make(http.Header, len(ev.Headers))
	for k, v := range ev.Headers {
		req.Header.Set(k, v)
	}
	q, err := url.ParseQuery(ev.RawQueryString)
	if err != nil {
		return apierr.New(apierr.InvalidParameter, "the query string is not valid URL encoding")
	}
	req.Query = q
	req.Body = []byte(ev.Body)
	if ev.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(ev.Body)
		if err != nil {
			return apierr.New(apierr.InvalidJSON, "the request body could not be decoded")
		}
		req.Body = b
	}
	return nil
}

// scopeError tells a session's holder why the route refused it and what
// would be admitted.
func scopeError(scope auth.Scope, route string, grant auth.Grant) error {
	if grant == "" {
		return apierr.New(apierr.InsufficientScope, "%s takes the project's API key; a dashboard session (scope %s) cannot call it", route, scope)
	}
	return apierr.New(apierr.InsufficientScope, "%s needs a dashboard session of scope %s or the project's API key; this session's scope is %s", route, auth.ScopeReadRetry, scope)
}

// bearer extracts the token of an "Authorization: Bearer <token>" header.
func bearer(h string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

func finish(resp *Response, requestID string) *Response {
	if resp == nil {
		resp = ErrorResponse(nil, requestID)
	}
	if resp.Header == nil {
		resp.Header = http.Header{}
	}
	if resp.Header.Get("Content-Type") == "" && len(resp.Body) > 0 {
		resp.Header.Set("Content-Type", "application/json")
	}
	resp.Header.Set("X-Request-Id", requestID)
	return resp
}

func toEvent(resp *Response) events.APIGatewayV2HTTPResponse {
	h := make(map[string]string, len(resp.Header))
	for k, v := range resp.Header {
		h[k] = strings.Join(v, ", ")
	}
	return events.APIGatewayV2HTTPResponse{StatusCode: resp.Status, Headers: h, Body: string(resp.Body)}
}
