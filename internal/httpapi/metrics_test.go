package httpapi

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/metrics/collect"
)

// TestServeCountsWhatOperatorsWatch: each answer writes the metrics the
// operators' dashboard and alarms read: a 5xx by its cause, a list page by
// its mode, a refused cursor; a 4xx is the caller's and counts no error.
func TestServeCountsWhatOperatorsWatch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler Handler
		want    map[string]float64
	}{
		{"DynamoDB throttled: 503 SERVICE_UNAVAILABLE", func(context.Context, *Request) (*Response, error) {
			return nil, apierr.Unavailable(errors.New("ThrottlingException"))
		}, map[string]float64{"ServerErrors/SERVICE_UNAVAILABLE": 1}},
		{"our bug: 500 INTERNAL", func(context.Context, *Request) (*Response, error) {
			return nil, errors.New("nil map")
		}, map[string]float64{"ServerErrors/INTERNAL": 1}},
		{"a handler panicked", func(context.Context, *Request) (*Response, error) {
			panic("index out of range")
		}, map[string]float64{"ServerErrors/panic": 1}},
		{"a refused cursor is the caller's: no server error", func(context.Context, *Request) (*Response, error) {
			return nil, apierr.New(apierr.InvalidCursor, "cursor is malformed")
		}, map[string]float64{"CursorRefusals": 1}},
		{"a list page by cursor", func(context.Context, *Request) (*Response, error) {
			return &Response{Status: 200, Body: []byte(`{"data":[]}`), Page: "cursor"}, nil
		}, map[string]float64{"ListPages/cursor": 1}},
		{"a created contact counts nothing here", func(context.Context, *Request) (*Response, error) {
			return &Response{Status: 201, Body: []byte(`{}`)}, nil
		}, map[string]float64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tel := &collect.Telemetry{}
			e := &Endpoint{Handler: tc.handler, Log: tel.Logger("ListContactsFunction")}
			if _, err := e.Serve(context.Background(), events.APIGatewayV2HTTPRequest{RouteKey: "GET /x"}); err != nil {
				t.Fatal(err)
			}
			if got := tel.Totals(); !maps.Equal(got, tc.want) {
				t.Fatalf("metrics %v, want %v", got, tc.want)
			}
		})
	}
}
