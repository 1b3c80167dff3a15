// Package awsfree is the wiring that needs no AWS: reading a function's
// variables, its logger, the HTTP contract's endpoint, the offset notice
// and the Lambda start. The functions that call no AWS API are wired on it
// alone — NotFound here, Dashboard in package site, GetApiReference in
// package reference, each in a package of its own so that a binary links
// only its own code — and link no AWS client: package app, which wires
// every other function on top of this one, links the DynamoDB, SQS and
// Scheduler clients. internal/app/registry adapts these builders to
// package app's (app.AWSFree(site.Dashboard), ...), so that the local
// runtime runs what deploys; package app does not import them.
package awsfree

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/logs"
	"github.com/botix/public-api/internal/metrics"
	"github.com/botix/public-api/internal/pagination"
)

// Env looks up a function's environment variable ("" when unset).
type Env = func(string) string

// HTTPHandler is the Lambda handler of an API route.
type HTTPHandler = func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// Variables every function reads, and those of the offset mode's
// deprecation notice (template.yaml sets them).
const (
	EnvLogLevel = "LOG_LEVEL"
	// EnvPublicAPIURL is the API's public base URL (template parameter
	// PublicApiUrl); empty means the execute-api URL.
	EnvPublicAPIURL     = "PUBLIC_API_URL"
	EnvOffsetDeprecated = "OFFSET_DEPRECATED_AT"
	EnvOffsetSunset     = "OFFSET_SUNSET_AT"
	EnvOffsetDocsURL    = "OFFSET_DOCS_URL"
)

// Wiring is what the caller of a builder may replace: a nil Log is the
// JSON logger on stdout at LOG_LEVEL, a nil Now the wall clock. Tee, if
// set, also gets every line (the local runtime's collector).
type Wiring struct {
	Log *slog.Logger
	Tee slog.Handler
	Now func() time.Time
}

// Builder creates a function's handler from its environment.
type Builder func(ctx context.Context, env Env, w Wiring) (HTTPHandler, error)

// NotFound answers the $default route: any method and path that no route
// of the API matches gets 404 NOT_FOUND in our envelope, not API
// Gateway's. Its builder is named after its logical id without "Function",
// as every builder is (a test checks).
var NotFound Builder = func(_ context.Context, env Env, w Wiring) (HTTPHandler, error) {
	return Build(env, w, func(c *Core) HTTPHandler { return c.Endpoint(notFound, 0).Serve })
}

func notFound(_ context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	return nil, apierr.New(apierr.NotFound, "no route matches %s %s", r.Method, r.Path)
}

// Build wires one function: its core and then its handler. Configuration
// problems found while wiring are reported together.
func Build(env Env, w Wiring, wire func(c *Core) HTTPHandler) (HTTPHandler, error) {
	c := NewCore(env, w)
	h := wire(c)
	return h, c.Vars.Err()
}

// Start runs a function in Lambda: it builds the handler from the process
// environment and hands it to the Lambda runtime. A function that cannot
// be built logs why and exits, which Lambda reports as an init error.
func Start[H any](build func(ctx context.Context, env Env, w Wiring) (H, error)) {
	h, err := build(context.Background(), os.Getenv, Wiring{})
	if err != nil {
		slog.Error("function init failed", "error", err.Error())
		os.Exit(1)
	}
	lambda.Start(h)
}

// Core is what the wiring of every function starts from: its variables,
// its logger and its clock (nil: the wall clock).
type Core struct {
	Vars *Vars
	Log  *slog.Logger
	Now  func() time.Time
}

// NewCore reads the logger's level from env unless w gives a logger.
// Every line then carries the ids its context names (package logs), and
// metric lines (package metrics) pass whatever the level.
func NewCore(env Env, w Wiring) *Core {
	c := &Core{Vars: &Vars{Lookup: env}, Log: w.Log, Now: w.Now}
	if c.Log == nil {
		c.Log = slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: logLevel(c.Vars.Optional(EnvLogLevel, "INFO")), ReplaceAttr: metrics.ReplaceLevel}))
	}
	h := c.Log.Handler()
	if w.Tee != nil {
		h = logs.Tee(h, w.Tee)
	}
	c.Log = slog.New(logs.Handler(h))
	return c
}

