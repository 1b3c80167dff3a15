package integrator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apicontract"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/sdk"
	"github.com/botix/public-api/sdk/go/botix"
)

// queryRecorder notes the query parameter names of the last request.
type queryRecorder struct {
	mu    sync.Mutex
	names []string
}

func (r *queryRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.names = slices.Sorted(func(yield func(string) bool) {
		for name := range req.URL.Query() {
			if !yield(name) {
				return
			}
		}
	})
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func (r *queryRecorder) last() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.names
}

// fill sets every exported field of the struct v points to (embedded
// structs included) to a value that is not zero, and returns how many it
// set: each must reach the query string.
func fill(v any) int {
	n := 0
	var walk func(s reflect.Value)
	walk = func(s reflect.Value) {
		for i := range s.NumField() {
			f, sf := s.Field(i), s.Type().Field(i)
			if !sf.IsExported() {
				continue
			}
			switch {
			case sf.Anonymous && f.Kind() == reflect.Struct:
				walk(f)
				continue
			case f.Type() == reflect.TypeOf(time.Time{}):
				f.Set(reflect.ValueOf(time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)))
			case f.Kind() == reflect.String:
				f.SetString("x")
			case f.Kind() == reflect.Int:
				f.SetInt(1)
			case f.Kind() == reflect.Bool:
				f.SetBool(true)
			default:
				panic("fill: no value for " + sf.Name + " " + f.Type().String())
			}
			n++
		}
	}
	walk(reflect.ValueOf(v).Elem())
	return n
}

