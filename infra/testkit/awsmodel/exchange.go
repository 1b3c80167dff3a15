package awsmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/botix/public-api/infra/internal/exchange"
)

// Exchange is one AWS API request and its answer, read whole, as the
// local runtime records it (package exchange holds the type for both).
type Exchange = exchange.AWS

// Direction tells which half of an exchange a violation is in.
type Direction string

// The two halves of an exchange.
const (
	Request  Direction = "request"
	Response Direction = "response"
)

// Violation is a way an exchange breaks its service's model.
type Violation struct {
	Service   string // the model's serviceId, "AWS" when no model knows the request
	Operation string // "" when the request names no operation of the model
	Direction Direction
	Path      string // the member path (Entries[3].MessageBody); "" for the whole message
	Problem   string
}

// String reads "SQS SendMessageBatch request: Entries[3].MessageBody: length 0 < min 1".
func (v Violation) String() string {
	head := strings.Join(strings.Fields(v.Service+" "+v.Operation+" "+string(v.Direction)), " ")
	if v.Path == "" {
		return head + ": " + v.Problem
	}
	return head + ": " + v.Path + ": " + v.Problem
}

// Result is what Check found: the service and operation of the exchange
// (Service "AWS" and Operation "" when no model knows it) and its
// violations.
type Result struct {
	Service, Operation string
	Violations         []Violation
}

// commonErrors are the error codes any AWS API may answer although no
// operation of its model declares them: the "Common Errors" (newer:
// "Common error types") page of each service's API reference, e.g.
// docs.aws.amazon.com/amazondynamodb/latest/APIReference/CommonErrors.html;
// the -Exception spellings the JSON services use for the signature errors
// (DynamoDB Developer Guide, "Error handling with DynamoDB");
// and SerializationException, the JSON protocols' answer to a body that
// does not decode (DynamoDB and SQS answer it; no page lists it).
var commonErrors = map[string]bool{
	"AccessDeniedException":               true,
	"ExpiredTokenException":               true,
	"IncompleteSignature":                 true,
	"IncompleteSignatureException":        true,
	"InternalFailure":                     true,
	"InvalidAction":                       true,
	"InvalidClientTokenId":                true,
	"InvalidParameterCombination":         true,
	"InvalidParameterValue":               true,
	"InvalidQueryParameter":               true,
	"MalformedHttpRequestException":       true,
	"MalformedQueryString":                true,
	"MissingAction":                       true,
	"MissingAuthenticationToken":          true,
	"MissingAuthenticationTokenException": true,
	"MissingParameter":                    true,
	"NotAuthorized":                       true,
	"OptInRequired":                       true,
	"RequestAbortedException":             true,
	"RequestEntityTooLargeException":      true,
	"RequestExpired":                      true,
	"RequestTimeoutException":             true,
	"SerializationException":              true,
	"ServiceUnavailable":                  true,
	"ThrottlingException":                 true,
	"UnknownOperationException":           true,
	"UnrecognizedClientException":         true,
	"ValidationError":                     true,
	"ValidationException":                 true,
}

// Check validates an exchange against the model of its service: the
// request against the operation's input, the answer against its output or
// against the error it names.
func (s *Set) Check(ex Exchange) Result {
	m, op, labels, why := s.find(ex)
	if op == nil {
		svc := "AWS"
		if m != nil {
			svc = m.Service
		}
		return Result{Service: svc, Violations: []Violation{{Service: svc, Direction: Request, Problem: why}}}
	}
	res := Result{Service: m.Service, Operation: op.Name}
	add := func(dir Direction, ps []problem) {
		for _, p := range ps {
			res.Violations = append(res.Violations, Violation{Service: m.Service, Operation: op.Name, Direction: dir, Path: p.path, Problem: p.what})
		}
	}
	add(Request, m.checkRequest(op, ex, labels))
	add(Response, m.checkResponse(op, ex))
	return res
}

// find names the model and operation of a request: by X-Amz-Target for
// the JSON protocol, by method and URI template for REST-JSON (among the
// models of the service the signature names, when it names one).
func (s *Set) find(ex Exchange) (*Model, *operation, map[string]string, string) {
	if target := ex.RequestHeader.Get("X-Amz-Target"); target != "" {
		prefix, name, _ := strings.Cut(target, ".")
		for _, m := range s.models {
			if m.Protocol == "json" && m.TargetPrefix == prefix {
				if op := m.operations[name]; op != nil {
					return m, op, nil, ""
				}
				return m, nil, nil, fmt.Sprintf("X-Amz-Target %q names no operation of %s", target, m.Service)
			}
		}
		return nil, nil, nil, fmt.Sprintf("X-Amz-Target %q names no modelled service", target)
	}
	scope := signingService(ex.RequestHeader.Get("Authorization"))
	for _, m := range s.models {
		if m.Protocol != "rest-json" {
			continue
		}
		if scope != "" && !strings.EqualFold(scope, m.SigningName) {
			continue
		}
		for _, rt := range m.routes {
			if labels, ok := rt.match(ex.Method, ex.URL.EscapedPath(), ex.URL.Query()); ok {
				return m, rt.op, labels, ""
			}
		}
	}
	return nil, nil, nil, fmt.Sprintf("%s %s matches no operation of the models (%s)", ex.Method, ex.URL.EscapedPath(), s.names())
}

