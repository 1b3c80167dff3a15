// Package tracing carries a W3C trace context (traceparent) from the API
// request that wrote an event to every webhook attempt that delivers it:
// through the outbox item, the queue message, a Scheduler retry and a
// redrive (all of which keep the message body), to the receiver's
// traceparent header, so that a receiver can join the sender's trace.
//
// An X-Ray trace id and a W3C trace id are the same 128 bits
// ("1-5759e988-bd862e3fe1be46a994272793" is 5759e988bd862e3fe1be46a994272793),
// so a trace Lambda's active tracing started is carried on unchanged.
package tracing

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// Header is the W3C Trace Context request header.
const Header = "traceparent"

// Context is one span of a trace.
type Context struct {
	// TraceID is 32 lowercase hex digits, SpanID 16; neither all zeros.
	TraceID, SpanID string
	Sampled         bool
}

// Valid reports whether c names a trace.
func (c Context) Valid() bool { return validHex(c.TraceID, 32) && validHex(c.SpanID, 16) }

// String is c as a traceparent header value (version 00); "" when c is
// not valid.
func (c Context) String() string {
	if !c.Valid() {
		return ""
	}
	flags := "00"
	if c.Sampled {
		flags = "01"
	}
	return "00-" + c.TraceID + "-" + c.SpanID + "-" + flags
}

// Child is a new span of c's trace, whose parent is c.
func (c Context) Child() Context {
	return Context{TraceID: c.TraceID, SpanID: randomHex(8), Sampled: c.Sampled}
}

// New starts a trace.
func New() Context {
	return Context{TraceID: randomHex(16), SpanID: randomHex(8), Sampled: true}
}

// Parse reads a traceparent header value. It accepts any version but ff
// (later versions keep version 00's first four fields) and refuses all-zero
// ids, as the W3C recommendation says.
func Parse(s string) (Context, bool) {
	parts := strings.Split(strings.TrimSpace(s), "-")
	if len(parts) < 4 || len(parts[0]) != 2 || !isHex(parts[0]) || parts[0] == "ff" {
		return Context{}, false
	}
	if (parts[0] == "00" && len(parts) != 4) || len(parts[3]) != 2 || !isHex(parts[3]) {
		return Context{}, false
	}
	c := Context{TraceID: parts[1], SpanID: parts[2], Sampled: hexByte(parts[3])&1 == 1}
	return c, c.Valid()
}

// FromXRay reads an X-Ray trace header ("Root=1-<8 hex>-<24 hex>;Parent=<16
// hex>;Sampled=1"), as Lambda's active tracing gives it to an invocation.
func FromXRay(h string) (Context, bool) {
	var c Context
	for _, kv := range strings.Split(h, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		switch k {
		case "Root":
			p := strings.Split(v, "-")
			if len(p) == 3 && p[0] == "1" {
				c.TraceID = p[1] + p[2]
			}
		case "Parent":
			c.SpanID = v
		case "Sampled":
			c.Sampled = v == "1"
		}
	}
	return c, c.Valid()
}

// XRay is c as an X-Ray trace header (Root, Parent, Sampled).
func (c Context) XRay() string {
	if !c.Valid() {
		return ""
	}
	s := "0"
	if c.Sampled {
		s = "1"
	}
	return "Root=1-" + c.TraceID[:8] + "-" + c.TraceID[8:] + ";Parent=" + c.SpanID + ";Sampled=" + s
}

type ctxKey struct{}

// With returns ctx carrying c.
func With(ctx context.Context, c Context) context.Context {
	if !c.Valid() {
		return ctx
	}
	return context.WithValue(ctx, ctxKey{}, c)
}

// From returns the trace context ctx carries.
func From(ctx context.Context) (Context, bool) {
	c, ok := ctx.Value(ctxKey{}).(Context)
	return c, ok
}

// Traceparent is the traceparent of the span ctx carries ("" for none).
func Traceparent(ctx context.Context) string {
	c, _ := From(ctx)
	return c.String()
}

// lambdaKey is where aws-lambda-go puts the invocation's X-Ray header.
const lambdaKey = "x-amzn-trace-id"

// Start returns ctx carrying the trace of one API request: the caller's
// traceparent when it sends a valid one (a W3C caller's trace is
// continued), else the one Lambda's active tracing started for the
// invocation, else a new one. It is a new span of that trace.
func Start(ctx context.Context, traceparent string) (context.Context, Context) {
	c, ok := Parse(traceparent)
	if !ok {
		h, _ := ctx.Value(lambdaKey).(string)
		c, ok = FromXRay(h)
	}
	if ok {
		c = c.Child()
	} else {
		c = New()
	}
	return With(ctx, c), c
}

// Continue returns ctx carrying a new span of the trace traceparent names
// (a queue message's), or of a new trace when it names none (a message
// written before traces were carried), so that every webhook has one.
func Continue(ctx context.Context, traceparent string) context.Context {
	c, ok := Parse(traceparent)
	if !ok {
		return With(ctx, New())
	}
	return With(ctx, c.Child())
}

func validHex(s string, n int) bool {
	return len(s) == n && isHex(s) && strings.Trim(s, "0") != ""
}

func isHex(s string) bool {
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

func hexByte(s string) byte {
	b, _ := hex.DecodeString(s)
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
