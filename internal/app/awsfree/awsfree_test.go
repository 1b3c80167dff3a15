package awsfree_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/internal/app/awsfree"
)

// TestNotFoundNeedsNoVariables: the $default function builds from an empty
// environment (no table, no AWS configuration) and answers any route with
// 404 NOT_FOUND in the API's envelope.
func TestNotFoundNeedsNoVariables(t *testing.T) {
	h, err := awsfree.NotFound(context.Background(), func(string) string { return "" }, awsfree.Wiring{Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := h(context.Background(), events.APIGatewayV2HTTPRequest{
		RawPath:        "/public/v1/nope",
		RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", Path: "/public/v1/nope"}, RequestID: "r1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 404 || !strings.Contains(resp.Body, `"code":"NOT_FOUND"`) || !strings.Contains(resp.Body, "GET /public/v1/nope") {
		t.Fatalf("%d %s", resp.StatusCode, resp.Body)
	}
}

// TestVarsReportEveryProblemTogether: missing and malformed variables are
// reported in one error, missing ones sorted.
func TestVarsReportEveryProblemTogether(t *testing.T) {
	v := &awsfree.Vars{Lookup: env(map[string]string{"N": "x", "D": "5s", "T": "yesterday"})}
	v.Required("B")
	v.Required("A")
	v.Integer("N")
	if d := v.Duration("D"); d.Seconds() != 5 {
		t.Errorf("Duration = %v", d)
	}
	v.Time("T")
	if got := v.Optional("O", "def"); got != "def" {
		t.Errorf("Optional = %q", got)
	}
	want := "missing environment variables: A, B; N: not an integer; T: not an RFC 3339 time"
	if err := v.Err(); err == nil || err.Error() != want {
		t.Fatalf("Err = %v, want %q", err, want)
	}
	if err := (&awsfree.Vars{Lookup: env(nil)}).Err(); err != nil {
		t.Fatalf("no variable read: %v", err)
	}
}

func env(m map[string]string) awsfree.Env { return func(k string) string { return m[k] } }
