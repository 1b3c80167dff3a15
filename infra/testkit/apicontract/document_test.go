package apicontract_test

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/testkit/apicontract"
	"github.com/botix/public-api/internal/auth"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/webhook"
	"github.com/botix/public-api/sdk"
)

type document struct {
	Paths      map[string]map[string]yaml.Node `yaml:"paths"`
	Webhooks   map[string]yaml.Node            `yaml:"webhooks"`
	Components struct {
		Schemas map[string]struct {
			Enum       []string             `yaml:"enum"`
			Properties map[string]yaml.Node `yaml:"properties"`
		} `yaml:"schemas"`
	} `yaml:"components"`
}

func load(t *testing.T) document {
	t.Helper()
	var d document
	if err := yaml.Unmarshal(sdk.OpenAPI, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// operations are where a route of template.yaml stands in the document:
// its path ({proxy+} as {proxy}: OpenAPI has no greedy parameter) and its
// methods (ANY as the five the capture URL declares).
func operations(r template.Route) (string, []string) {
	path := strings.ReplaceAll(r.Path, "+}", "}")
	if r.Method == "ANY" {
		return path, []string{"get", "post", "put", "patch", "delete"}
	}
	return path, []string{strings.ToLower(r.Method)}
}

// TestEveryRouteIsDocumented: the document's operations are exactly the
// routes of template.yaml ($default, which answers any unknown path, aside).
func TestEveryRouteIsDocumented(t *testing.T) {
	if _, err := apicontract.New(sdk.OpenAPI); err != nil {
		t.Fatal(err)
	}
	d := load(t)
	tpl, err := template.LoadRepo()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, r := range tpl.Routes() {
		if r.Key == "$default" {
			continue
		}
		path, ms := operations(r)
		for _, m := range ms {
			served[m+" "+path] = true
			if _, ok := d.Paths[path][m]; !ok {
				t.Errorf("route %s (%s) is not in sdk/openapi.yaml as %s %s", r.Key, r.Function, m, path)
			}
		}
	}
	for path, item := range d.Paths {
		for m := range item {
			if slices.Contains(methods, m) && !served[m+" "+path] {
				t.Errorf("sdk/openapi.yaml has %s %s, which no route of template.yaml serves", m, path)
			}
		}
	}
}

// TestCodesAndEventsMatchTheCode: the document's error codes are the code
// table's, and its webhooks and event type enum are the event types the
// code can emit.
func TestCodesAndEventsMatchTheCode(t *testing.T) {
	d := load(t)
	var codes []string
	for c := range httpapi.Codes() {
		codes = append(codes, string(c))
	}
	sort.Strings(codes)
	documented := slices.Sorted(slices.Values(d.Components.Schemas["ErrorCode"].Enum))
	if !slices.Equal(codes, documented) {
		t.Errorf("ErrorCode enum %v; the code table has %v", documented, codes)
	}
	types := slices.Sorted(slices.Values(domain.EventTypes))
	if got := slices.Sorted(slices.Values(d.Components.Schemas["EventType"].Enum)); !slices.Equal(got, types) {
		t.Errorf("EventType enum %v; the code emits %v", got, types)
	}
	var hooks []string
	for name := range d.Webhooks {
		hooks = append(hooks, name)
	}
	if slices.Sort(hooks); !slices.Equal(hooks, types) {
		t.Errorf("webhooks %v; the code emits %v", hooks, types)
	}
	var health struct {
		Enum []string `yaml:"enum"`
	}
	state := d.Components.Schemas["EndpointHealth"].Properties["state"]
	if err := state.Decode(&health); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(health.Enum, webhook.HealthStates) {
		t.Errorf("EndpointHealth.state enum %v; the code has %v, worst first", health.Enum, webhook.HealthStates)
	}
	bounds := fmt.Sprint(webhook.LatencyBoundsMs[:])
	if got := fmt.Sprint(d.Components.Schemas["LatencyBound"].Enum); got != bounds {
		t.Errorf("LatencyBound enum %v; the code's bounds are %v", got, bounds)
	}
}

// TestTheValidatorCatchesDrift: the checks the tests rely on fail on an
// undeclared status, an undeclared header, an undeclared field, a wrong
// type, and an invalid request the API accepted.
func TestTheValidatorCatchesDrift(t *testing.T) {
	v, err := apicontract.Shared()
	if err != nil {
		t.Fatal(err)
	}
	contact := `{"id":"ct_01JDQ4Z8M3V6K2N9P5R7T1W0XY","phone":"+79990000000","name":"Ivan","tags":[],"created_at":"2026-11-29T08:48:17.555Z"}`
	ok := apicontract.Exchange{
		Method: "GET", URL: "http://127.0.0.1:8080/public/v1/contacts/ct_01JDQ4Z8M3V6K2N9P5R7T1W0XY", Header: http.Header{"Authorization": {"Bearer bx_x"}},
		Route: "GET /public/v1/contacts/{id}", Status: 200,
		ResponseHeader: http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_01JDQ4Z8M3V6K2N9P5R7T1W0XY"}},
		ResponseBody:   []byte(contact),
	}
	if p := v.Check(ok); len(p) != 0 {
		t.Fatalf("a conforming exchange: %v", p)
	}
	cases := map[string]func(*apicontract.Exchange){
		"an undeclared status": func(e *apicontract.Exchange) { e.Status = 418 },
		"an undeclared header": func(e *apicontract.Exchange) { e.ResponseHeader.Set("X-Debug", "1") },
		"an undeclared field":  func(e *apicontract.Exchange) { e.ResponseBody = []byte(contact[:len(contact)-1] + `,"score":1}`) },
		"a wrong type": func(e *apicontract.Exchange) {
			e.ResponseBody = []byte(strings.Replace(contact, `"tags":[]`, `"tags":"none"`, 1))
		},
		"no X-Request-Id": func(e *apicontract.Exchange) { e.ResponseHeader.Del("X-Request-Id") },
		"an invalid request accepted": func(e *apicontract.Exchange) {
			e.Method, e.URL, e.Route, e.Status = "POST", "http://127.0.0.1:8080/public/v1/contacts", "POST /public/v1/contacts", 201
			e.Header.Set("Content-Type", "application/json")
			e.Header.Set("Idempotency-Key", "3f0c8a4e-2d3b-4c8e-9f1a-7b6d5e4c3a21")
			e.Body = []byte(`{"phone":"8 999 000-00-00","name":"Ivan"}`)
		},
	}
	for name, breakIt := range cases {
		t.Run(name, func(t *testing.T) {
			e := ok
			e.Header, e.ResponseHeader = ok.Header.Clone(), ok.ResponseHeader.Clone()
			breakIt(&e)
			if p := v.Check(e); len(p) == 0 {
				t.Fatal("not caught")
			}
		})
	}
}

// TestTheValidatorCatchesWebhookDrift: a webhook request is checked
// against the document's webhooks — its body, and each signature header's
// presence and format, lists of several signatures (a rotation) included.
func TestTheValidatorCatchesWebhookDrift(t *testing.T) {
	v, err := apicontract.Shared()
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"id":"evt_01JDQ7X3ZV8N5W2K4R6T9Y1B3H","type":"contact.created","created_at":"2026-11-29T08:00:00.000Z","project_id":"prj_01JDQ7X3ZV8N5W2K4R6T9Y1B3E",` +
		`"data":{"id":"ct_01JDQ7X3ZV8N5W2K4R6T9Y1B3C","phone":"+79990000000","name":"Ivan","tags":[],"created_at":"2026-11-29T08:00:00.000Z"}}`)
	hex1, hex2 := strings.Repeat("a1", 32), strings.Repeat("b2", 32)
	std1, std2 := "v1,"+strings.Repeat("K", 43)+"=", "v1,"+strings.Repeat("Q", 43)+"="
	header := func(botix, std string) http.Header {
		h := http.Header{}
		h.Set("X-Botix-Event", "contact.created")
		h.Set("X-Botix-Request-Id", "req_01JDQ7X3ZV8N5W2K4R6T9Y1B3Q")
		h.Set("X-Delivery-Attempt", "1")
		h.Set("Webhook-Id", "evt_01JDQ7X3ZV8N5W2K4R6T9Y1B3H")
		h.Set("Webhook-Timestamp", "1795939200")
		h.Set("X-Botix-Signature", botix)
		h.Set("Webhook-Signature", std)
		h.Set("traceparent", "00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01")
		return h
	}
	cases := []struct {
		name   string
		header http.Header
		ok     bool
	}{
		{"one secret: one signature in each header", header(hex1, std1), true},
		{"a rotation: two signatures in each header", header(hex1+","+hex2, std1+" "+std2), true},
		{"X-Botix-Signature entries separated by a space", header(hex1+" "+hex2, std1), false},
		{"X-Botix-Signature entries separated by comma and space", header(hex1+", "+hex2, std1), false},
		{"X-Botix-Signature in upper case", header(strings.ToUpper(hex1), std1), false},
		{"X-Botix-Signature with a trailing comma", header(hex1+",", std1), false},
		{"webhook-signature entries separated by a comma", header(hex1, std1+","+std2), false},
		{"no X-Botix-Signature", header("", std1), false},
		{"no traceparent", func() http.Header { h := header(hex1, std1); h.Del("traceparent"); return h }(), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if p := v.CheckWebhook(c.header, body); (len(p) == 0) != c.ok {
				t.Fatalf("problems %v, want conforming = %v", p, c.ok)
			}
		})
	}
}

// TestDashboardSessionBoundsAreTheCodes: the document's scopes of a
// dashboard session are auth.Scopes, and its ttl_seconds bounds and
// default are the code's.
func TestDashboardSessionBoundsAreTheCodes(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas struct {
				Scope struct {
					Enum []string `yaml:"enum"`
				} `yaml:"DashboardSessionScope"`
				Request struct {
					Properties struct {
						TTL struct {
							Minimum int `yaml:"minimum"`
							Maximum int `yaml:"maximum"`
							Default int `yaml:"default"`
						} `yaml:"ttl_seconds"`
					} `yaml:"properties"`
				} `yaml:"DashboardSessionRequest"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(sdk.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	var scopes []string
	for _, s := range auth.Scopes {
		scopes = append(scopes, string(s))
	}
	if got := doc.Components.Schemas.Scope.Enum; !slices.Equal(got, scopes) {
		t.Errorf("DashboardSessionScope %v; the code has %v", got, scopes)
	}
	ttl := doc.Components.Schemas.Request.Properties.TTL
	if got, want := []int{ttl.Minimum, ttl.Maximum, ttl.Default}, sessionTTLSeconds(); !slices.Equal(got, want) {
		t.Errorf("ttl_seconds minimum, maximum, default %v; the code says %v", got, want)
	}
}
