package api_test

import (
	"context"
	"encoding/base64"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/infra/testkit/functionenv"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"

	"github.com/botix/public-api/infra/testkit/apicontract"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/dynamotest"
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
	h := &harness{t: t, tables: dynamotest.Tables(t), calls: &dynamotest.Calls{}, faults: &dynamotest.Faults{}, env: functionenv.PaginationEnv()}
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
	f, err := build(context.Background(), functionenv.For(h.t, h.tables, h.env), opts...)
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

// call runs one request through f and checks the exchange against
// sdk/openapi.yaml as strictly as the local runtime checks its own: a
// handler test that bypasses API Gateway must not bypass the contract.
func call(t *testing.T, f app.HTTPHandler, ev events.APIGatewayV2HTTPRequest) events.APIGatewayV2HTTPResponse {
	t.Helper()
	// The deadline only stops a hung handler. It is longer than a Lambda's:
	// the takeover tests hold one call open while another runs, and on a
	// 2-core machine shared with the rest of make test that took over 10 s
	// (the held call then failed with 503 for want of time, not of a lock).
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	resp, err := f(ctx, ev)
	if err != nil {
		t.Fatal(err)
	}
	checkContract(t, ev, resp)
	return resp
}

// checkContract fails the test when the exchange breaks the document.
func checkContract(t *testing.T, ev events.APIGatewayV2HTTPRequest, resp events.APIGatewayV2HTTPResponse) {
	t.Helper()
	v, err := apicontract.Shared()
	if err != nil {
		t.Fatal(err)
	}
	ex := exchange(ev, resp)
	for _, p := range v.Check(ex) {
		t.Errorf("the exchange breaks sdk/openapi.yaml: %s %s -> %d %.300s: %s", ex.Method, ex.URL, ex.Status, ex.ResponseBody, p)
	}
}

// exchange is what API Gateway would have recorded of ev and its answer.
func exchange(ev events.APIGatewayV2HTTPRequest, resp events.APIGatewayV2HTTPResponse) apicontract.Exchange {
	u := "http://127.0.0.1:8080" + ev.RawPath
	if ev.RawQueryString != "" {
		u += "?" + ev.RawQueryString
	}
	header := http.Header{}
	for k, v := range ev.Headers {
		header.Set(k, v)
	}
	body := []byte(ev.Body)
	if ev.IsBase64Encoded {
		body, _ = base64.StdEncoding.DecodeString(ev.Body)
	}
	respHeader := http.Header{}
	for k, v := range resp.Headers {
		respHeader.Set(k, v)
	}
	for k, vs := range resp.MultiValueHeaders {
		for _, v := range vs {
			respHeader.Add(k, v)
		}
	}
	respBody := []byte(resp.Body)
	if resp.IsBase64Encoded {
		respBody, _ = base64.StdEncoding.DecodeString(resp.Body)
	}
	return apicontract.Exchange{
		Method: ev.RequestContext.HTTP.Method, URL: u, Header: header, Body: body, Route: ev.RouteKey,
		Status: resp.StatusCode, ResponseHeader: respHeader, ResponseBody: respBody,
	}
}

func code(resp events.APIGatewayV2HTTPResponse) string {
	return apitest.Reply{Body: []byte(resp.Body)}.ErrorCode()
}

func (h *harness) count(kind string) int {
	return dynamotest.CountItems(h.t, h.store.DB, h.tables.Data, "P#"+h.project+"#"+kind)
}

func newKey() string { return uuid.NewString() }

func authHash(k string) string { return auth.Hash(k) }

// answerCase is a call of a handler and the status and error code ("" for
// none) its answer must have.
type answerCase struct {
	name   string
	f      app.HTTPHandler
	ev     events.APIGatewayV2HTTPRequest
	status int
	code   string
}

// checkAnswers makes each case's call in a subtest of its name.
func checkAnswers(t *testing.T, cases []answerCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := call(t, c.f, c.ev)
			if r.StatusCode != c.status || code(r) != c.code {
				t.Fatalf("got %d %s, want %d %s: %s", r.StatusCode, code(r), c.status, c.code, r.Body)
			}
		})
	}
}
