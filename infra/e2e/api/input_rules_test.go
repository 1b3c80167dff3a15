package api_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/localtest"
)

// TestTheServerTakesExactlyWhatTheDocumentSays: input that sdk/openapi.yaml
// forbids is refused with the documented status, code and field — never
// taken with a 2xx, never answered as a syntax error when it is a type
// error. (Every exchange here is also checked against the document.)
func TestTheServerTakesExactlyWhatTheDocumentSays(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	_, key := localtest.Project(t, rt, "")
	c := localtest.Client{T: t, Base: rt.URL, Key: key}
	contact := c.Contact("+79990002000")
	hourAgo := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	twoHoursAgo := time.Now().Add(-2 * time.Hour).UTC().Format(time.RFC3339)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code, field              string
	}{
		{"price as a string that is a number", "POST", "/public/v1/catalog/imports", `{"items":[{"sku":"MUG","name":"Mug","price":"1.5"}]}`, 422, "VALIDATION_FAILED", "items[0].price"},
		{"price as a string that is not a number", "POST", "/public/v1/catalog/imports", `{"items":[{"sku":"MUG","name":"Mug","price":"abc"}]}`, 422, "VALIDATION_FAILED", "items[0].price"},
		{"price as a boolean", "POST", "/public/v1/catalog/imports", `{"items":[{"sku":"MUG","name":"Mug","price":true}]}`, 422, "VALIDATION_FAILED", "items[0].price"},
		{"price with five decimals", "POST", "/public/v1/catalog/imports", `{"items":[{"sku":"MUG","name":"Mug","price":1.00001}]}`, 422, "VALIDATION_FAILED", "items[0].price"},
		{"a price that is a number", "POST", "/public/v1/catalog/imports", `{"items":[{"sku":"MUG","name":"Mug","price":1.5}]}`, 202, "", ""},
		{"null variables", "POST", "/public/v1/scenarios/welcome/runs", `{"contact_id":"` + contact + `","variables":null}`, 422, "VALIDATION_FAILED", "variables"},
		{"null email", "POST", "/public/v1/contacts", `{"phone":"+79990002001","name":"Ivan","email":null}`, 422, "VALIDATION_FAILED", "email"},
		{"null inside an item", "POST", "/public/v1/catalog/imports", `{"items":[{"sku":"MUG","name":null,"price":1}]}`, 422, "VALIDATION_FAILED", "items[0].name"},
		{"an endpoint URL with a raw space", "POST", "/public/v1/webhook-endpoints", `{"url":"http://127.0.0.1:9/a b","events":["*"]}`, 422, "VALIDATION_FAILED", "url"},
		{"an endpoint URL with a space in its query", "POST", "/public/v1/webhook-endpoints", `{"url":"https://example.invalid/h?x=1 HTTP/1.1","events":["*"]}`, 422, "VALIDATION_FAILED", "url"},
		{"full-width loopback digits", "POST", "/public/v1/webhook-endpoints", `{"url":"https://１２７.０.０.１/h","events":["*"]}`, 422, "VALIDATION_FAILED", "url"},
		{"ideographic full stops", "POST", "/public/v1/webhook-endpoints", `{"url":"https://127。0。0。1/h","events":["*"]}`, 422, "VALIDATION_FAILED", "url"},
		{"full-width localhost", "POST", "/public/v1/webhook-endpoints", `{"url":"https://ｌｏｃａｌｈｏｓｔ/h","events":["*"]}`, 422, "VALIDATION_FAILED", "url"},
		{"an empty endpoint_id filter", "GET", "/public/v1/webhook-deliveries?endpoint_id=", "", 400, "INVALID_PARAMETER", "endpoint_id"},
		{"an empty since", "GET", "/public/v1/webhook-deliveries?since=", "", 400, "INVALID_PARAMETER", "since"},
		{"an empty type", "GET", "/public/v1/events?type=", "", 400, "INVALID_PARAMETER", "type"},
		{"an empty tag", "GET", "/public/v1/contacts?tag=", "", 400, "INVALID_PARAMETER", "tag"},
		{"an empty cursor", "GET", "/public/v1/contacts?cursor=", "", 400, "INVALID_PARAMETER", "cursor"},
		{"until before since on the delivery log", "GET", "/public/v1/webhook-deliveries?since=" + hourAgo + "&until=" + twoHoursAgo, "", 400, "INVALID_PARAMETER", "until"},
		{"a query parameter on a read that takes none", "GET", "/public/v1/contacts/" + contact + "?expand=messages", "", 400, "INVALID_PARAMETER", "expand"},
		{"a filter on the count, which cannot filter", "GET", "/public/v1/contacts/count?tag=vip", "", 400, "INVALID_PARAMETER", "tag"},
		{"a query parameter on a mutation", "POST", "/public/v1/contacts?dry_run=true", `{"phone":"+79990002002","name":"Ivan"}`, 400, "INVALID_PARAMETER", "dry_run"},
		{"the stats take their filters", "GET", "/public/v1/webhook-deliveries/stats?granularity=day", "", 200, "", ""},
		{"until equal to since on the delivery log", "GET", "/public/v1/webhook-deliveries?since=" + hourAgo + "&until=" + hourAgo, "", 200, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r = c.Get(tc.path)
			if tc.method == "POST" {
				r = c.Post(tc.path, uuid.NewString(), tc.body)
			}
			if r.Status != tc.status || r.ErrorCode() != tc.code {
				t.Fatalf("%d %s, want %d %s", r.Status, r.Body, tc.status, tc.code)
			}
			if tc.field == "" {
				return
			}
			var env struct {
				Error struct{ Field string } `json:"error"`
			}
			r.JSON(t, &env)
			if env.Error.Field != tc.field {
				t.Fatalf("field %q, want %q: %s", env.Error.Field, tc.field, r.Body)
			}
		})
	}
	t.Run("an international host is stored as it is dialled", func(t *testing.T) {
		r := c.Post("/public/v1/webhook-endpoints", uuid.NewString(), `{"url":"https://ＥＸＡＭＰＬＥ．invalid:8443/h","events":["*"]}`)
		if r.Status != 201 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		var ep struct{ URL string }
		if err := json.Unmarshal(r.Body, &ep); err != nil || ep.URL != "https://example.invalid:8443/h" {
			t.Fatalf("url %q (%v)", ep.URL, err)
		}
		if strings.ContainsRune(string(r.Body), 'Ｅ') {
			t.Fatalf("the full-width form was kept: %s", r.Body)
		}
	})
}
