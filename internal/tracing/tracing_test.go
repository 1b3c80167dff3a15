package tracing_test

import (
	"context"
	"testing"

	"github.com/botix/public-api/internal/tracing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		ok       bool
		want     tracing.Context
	}{
		{"a sampled version 00 header", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", true,
			tracing.Context{TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7", Sampled: true}},
		{"not sampled", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", true,
			tracing.Context{TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7"}},
		{"a later version with more fields", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", true,
			tracing.Context{TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7", Sampled: true}},
		{"version ff is invalid", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false, tracing.Context{}},
		{"version 00 with more fields", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x", false, tracing.Context{}},
		{"an all-zero trace id", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", false, tracing.Context{}},
		{"an all-zero span id", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", false, tracing.Context{}},
		{"upper case hex", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", false, tracing.Context{}},
		{"a short trace id", "00-4bf92f3577b34da6a3ce929d0e0e47-00f067aa0ba902b7-01", false, tracing.Context{}},
		{"empty", "", false, tracing.Context{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tracing.Parse(tc.in)
			if ok != tc.ok || (ok && got != tc.want) {
				t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
			}
			if ok && tc.in[:2] == "00" && got.String() != tc.in {
				t.Errorf("String() = %q, want %q", got.String(), tc.in)
			}
		})
	}
}

func TestXRayHeaderIsTheSameTrace(t *testing.T) {
	c, ok := tracing.FromXRay("Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1")
	if !ok || c.TraceID != "5759e988bd862e3fe1be46a994272793" || c.SpanID != "53995c3f42cd8ad8" || !c.Sampled {
		t.Fatalf("FromXRay = %+v, %v", c, ok)
	}
	if got := c.XRay(); got != "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1" {
		t.Errorf("XRay() = %q", got)
	}
}

func TestStart(t *testing.T) {
	caller := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	lambda := context.WithValue(context.Background(), "x-amzn-trace-id", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1") //nolint:staticcheck // aws-lambda-go's key
	for _, tc := range []struct {
		name        string
		ctx         context.Context
		traceparent string
		trace       string
	}{
		{"the caller's traceparent is continued", lambda, caller, "4bf92f3577b34da6a3ce929d0e0e4736"},
		{"without one, Lambda's X-Ray trace", lambda, "", "5759e988bd862e3fe1be46a994272793"},
		{"a malformed one is ignored", lambda, "00-zz", "5759e988bd862e3fe1be46a994272793"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, c := tracing.Start(tc.ctx, tc.traceparent)
			if c.TraceID != tc.trace || c.SpanID == "00f067aa0ba902b7" || c.SpanID == "53995c3f42cd8ad8" {
				t.Errorf("Start = %+v, want a new span of trace %s", c, tc.trace)
			}
			if tracing.Traceparent(ctx) != c.String() {
				t.Errorf("the context carries %q, not %q", tracing.Traceparent(ctx), c.String())
			}
		})
	}
	_, c := tracing.Start(context.Background(), "")
	if !c.Valid() {
		t.Errorf("without any trace, a new one: %+v", c)
	}
}