// documentedQuery is apicontract.QueryParameters of sdk/openapi.yaml.
func documentedQuery(t *testing.T) map[string]map[string]bool {
	t.Helper()
	q, err := apicontract.QueryParameters(sdk.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// takes reads what a handler's answer to an unknown parameter says it
// takes; ok is false when the handler did not refuse it (it reads no
// query at all).
var takes = regexp.MustCompile(`is not a parameter of this endpoint \((?:it takes none|it takes: ([^)]*))\)`)

func handlerQuery(t *testing.T, base, key, path string) (names []string, ok bool) {
	t.Helper()
	const probe = "botix_probe"
	r := apitest.Do(t, "GET", base+path+"?"+probe+"=1", nil, "Authorization", "Bearer "+key)
	var e struct {
		Error struct {
			Code    string            `json:"code"`
			Details map[string]string `json:"details"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &e)
	if r.Status != 400 || e.Error.Code != "INVALID_PARAMETER" {
		return nil, false
	}
	m := takes.FindStringSubmatch(e.Error.Details[probe])
	if m == nil {
		t.Fatalf("GET %s refused %s but does not say what it takes: %s", path, probe, r.Body)
	}
	if m[1] == "" {
		return []string{}, true
	}
	return strings.Split(m[1], ", "), true
}

// TestListParametersAgree: for every GET operation of /public/v1, the
// query parameters of sdk/openapi.yaml are exactly those its handler
// takes (as its answer to an unknown parameter lists them; every one
// refuses an unknown parameter, a route that takes none too), and the Go
// SDK's params struct sends exactly the documented ones that are not
// deprecated (offset mode is not in the SDK), each field one parameter.
func TestListParametersAgree(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	rec := &queryRecorder{}
	_, key := localtest.Project(t, rt, "")
	c := botix.NewClient(key, botix.WithBaseURL(rt.URL), botix.WithHTTPClient(&http.Client{Transport: rec}), botix.WithRetryPolicy(botix.RetryPolicy{MaxAttempts: 1}))
	ctx := context.Background()
	insp, err := c.Inspectors.Create(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The SDK call of each operation that reads its query, with its
	// params filled in; fields is how many fields were set.
	calls := map[string]func() (fields int){
		"/public/v1/contacts": func() int {
			p := botix.ContactListParams{}
			n := fill(&p)
			_, _ = c.Contacts.List(ctx, p)
			return n
		},
		"/public/v1/contacts/count": func() int { _, _ = c.Contacts.Count(ctx); return 0 },
		"/public/v1/messages": func() int {
			p := botix.MessageListParams{}
			n := fill(&p)
			_, _ = c.Messages.List(ctx, p)
			return n
		},
		"/public/v1/webhook-endpoints": func() int {
			p := botix.ListParams{}
			n := fill(&p)
			_, _ = c.WebhookEndpoints.List(ctx, p)
			return n
		},
		"/public/v1/webhook-deliveries": func() int {
			p := botix.DeliveryListParams{}
			n := fill(&p)
			_, _ = c.Deliveries.List(ctx, p)
			return n
		},
		"/public/v1/webhook-deliveries/stats": func() int {
			p := botix.StatsParams{}
			n := fill(&p)
			_, _ = c.Deliveries.Stats(ctx, p)
			return n
		},
		"/public/v1/inspectors/{id}/requests": func() int {
			p := botix.ListParams{}
			n := fill(&p)
			_, _ = c.Inspectors.Requests(ctx, insp.ID, p)
			return n
		},
		"/public/v1/events": func() int {
			p := botix.EventListParams{}
			n := fill(&p)
			_, _ = c.Events.List(ctx, p)
			return n
		},
		"/public/v1/dashboard-sessions": func() int {
			p := botix.ListParams{}
			n := fill(&p)
			_, _ = c.DashboardSessions.List(ctx, p)
			return n
		},
	}
	documented := documentedQuery(t)
	paths := make([]string, 0, len(documented))
	for p := range documented {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			var doc, notDeprecated []string
			for name, deprecated := range documented[path] {
				doc = append(doc, name)
				if !deprecated {
					notDeprecated = append(notDeprecated, name)
				}
			}
			sort.Strings(doc)
			sort.Strings(notDeprecated)
			concrete := strings.ReplaceAll(path, "{id}", url.PathEscape(insp.ID))
			handler, reads := handlerQuery(t, rt.URL, key, concrete)
			call, inSDK := calls[path]
			if !reads {
				t.Fatalf("the route ignores an unknown query parameter: it must refuse it (400 INVALID_PARAMETER), as a filter it cannot apply must not look honoured")
			}
			if len(handler) == 0 && !inSDK {
				// A get-by-id takes no query: nothing to document.
				if len(doc) > 0 {
					t.Errorf("the handler takes no query, yet the document has %v", doc)
				}
				return
			}
			sort.Strings(handler)
			if !slices.Equal(doc, handler) {
				t.Errorf("sdk/openapi.yaml documents %v; the handler takes %v", doc, handler)
			}
			if !inSDK {
				t.Fatalf("the handler reads its query: add its SDK call to this test")
			}
			fields := call()
			sent := rec.last()
			if !slices.Equal(sent, notDeprecated) {
				t.Errorf("the SDK sends %v; the document's parameters (offset mode aside) are %v", sent, notDeprecated)
			}
			if fields != len(sent) {
				t.Errorf("the SDK's params have %d fields but send %d parameters %v: a field reaches no parameter", fields, len(sent), sent)
			}
		})
	}
}

// TestContactTagFilter: ContactListParams.Tag lists the contacts that
// carry the tag, and only them, across pages (the cursor keeps the
// filter).
func TestContactTagFilter(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	c := client(t, rt, rt.URL)
	ctx := context.Background()
	want := map[string]bool{}
	for i, tags := range [][]string{{"vip"}, {"lead"}, {"vip", "lead"}, nil, {"vip"}} {
		ct, err := c.Contacts.Create(ctx, botix.ContactCreate{Phone: fmt.Sprintf("+799900051%02d", i), Name: "Ivan", Tags: tags})
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(tags, "vip") {
			want[ct.ID] = true
		}
	}
	cases := []struct {
		name  string
		limit int
	}{
		{"one page holds every tagged contact", 0},
		{"a walk of one per page keeps the filter", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]bool{}
			pages := 0
			p := botix.ContactListParams{Tag: "vip", ListParams: botix.ListParams{Limit: tc.limit}}
			for {
				page, err := c.Contacts.List(ctx, p)
				if err != nil {
					t.Fatal(err)
				}
				pages++
				for _, ct := range page.Data {
					if !slices.Contains(ct.Tags, "vip") || got[ct.ID] {
						t.Errorf("listed %s (tags %v) under tag vip", ct.ID, ct.Tags)
					}
					got[ct.ID] = true
				}
				if !page.HasMore {
					break
				}
				p.Cursor = page.NextCursor
			}
			if len(got) != len(want) {
				t.Errorf("tag vip listed %d contacts in %d pages; %d carry it", len(got), pages, len(want))
			}
		})
	}
	t.Run("another filter's cursor is refused", func(t *testing.T) {
		page, err := c.Contacts.List(ctx, botix.ContactListParams{Tag: "vip", ListParams: botix.ListParams{Limit: 1}})
		if err != nil || page.NextCursor == "" {
			t.Fatalf("%v %+v", err, page)
		}
		_, err = c.Contacts.List(ctx, botix.ContactListParams{Tag: "lead", ListParams: botix.ListParams{Cursor: page.NextCursor}})
		var e *botix.Error
		if !errors.As(err, &e) || e.Code != botix.CodeInvalidCursor {
			t.Fatalf("a vip cursor used with tag lead: %v", err)
		}
	})
}
