// Package logs gives every line a function logs the ids of what it is
// working on — the request, the project and, where there is one, the
// event, delivery and attempt — without each call site naming them: the
// code that learns an id puts it in the context (With), and the handler
// adds the context's ids to each line logged with it (the *Context
// methods of slog). It also adds Lambda's request id and the trace id.
package logs

import (
	"context"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/botix/public-api/internal/tracing"
)

// The attribute names the runbook's Logs Insights queries read.
const (
	RequestID    = "request_id"
	ProjectID    = "project_id"
	EventID      = "event_id"
	DeliveryID   = "delivery_id"
	EndpointID   = "endpoint_id"
	Attempt      = "attempt"
	AWSRequestID = "aws_request_id"
	TraceID      = "trace_id"
)

type ctxKey struct{}

// With returns ctx whose log lines carry args (key/value pairs, as slog
// takes them) besides those ctx already gives them; a key given again
// replaces the earlier value. Empty strings are left out.
func With(ctx context.Context, args ...any) context.Context {
	old, _ := ctx.Value(ctxKey{}).([]slog.Attr)
	attrs := make([]slog.Attr, 0, len(old)+len(args)/2)
	r := slog.NewRecord(time.Time{}, 0, "", 0)
	r.Add(args...)
	added := map[string]bool{}
	r.Attrs(func(a slog.Attr) bool {
		if a.Value.Kind() == slog.KindString && a.Value.String() == "" {
			return true
		}
		added[a.Key] = true
		attrs = append(attrs, a)
		return true
	})
	for _, a := range old {
		if !added[a.Key] {
			attrs = append(attrs, a)
		}
	}
	return context.WithValue(ctx, ctxKey{}, attrs)
}

// Attrs returns the attributes ctx gives log lines.
func Attrs(ctx context.Context) []slog.Attr {
	var out []slog.Attr
	if lc, ok := lambdacontext.FromContext(ctx); ok && lc.AwsRequestID != "" {
		out = append(out, slog.String(AWSRequestID, lc.AwsRequestID))
	}
	if c, ok := tracing.From(ctx); ok {
		out = append(out, slog.String(TraceID, c.TraceID))
	}
	attrs, _ := ctx.Value(ctxKey{}).([]slog.Attr)
	return append(out, attrs...)
}

// Handler adds Attrs(ctx) to each record, unless the record names the
// attribute itself, and passes it to next.
func Handler(next slog.Handler) slog.Handler { return contextHandler{next} }

type contextHandler struct{ next slog.Handler }

func (h contextHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	extra := Attrs(ctx)
	if len(extra) == 0 {
		return h.next.Handle(ctx, r)
	}
	own := map[string]bool{}
	r.Attrs(func(a slog.Attr) bool {
		own[a.Key] = true
		return true
	})
	out := r.Clone()
	for _, a := range extra {
		if !own[a.Key] {
			out.AddAttrs(a)
		}
	}
	return h.next.Handle(ctx, out)
}

func (h contextHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return contextHandler{h.next.WithAttrs(as)}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{h.next.WithGroup(name)}
}

// Tee sends each record to every handler that is enabled for it (the
// local runtime reads the functions' lines this way while they still go
// where they went).
func Tee(hs ...slog.Handler) slog.Handler { return tee(hs) }

type tee []slog.Handler

func (t tee) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range t {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (t tee) Handle(ctx context.Context, r slog.Record) error {
	var first error
	for _, h := range t {
		if h.Enabled(ctx, r.Level) {
			if err := h.Handle(ctx, r.Clone()); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

func (t tee) WithAttrs(as []slog.Attr) slog.Handler {
	out := make(tee, len(t))
	for i, h := range t {
		out[i] = h.WithAttrs(as)
	}
	return out
}

func (t tee) WithGroup(name string) slog.Handler {
	out := make(tee, len(t))
	for i, h := range t {
		out[i] = h.WithGroup(name)
	}
	return out
}

type loggerKey struct{}

// WithLogger returns ctx carrying the function's logger, for code that
// writes metrics (package metrics) without a logger of its own.
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, l)
}

// Logger returns the logger ctx carries (nil: none).
func Logger(ctx context.Context) *slog.Logger {
	l, _ := ctx.Value(loggerKey{}).(*slog.Logger)
	return l
}
