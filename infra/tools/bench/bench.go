// Package bench holds the benchmarks `make bench` runs against DynamoDB
// Local: numbers for the README and the issues' notes, not assertions.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"time"

	"github.com/botix/public-api/infra/testkit/functionenv"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/infra/run/ddblocal"
	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/auth"
	"github.com/botix/public-api/internal/store"
)

// Logs receives the functions' logs of every step (JSON lines); nil
// discards them. The bench command writes them to a file and names it in
// its errors, which point to what the functions logged.
var Logs io.Writer

// functionLogger is the logger the steps give the functions: to Logs.
func functionLogger() *slog.Logger {
	if Logs == nil {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewJSONHandler(Logs, nil))
}

// env is a fresh project over fresh tables in DynamoDB Local.
type env struct {
	tables  store.Tables
	store   *store.Store
	project string
	key     string
	vars    map[string]string
}

func newEnv(ctx context.Context, endpoint string) (*env, error) {
	tpl, err := template.LoadRepo()
	if err != nil {
		return nil, err
	}
	db := dynamoClient(ctx, endpoint)
	prefix := dynamotest.UniquePrefix()
	names, err := ddblocal.CreateTables(ctx, db, tpl, func(id string) string { return prefix + id })
	if err != nil {
		return nil, err
	}
	e := &env{tables: dynamotest.TablesOf(names)}
	e.store = store.New(db, e.tables)
	p, err := e.store.CreateProject(ctx, "bench")
	if err != nil {
		return nil, err
	}
	e.project, e.key = p.ID, auth.NewKey()
	if _, err := e.store.AddAPIKey(ctx, p.ID, auth.Hash(e.key)); err != nil {
		return nil, err
	}
	e.vars = map[string]string{
		"AWS_REGION": local.Region, "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
		"AWS_ENDPOINT_URL_DYNAMODB": endpoint, app.EnvDataTable: e.tables.Data, app.EnvIdempotencyTable: e.tables.Idempotency,
		app.EnvDeliveriesTable: e.tables.Deliveries,
	}
	for k, v := range functionenv.PaginationEnv() {
		e.vars[k] = v
	}
	return e, nil
}

func (e *env) build(ctx context.Context, b app.Builder[app.HTTPHandler], calls *dynamotest.Calls) (app.HTTPHandler, error) {
	return b(ctx, func(k string) string { return e.vars[k] }, app.WithDynamoDB(calls.Option()), app.WithLogger(functionLogger()))
}

func (e *env) get(route, path, query string) events.APIGatewayV2HTTPRequest {
	return events.APIGatewayV2HTTPRequest{
		RouteKey: route, RawPath: path, RawQueryString: query,
		Headers:        map[string]string{"authorization": "Bearer " + e.key},
		RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: http.MethodGet, Path: path}},
	}
}

// sample is what one measured request cost.
type sample struct {
	latency time.Duration
	calls   int
	rcu     float64
}

type stats struct {
	p50, p95 time.Duration
	calls    float64
	rcu      float64
}

func summarize(s []sample) stats {
	lat := make([]time.Duration, len(s))
	var st stats
	for i, x := range s {
		lat[i] = x.latency
		st.calls += float64(x.calls)
		st.rcu += x.rcu
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	st.calls /= float64(len(s))
	st.rcu /= float64(len(s))
	st.p50 = lat[len(lat)/2]
	st.p95 = lat[(len(lat)*95+99)/100-1]
	return st
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }

func ratio(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

func fprintf(w io.Writer, format string, args ...any) { _, _ = fmt.Fprintf(w, format, args...) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
