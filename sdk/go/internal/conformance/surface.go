package main

import (
	"bufio"
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/botix/public-api/sdk/go/botix"
)

// fakeID stands for every id a route takes; the recorded paths put "{id}"
// in its place.
const fakeID = "X1"

// routes calls every method of the SDK once against a server that records
// where each request went (and answers 404): the routes the methods use.
func routes(ctx context.Context, _ []byte, _ *bufio.Reader) (any, error) {
	var mu sync.Mutex
	seen := map[[2]string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		segs := strings.Split(r.URL.Path, "/")
		for i, s := range segs {
			if s == fakeID {
				segs[i] = "{id}"
			}
		}
		mu.Lock()
		seen[[2]string{r.Method, strings.Join(segs, "/")}] = true
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":{"code":"NOT_FOUND","message":"recorded","request_id":"req_01JDQ4Z8M3V6K2N9P5R7T1W0XY"}}`))
	}))
	defer srv.Close()
	c := botix.NewClient("bx_test_recorder", botix.WithBaseURL(srv.URL), botix.WithRetryPolicy(botix.RetryPolicy{MaxAttempts: 1}))
	desc := "d"
	since := time.Now().Add(-time.Hour)
	// Answers do not matter here: what the SDK sends, and where, does.
	_, _ = c.Contacts.Create(ctx, botix.ContactCreate{Phone: "+79990000000", Name: "n"})
	_, _ = c.Contacts.Get(ctx, fakeID)
	_, _ = c.Contacts.List(ctx, botix.ContactListParams{})
	_, _ = c.Contacts.Count(ctx)
	_, _ = c.Messages.Send(ctx, botix.MessageCreate{ContactID: fakeID, Text: "hi", Channel: "sms"})
	_, _ = c.Messages.List(ctx, botix.MessageListParams{})
	_, _ = c.Catalog.Import(ctx, botix.CatalogImportCreate{Items: []botix.CatalogItem{{SKU: "A-1", Name: "Tea", Price: "9.90", Currency: "RUB"}}})
	_, _ = c.Scenarios.Run(ctx, fakeID, botix.ScenarioRunCreate{ContactID: fakeID})
	_, _ = c.WebhookEndpoints.Create(ctx, botix.WebhookEndpointCreate{URL: "https://example.com/hook", Events: []string{"*"}})
	_, _ = c.WebhookEndpoints.List(ctx, botix.ListParams{})
	_, _ = c.WebhookEndpoints.Get(ctx, fakeID)
	_, _ = c.WebhookEndpoints.Update(ctx, fakeID, botix.WebhookEndpointUpdate{Description: &desc})
	_, _ = c.WebhookEndpoints.Delete(ctx, fakeID)
	_, _ = c.WebhookEndpoints.RotateSecret(ctx, fakeID)
	_, _ = c.WebhookEndpoints.Test(ctx, fakeID)
	_, _ = c.WebhookEndpoints.Recover(ctx, fakeID, since)
	_, _ = c.Deliveries.List(ctx, botix.DeliveryListParams{})
	_, _ = c.Deliveries.Get(ctx, fakeID)
	_, _ = c.Deliveries.Stats(ctx, botix.StatsParams{Granularity: "day"})
	_, _ = c.Deliveries.Retry(ctx, fakeID)
	_, _ = c.Deliveries.Redirect(ctx, fakeID, fakeID)
	_, _ = c.Inspectors.Create(ctx)
	_, _ = c.Inspectors.Requests(ctx, fakeID, botix.ListParams{})
	_, _ = c.Events.List(ctx, botix.EventListParams{})
	_, _ = c.Events.Get(ctx, fakeID)
	_, _ = c.DashboardSessions.Create(ctx, botix.DashboardSessionCreate{Scope: botix.ScopeRead})
	_, _ = c.DashboardSessions.Current(ctx)
	_, _ = c.DashboardSessions.List(ctx, botix.ListParams{})
	_, _ = c.DashboardSessions.Delete(ctx, fakeID)
	_, _ = c.OpenAPI(ctx)
	_, _ = c.ErrorCodes(ctx)
	_, _ = c.Changelog(ctx)
	out := [][2]string{}
	for r := range seen {
		out = append(out, r)
	}
	return map[string]any{"routes": out}, nil
}

// codes are the SDK's Code constants, read from its source (botix/errors.go,
// relative to the SDK module's directory, where the runner runs).
func codes(context.Context, []byte, *bufio.Reader) (any, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "botix/errors.go", nil, 0)
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Code" || len(v.Values) != 1 {
				continue
			}
			if lit, ok := v.Values[0].(*ast.BasicLit); ok {
				code, err := strconv.Unquote(lit.Value)
				if err != nil {
					return nil, err
				}
				out = append(out, code)
			}
		}
	}
	return map[string]any{"codes": out}, nil
}

// schemaTypes maps each OpenAPI component schema to the SDK type that stands
// for it.
var schemaTypes = map[string]any{
	"Contact": botix.Contact{}, "ContactCreate": botix.ContactCreate{}, "Count": botix.ContactCount{},
	"Message": botix.Message{}, "MessageCreate": botix.MessageCreate{},
	"CatalogImport": botix.CatalogImport{}, "CatalogImportCreate": botix.CatalogImportCreate{},
	"ScenarioRun": botix.ScenarioRun{}, "ScenarioRunCreate": botix.ScenarioRunCreate{},
	"WebhookEndpoint": botix.WebhookEndpoint{}, "WebhookEndpointWithSecret": botix.WebhookEndpointWithSecret{},
	"WebhookEndpointCreate": botix.WebhookEndpointCreate{}, "WebhookEndpointUpdate": botix.WebhookEndpointUpdate{},
	"EndpointThrottle": botix.EndpointThrottle{},
	"Deleted":          botix.Deleted{}, "TestEvent": botix.TestEvent{}, "Recovery": botix.Recovery{}, "RecoveryProgress": botix.RecoveryProgress{},
	"Delivery": botix.Delivery{}, "DeliveryDetail": botix.DeliveryDetail{}, "Attempt": botix.Attempt{},
	"DeliveryRequest": botix.DeliveryRequest{}, "Counts": botix.Counts{}, "DeliveryStats": botix.DeliveryStats{},
	"Inspector": botix.Inspector{}, "InspectorRequest": botix.InspectorRequest{}, "Event": botix.Event{},
	"ErrorCodeInfo":           botix.ErrorCodeInfo{},
	"DashboardSessionRequest": botix.DashboardSessionCreate{}, "DashboardSession": botix.DashboardSession{}, "DashboardSessionDeleted": botix.Deleted{},
	"CurrentDashboardSession": botix.CurrentDashboardSession{}, "ListedDashboardSession": botix.ListedDashboardSession{},
}

func schemas(context.Context, []byte, *bufio.Reader) (any, error) {
	out := map[string][]string{}
	for name, v := range schemaTypes {
		out[name] = jsonFields(reflect.TypeOf(v))
	}
	return map[string]any{"schemas": out}, nil
}

// jsonFields are the JSON names of a struct's fields, embedded structs
// included, json:"-" left out.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
		case f.Anonymous && name == "":
			out = append(out, jsonFields(f.Type)...)
		case f.IsExported():
			out = append(out, name)
		}
	}
	return out
}
