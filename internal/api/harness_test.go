package api_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"

	"github.com/botix/public-api/infra/apitest"
	"github.com/botix/public-api/infra/dynamotest"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/auth"
	"github.com/botix/public-api/internal/store"
)

// harness is one project over fresh tables, with instruments on the
// DynamoDB client of the functions it builds.
type harness struct {
	t       *testing.T
	tables  store.Tables
	store   *store.Store
	project string
	key     string
	calls   *dynamotest.Calls
	faults  *dynamotest.Faults
	// env adds variables to the functions' environment.
	env map[string]string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, tables: dynamotest.Tables(t), calls: &dynamotest.Calls{}, faults: &dynamotest.Faults{}, env: dynamotest.PaginationEnv()}
	h.store = store.New(dynamotest.Client(t), h.tables)
	p, err := h.store.CreateProject(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	h.project, h.key = p.ID, auth.NewKey()
	if _, err := h.store.AddAPIKey(context.Background(), p.ID, auth.Hash(h.key)); err != nil {
		t.Fatal(err)
	}
	return h
}

// fn builds an API function with the harness's instruments.
func (h *harness) fn(build app.Builder[app.HTTPHandler], opts ...app.Option) app.HTTPHandler {
	h.t.Helper()
	opts = append([]app.Option{
		app.WithDynamoDB(h.calls.Option(), h.faults.Option()),
		app.WithLogger(slog.New(slog.DiscardHandler)),
	}, opts...)
	f, err := build(context.Background(), dynamotest.FunctionEnv(h.t, h.tables, h.env), opts...)
	if err != nil {
		h.t.Fatal(err)
	}
	return f
}

// post is a POST as API Gateway delivers it.
func (h *harness) post(route, path, idemKey, body string, params map[string]string) events.APIGatewayV2HTTPRequest {
	headers := map[string]string{"authorization": "Bearer " + h.key, "content-type": "application/json"}
	if idemKey != "" {
		headers["idempotency-key"] = idemKey
	}
	return events.APIGatewayV2HTTPRequest{
		RouteKey: route, RawPath: path, Headers: headers, Body: body, PathParameters: params,
		RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: http.MethodPost, Path: path}},
	}
}

// get is a GET as API Gateway delivers it; a route ending in {id} gets the
// path's last segment as its id parameter.
func (h *harness) get(route, path, query string) events.APIGatewayV2HTTPRequest {
	var params map[string]string
	if strings.HasSuffix(route, "{id}") {
		params = map[string]string{"id": path[strings.LastIndex(path, "/")+1:]}
	}
	return events.APIGatewayV2HTTPRequest{
		RouteKey: route, RawPath: path, RawQueryString: query, PathParameters: params,
		Headers:        map[string]string{"authorization": "Bearer " + h.key},
		RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: http.MethodGet, Path: path}},
	}
}

func (h *harness) contact(idemKey, body string) events.APIGatewayV2HTTPRequest {
	return h.post("POST /public/v1/contacts", "/public/v1/contacts", idemKey, body, nil)
}

func call(t *testing.T, f app.HTTPHandler, ev events.APIGatewayV2HTTPRequest) events.APIGatewayV2HTTPResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := f(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func code(resp events.APIGatewayV2HTTPResponse) string {
	return apitest.Reply{Body: []byte(resp.Body)}.ErrorCode()
}

func (h *harness) count(kind string) int {
	return dynamotest.CountItems(h.t, h.store.DB, h.tables.Data, "P#"+h.project+"#"+kind)
}

func newKey() string { return uuid.NewString() }

func authHash(k string) string { return auth.Hash(k) }
