// Package apicontract checks HTTP exchanges against the API's OpenAPI
// document (sdk/openapi.yaml) with pb33f/libopenapi-validator in strict
// mode: an undeclared status, header or field, or a wrong type, is a
// problem. The local runtime's tests run every exchange through it.
package apicontract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/botix/public-api/infra/internal/exchange"
	"github.com/botix/public-api/sdk"
)

// Exchange is one request and its answer, read whole, as the local
// runtime's API Gateway records them (package exchange holds the type, so
// that this package does not link the runtime).
type Exchange = exchange.Exchange

// webhookHeader is a required header of a webhook and the schema of its
// value.
type webhookHeader struct {
	name   string
	schema *base.Schema
}

// Validator checks exchanges; it is safe for concurrent use.
type Validator struct {
	mu      sync.Mutex
	v       validator.Validator
	loose   validator.Validator
	hooks   map[string]*base.Schema    // webhook body schemas by event type
	headers map[string][]webhookHeader // required headers by event type
	schemas schema_validation.SchemaValidator
}

var (
	shared     *Validator
	sharedErr  error
	sharedOnce sync.Once
)

// Shared returns one Validator for the process (building one parses and
// compiles the whole document).
func Shared() (*Validator, error) {
	sharedOnce.Do(func() { shared, sharedErr = New(sdk.OpenAPI) })
	return shared, sharedErr
}