func (s *Set) names() string {
	var out []string
	for _, m := range s.models {
		out = append(out, m.Service)
	}
	return strings.Join(out, ", ")
}

// signingService is the service of a SigV4 Authorization header's
// credential scope (key/date/region/service/aws4_request), or "".
func signingService(auth string) string {
	_, cred, ok := strings.Cut(auth, "Credential=")
	if !ok {
		return ""
	}
	cred, _, _ = strings.Cut(cred, ",")
	parts := strings.Split(cred, "/")
	if len(parts) != 5 {
		return ""
	}
	return parts[3]
}

func (m *Model) checkRequest(op *operation, ex Exchange, labels map[string]string) []problem {
	w := &walker{m: m}
	if op.Input == nil {
		w.emptyBody(ex.RequestBody)
		return w.problems
	}
	if m.Protocol == "json" {
		if obj, ok := w.object(ex.RequestBody); ok {
			w.structure("", op.Input.Shape, obj, nil)
		}
		return w.problems
	}
	in := m.shapes[op.Input.Shape]
	located := map[string]any{}
	query := ex.URL.Query()
	known := map[string]bool{}
	for name, ref := range in.Members {
		switch ref.Location {
		case "uri":
			if v, ok := labels[ref.LocationName]; ok {
				located[name] = v
				if s := m.shapes[ref.Shape]; s.Type != "string" {
					if v, ok := w.text(name, ref, []string{v}); ok {
						located[name] = v
					}
				}
			}
		case "querystring":
			known[ref.LocationName] = true
			if vs, ok := query[ref.LocationName]; ok {
				if v, ok := w.text(name, ref, vs); ok {
					located[name] = v
				}
			}
		case "header":
			if vs := ex.RequestHeader.Values(ref.LocationName); len(vs) > 0 {
				if v, ok := w.text(name, ref, vs); ok {
					located[name] = v
				}
			}
		}
	}
	for _, k := range sortedKeys(anyValues(query)) {
		if !known[k] {
			w.add("?"+k, "not a query parameter of %s", op.Name)
		}
	}
	w.restBody(op.Input.Shape, ex.RequestBody, located)
	return w.problems
}

// restBody checks a REST-JSON body: the payload member's when the shape
// names one (a blob is taken as it is), else the body members.
func (w *walker) restBody(name string, body []byte, located map[string]any) {
	s := w.m.shapes[name]
	if s.Payload != "" {
		ref := s.Members[s.Payload]
		ps := w.m.shapes[ref.Shape]
		switch {
		case ps.Type == "blob" || ps.Type == "string" || ps.Streaming || ps.EventStream:
			// A raw payload (Lambda's Invoke payload): the model says
			// nothing about its content.
			if len(body) > 0 {
				located[s.Payload] = rawPayload{}
			}
		case len(bytes.TrimSpace(body)) > 0:
			obj, ok := w.object(body)
			if !ok {
				return
			}
			located[s.Payload] = obj
		}
		w.structure("", name, nil, located)
		return
	}
	if obj, ok := w.object(body); ok {
		w.structure("", name, obj, located)
	}
}

func (m *Model) checkResponse(op *operation, ex Exchange) []problem {
	w := &walker{m: m}
	success := ex.Status >= 200 && ex.Status < 300
	if m.Protocol == "json" {
		success = ex.Status == http.StatusOK
	}
	if !success {
		w.errorResponse(op, ex)
		return w.problems
	}
	if op.Output == nil {
		w.emptyBody(ex.ResponseBody)
		return w.problems
	}
	if m.Protocol == "json" {
		if obj, ok := w.object(ex.ResponseBody); ok {
			w.structure("", op.Output.Shape, obj, nil)
		}
		return w.problems
	}
	located := w.responseLocated(op.Output.Shape, ex)
	out := m.shapes[op.Output.Shape]
	statusMember := false
	for _, ref := range out.Members {
		statusMember = statusMember || ref.Location == "statusCode"
	}
	if !statusMember && ex.Status != op.HTTP.ResponseCode {
		w.add("", "status %d, the operation answers %d", ex.Status, op.HTTP.ResponseCode)
	}
	w.restBody(op.Output.Shape, ex.ResponseBody, located)
	return w.problems
}

// responseLocated reads the members of an answer that its headers and
// status carry.
func (w *walker) responseLocated(name string, ex Exchange) map[string]any {
	located := map[string]any{}
	for mname, ref := range w.m.shapes[name].Members {
		switch ref.Location {
		case "header":
			if vs := ex.ResponseHeader.Values(ref.LocationName); len(vs) > 0 {
				if v, ok := w.text(mname, ref, vs); ok {
					located[mname] = v
				}
			}
		case "statusCode":
			located[mname] = json.Number(fmt.Sprint(ex.Status))
		}
	}
	return located
}