func logLevel(s string) slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return slog.LevelInfo
	}
	return l
}

// Endpoint is a public route under the common HTTP contract, with a body
// limit (0: the default).
func (c *Core) Endpoint(h httpapi.Handler, maxBody int) *httpapi.Endpoint {
	return &httpapi.Endpoint{Handler: h, MaxBody: maxBody, Log: c.Log, Now: c.Now, PublicURL: c.Vars.Lookup(EnvPublicAPIURL), Region: c.Vars.Lookup("AWS_REGION")}
}

// OffsetNotice reads what the offset mode's deprecation announces: its
// dates and migration guide (the rest of the policy is the list routes').
func (c *Core) OffsetNotice() pagination.Offset {
	o := c.ReadOffsetNotice()
	c.CheckOffset(o.ValidateNotice)
	return o
}

// ReadOffsetNotice reads the notice's variables without checking them.
func (c *Core) ReadOffsetNotice() pagination.Offset {
	return pagination.Offset{
		DeprecatedAt: c.Vars.Time(EnvOffsetDeprecated),
		SunsetAt:     c.Vars.Time(EnvOffsetSunset),
		DocsURL:      c.Vars.Required(EnvOffsetDocsURL),
	}
}

// CheckOffset reports an offset policy that cannot work, unless a variable
// it needs is missing (already reported).
func (c *Core) CheckOffset(validate func() error) {
	if err := validate(); err != nil && len(c.Vars.missing) == 0 {
		c.Vars.Bad("OFFSET_*", err)
	}
}

// Vars reads a function's variables and remembers which required ones are
// missing and which are malformed (see Err).
type Vars struct {
	Lookup  Env
	missing []string
	invalid []string
}

// Required is the variable name; unset, it is reported missing.
func (r *Vars) Required(name string) string {
	v := r.Lookup(name)
	if v == "" {
		r.missing = append(r.missing, name)
	}
	return v
}

// Optional is the variable name, or def when it is unset.
func (r *Vars) Optional(name, def string) string {
	if v := r.Lookup(name); v != "" {
		return v
	}
	return def
}

// Bad records a malformed variable; the message must not quote secrets.
func (r *Vars) Bad(name string, err error) {
	r.invalid = append(r.invalid, name+": "+err.Error())
}

// Integer is a required integer variable.
func (r *Vars) Integer(name string) int {
	v := r.Required(name)
	n, err := strconv.Atoi(v)
	if v != "" && err != nil {
		r.Bad(name, errors.New("not an integer"))
	}
	return n
}

// Duration is a required duration variable ("5s").
func (r *Vars) Duration(name string) time.Duration {
	v := r.Required(name)
	d, err := time.ParseDuration(v)
	if v != "" && err != nil {
		r.Bad(name, errors.New("not a duration such as 5s"))
	}
	return d
}

// Time is a required RFC 3339 time variable.
func (r *Vars) Time(name string) time.Time {
	v := r.Required(name)
	t, err := time.Parse(time.RFC3339, v)
	if v != "" && err != nil {
		r.Bad(name, errors.New("not an RFC 3339 time"))
	}
	return t
}

// Err reports every missing and malformed variable together (nil: none).
func (r *Vars) Err() error {
	var parts []string
	if len(r.missing) > 0 {
		sort.Strings(r.missing)
		parts = append(parts, "missing environment variables: "+strings.Join(r.missing, ", "))
	}
	parts = append(parts, r.invalid...)
	if len(parts) == 0 {
		return nil
	}
	return errors.New(strings.Join(parts, "; "))
}