// New builds a validator of the document spec.
func New(spec []byte) (*Validator, error) {
	doc, err := libopenapi.NewDocument(spec)
	if err != nil {
		return nil, fmt.Errorf("apicontract: %w", err)
	}
	v, errs := validator.NewValidator(doc, config.WithStrictMode(), config.WithFormatAssertions())
	if len(errs) > 0 {
		return nil, fmt.Errorf("apicontract: %v", errs)
	}
	// The document itself (GET /public/v1/openapi.json) is compared with
	// sdk/openapi.yaml byte for byte by its own test; property by property
	// it is checked without strict mode.
	loose, errs := validator.NewValidator(doc, config.WithFormatAssertions())
	if len(errs) > 0 {
		return nil, fmt.Errorf("apicontract: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		return nil, fmt.Errorf("apicontract: the document is not valid OpenAPI: %s", describe(verrs))
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("apicontract: %w", err)
	}
	c := &Validator{v: v, loose: loose, hooks: map[string]*base.Schema{}, headers: map[string][]webhookHeader{}, schemas: schema_validation.NewSchemaValidator()}
	for name, item := range model.Model.Webhooks.FromOldest() {
		op := item.Post
		if op == nil || op.RequestBody == nil {
			return nil, fmt.Errorf("apicontract: webhook %s has no POST body", name)
		}
		media, ok := op.RequestBody.Content.Get("application/json")
		if !ok || media.Schema == nil {
			return nil, fmt.Errorf("apicontract: webhook %s has no JSON schema", name)
		}
		c.hooks[name] = media.Schema.Schema()
		for _, p := range op.Parameters {
			if p.In == "header" && p.Required != nil && *p.Required {
				h := webhookHeader{name: p.Name}
				if p.Schema != nil {
					h.schema = p.Schema.Schema()
				}
				c.headers[name] = append(c.headers[name], h)
			}
		}
	}
	return c, nil
}

// CheckWebhook returns how a webhook request breaks the document's
// webhooks section (nil when it does not): its body against the schema of
// its event type, and every required header's presence and value against
// the header's schema (the signature lists' formats among them).
func (c *Validator) CheckWebhook(header http.Header, body []byte) []string {
	var ev struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(body, &ev); err != nil {
		return []string{"the body is not JSON: " + err.Error()}
	}
	schema, ok := c.hooks[ev.Type]
	if !ok {
		return []string{fmt.Sprintf("event type %q is not in the document's webhooks", ev.Type)}
	}
	var problems []string
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range c.headers[ev.Type] {
		value := header.Get(h.name)
		if value == "" {
			problems = append(problems, "no "+h.name+" header")
			continue
		}
		// Header values are strings; the document types every webhook
		// header as one.
		asJSON, _ := json.Marshal(value)
		if h.schema != nil {
			if ok, errs := c.schemas.ValidateSchemaBytes(h.schema, asJSON); !ok {
				problems = append(problems, fmt.Sprintf("header %s %q: %s", h.name, value, describe(errs)))
			}
		}
	}
	if ok, errs := c.schemas.ValidateSchemaBytes(schema, body); !ok {
		problems = append(problems, "body: "+describe(errs))
	}
	return problems
}

// Check returns how ex breaks the document (nil when it does not). The
// answer is always checked. The request is checked when the API accepted
// it (below 400): a request the document calls invalid must be refused —
// except at the inspectors' capture URL, which takes anything.
// Answers of the $default route (any unknown path) are checked by the
// HTTP contract tests, not here: no document can list unknown paths.
func (c *Validator) Check(ex Exchange) []string {
	if ex.Route == "$default" {
		return nil
	}
	req, err := http.NewRequest(ex.Method, greedyAsOneSegment(ex.Route, ex.URL), bytes.NewReader(ex.Body))
	if err != nil {
		return []string{err.Error()}
	}
	req.Header = contractHeaders(ex.Method, ex.Header)
	resp := &http.Response{StatusCode: ex.Status, Header: ex.ResponseHeader.Clone(), Body: io.NopCloser(bytes.NewReader(ex.ResponseBody)), Request: req}
	c.mu.Lock()
	defer c.mu.Unlock()
	var problems []string
	// The capture URL accepts any body by design (it shows what a sender
	// sent); its answers are checked like every other.
	if ex.Status < 400 && !strings.HasPrefix(ex.Route, "ANY /inspect/") {
		if ok, errs := c.v.ValidateHttpRequestSync(req); !ok {
			problems = append(problems, "request: "+describe(errs))
		}
		req.Body = io.NopCloser(bytes.NewReader(ex.Body))
	}
	v := c.v
	if ex.Route == "GET /public/v1/openapi.json" {
		v = c.loose
	}
	if ok, errs := v.ValidateHttpResponse(req, resp); !ok {
		problems = append(problems, "response: "+describe(errs))
	}
	return problems
}

// greedyAsOneSegment rewrites the URL of a greedy route ({proxy+}, which
// OpenAPI cannot express) so that what the greedy parameter matched is one
// path segment, as the document declares it.
func greedyAsOneSegment(route, rawURL string) string {
	_, path, ok := strings.Cut(route, " ")
	if !ok || !strings.HasSuffix(path, "+}") {
		return rawURL
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	fixed := strings.Count(path, "/")
	parts := strings.SplitN(strings.TrimPrefix(u.Path, "/"), "/", fixed)
	if len(parts) == fixed {
		parts[fixed-1] = strings.ReplaceAll(parts[fixed-1], "/", "~")
	}
	u.Path = "/" + strings.Join(parts, "/")
	return u.String()
}

// contractHeaders keeps the request headers the contract speaks of. The
// rest — what browsers add (Sec-Fetch-*, Accept-Language), a harmless
// Idempotency-Key on a GET — is the client's business, not the API's.
func contractHeaders(method string, h http.Header) http.Header {
	out := http.Header{}
	for _, name := range []string{"Authorization", "Content-Type", "Content-Length"} {
		if v, ok := h[name]; ok {
			out[name] = v
		}
	}
	if v, ok := h["Idempotency-Key"]; ok && method != http.MethodGet {
		out["Idempotency-Key"] = v
	}
	return out
}

func describe[E error](errs []E) string {
	var parts []string
	for _, e := range errs {
		parts = append(parts, e.Error())
	}
	return strings.Join(parts, "; ")
}