// errorResponse checks an error answer: its code must be one the
// operation declares (then its body is that error's shape) or a common
// AWS error (then its body is a message).
func (w *walker) errorResponse(op *operation, ex Exchange) {
	obj, ok := w.object(ex.ResponseBody)
	if !ok {
		return
	}
	code := errorCode(w.m.Protocol, ex.ResponseHeader, obj)
	if code == "" {
		w.add("", "an error answer (status %d) without an error code (__type or X-Amzn-ErrorType)", ex.Status)
		return
	}
	for _, ref := range op.errors {
		s := w.m.shapes[ref.Shape]
		if ref.Shape != code && (s.Error == nil || s.Error.Code != code) {
			continue
		}
		delete(obj, "__type")
		if w.m.Protocol == "rest-json" {
			delete(obj, "code")
		}
		if _, isString := obj["message"].(string); isString && !hasMessageMember(s) {
			// An error shape without members (SQS's MessageNotInflight)
			// still comes with AWS's message, which botocore reads from any
			// error body; a shape that has one is held to its spelling.
			delete(obj, "message")
		}
		w.structure("", ref.Shape, obj, w.responseLocated(ref.Shape, ex))
		w.prefix("error " + code)
		if s.Error != nil && s.Error.HTTPStatusCode != 0 && s.Error.HTTPStatusCode != ex.Status {
			w.add("", "error %s with status %d, the model says %d", code, ex.Status, s.Error.HTTPStatusCode)
		}
		return
	}
	if !commonErrors[code] {
		w.add("", "error %s (status %d) is neither one %s declares nor a common AWS error", code, ex.Status, op.Name)
		return
	}
	for _, k := range sortedKeys(obj) {
		switch k {
		case "__type", "code", "message", "Message":
			if _, ok := obj[k].(string); !ok {
				w.add("error "+code+"."+k, "want a string, got %s", kind(obj[k]))
			}
		default:
			w.add("error "+code+"."+k, "not a member of a common error (__type, message)")
		}
	}
}

// prefix names the error in the paths of the problems an error body has.
func (w *walker) prefix(p string) {
	for i := range w.problems {
		w.problems[i].path = join(p, w.problems[i].path)
	}
}

// errorCode reads an error answer's code as botocore does: the JSON
// protocol's __type (after a namespace's #), else X-Amzn-ErrorType (before
// its ":" suffix), else a REST-JSON body's code.
func errorCode(protocol string, h http.Header, body map[string]any) string {
	clean := func(s string) string {
		if i := strings.LastIndex(s, "#"); i >= 0 {
			s = s[i+1:]
		}
		s, _, _ = strings.Cut(s, ":")
		return s
	}
	header := clean(h.Get("X-Amzn-ErrorType"))
	typ, _ := body["__type"].(string)
	if protocol == "rest-json" && header != "" {
		return header
	}
	if typ != "" {
		return clean(typ)
	}
	if header != "" {
		return header
	}
	code, _ := body["code"].(string)
	return clean(code)
}

// object decodes a JSON object body; an empty body is an empty object.
func (w *walker) object(body []byte) (map[string]any, bool) {
	if len(bytes.TrimSpace(body)) == 0 {
		return map[string]any{}, true
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		w.add("", "the body is not JSON: %v", err)
		return nil, false
	}
	if dec.More() {
		w.add("", "the body has more than one JSON value")
		return nil, false
	}
	obj, ok := v.(map[string]any)
	if !ok {
		w.add("", "the body is %s, not an object", kind(v))
	}
	return obj, ok
}

// emptyBody checks the body of a message the model gives no shape.
func (w *walker) emptyBody(body []byte) {
	if obj, ok := w.object(body); ok && len(obj) > 0 {
		w.add("", "a body (%d members) where the operation has none", len(obj))
	}
}

func anyValues(q url.Values) map[string]any {
	out := make(map[string]any, len(q))
	for k, v := range q {
		out[k] = v
	}
	return out
}

// Tally counts checked requests and answers per service, and the
// violations among them.
type Tally map[string]*Count

// Count is one service's line of a Tally: requests checked, answers
// checked (a request no operation matches has no answer shape), and the
// violations found in both.
type Count struct {
	Requests, Responses, Violations int
}

// Add counts one checked exchange.
func (t Tally) Add(r Result) {
	c := t[r.Service]
	if c == nil {
		c = &Count{}
		t[r.Service] = c
	}
	c.Requests++
	if r.Operation != "" {
		c.Responses++ // an unknown request's answer has no shape to check
	}
	c.Violations += len(r.Violations)
}

// Services lists the tally's services, sorted.
func (t Tally) Services() []string {
	out := make([]string, 0, len(t))
	for s := range t {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// hasMessageMember reports whether an error shape declares its message,
// in any spelling.
func hasMessageMember(s *shape) bool {
	for name := range s.Members {
		if strings.EqualFold(name, "message") {
			return true
		}
	}
	return false
}
