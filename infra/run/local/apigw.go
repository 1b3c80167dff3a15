package local

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/infra/internal/exchange"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/awslimits"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/ids"
)

// throttled is API Gateway's own body of a throttled request.
var throttled = []byte(`{"message":"Too Many Requests"}`)

type route struct {
	key      string
	method   string // "" for $default, "ANY" for any method
	segments []string
	function string
	literals int
}

func compileRoutes(in []template.Route) ([]route, error) {
	var out []route
	defaults := 0
	for _, r := range in {
		if r.Key == "$default" {
			defaults++
			out = append(out, route{key: r.Key, function: r.Function})
			continue
		}
		if !strings.HasPrefix(r.Path, "/") {
			return nil, fmt.Errorf("local: route %q: path must start with /", r.Key)
		}
		segs := strings.Split(strings.Trim(r.Path, "/"), "/")
		lit := 0
		for _, s := range segs {
			if !strings.HasPrefix(s, "{") {
				lit++
			}
		}
		out = append(out, route{key: r.Key, method: r.Method, segments: segs, function: r.Function, literals: lit})
	}
	if defaults > 1 {
		return nil, fmt.Errorf("local: %d $default routes; API Gateway allows one", defaults)
	}
	// API Gateway prefers the most specific route: more literal segments,
	// then literal segments earlier in the path.
	sort.SliceStable(out, func(i, j int) bool {
		if (out[i].method == "") != (out[j].method == "") {
			return out[j].method == ""
		}
		if out[i].literals != out[j].literals {
			return out[i].literals > out[j].literals
		}
		return specificity(out[i].segments) > specificity(out[j].segments)
	})
	return out, nil
}

func specificity(segs []string) string {
	var b strings.Builder
	for _, s := range segs {
		if strings.HasPrefix(s, "{") {
			b.WriteByte('0')
		} else {
			b.WriteByte('1')
		}
	}
	return b.String()
}

// match returns the route for method and path with its path parameters.
func match(routes []route, method, path string) (route, map[string]string, bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	for _, r := range routes {
		if r.method == "" {
			return r, nil, true
		}
		if r.method != "ANY" && r.method != method {
			continue
		}
		if params, ok := matchSegments(r.segments, parts); ok {
			return r, params, true
		}
	}
	return route{}, nil, false
}

func matchSegments(segs, parts []string) (map[string]string, bool) {
	params := map[string]string{}
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "+}") {
			if i >= len(parts) {
				return nil, false
			}
			params[strings.TrimSuffix(s[1:], "+}")] = strings.Join(parts[i:], "/")
			return params, true
		}
		if i >= len(parts) {
			return nil, false
		}
		if strings.HasPrefix(s, "{") {
			if parts[i] == "" {
				return nil, false
			}
			params[s[1:len(s)-1]] = parts[i]
			continue
		}
		if s != parts[i] {
			return nil, false
		}
	}
	return params, len(segs) == len(parts)
}

// serveHTTP plays API Gateway: it turns the HTTP request into a payload
// 2.0 event, invokes the route's function with the function's timeout as
// deadline, and writes the function's response.
func (r *Runtime) serveHTTP(w http.ResponseWriter, req *http.Request) {
	if port := portOf(r.listener); !loopbackHost(req.Host, port) {
		refuseForeignHost(w, req, port)
		return
	}
	if req.URL.Path == MetricsPath || strings.HasPrefix(req.URL.Path, TracePath) {
		r.serveTelemetry(w, req)
		return
	}
	r.cfg.Meter.apiRequest()
	rt, params, ok := match(r.routes, req.Method, req.URL.Path)
	if !r.throttle.allow(time.Now()) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write(throttled)
		if r.cfg.OnResponse != nil {
			r.cfg.OnResponse(req, "", http.StatusTooManyRequests)
		}
		r.exchange(req, nil, rt.key, http.StatusTooManyRequests, w.Header(), throttled)
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, awslimits.HTTPAPIPayloadBytes+1))
	if err != nil || len(body) > awslimits.HTTPAPIPayloadBytes {
		http.Error(w, `{"message":"Request Entity Too Large"}`, http.StatusRequestEntityTooLarge)
		return
	}
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"message":"Not Found"}`)
		if r.cfg.OnResponse != nil {
			r.cfg.OnResponse(req, "", http.StatusNotFound)
		}
		return
	}
	ev := toEvent(req, body, rt, params)
	ctx, cancel := context.WithTimeout(req.Context(), r.timeout(rt.function))
	defer cancel()
	done := r.cfg.Meter.invocation(rt.function)
	resp, err := r.http[rt.function](ctx, ev)
	done()
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"message":"Internal Server Error"}`)
		return
	}
	for k, v := range resp.Headers {
		w.Header().Set(k, v)
	}
	out := []byte(resp.Body)
	if resp.IsBase64Encoded {
		out, _ = base64.StdEncoding.DecodeString(resp.Body)
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(out)
	if r.cfg.OnResponse != nil {
		r.cfg.OnResponse(req, rt.key, resp.StatusCode)
	}
	r.exchange(req, body, rt.key, resp.StatusCode, w.Header(), out)
}

// refuseForeignHost answers a request addressed to another host than the
// API's loopback one — what a web page sends after DNS rebinding (its own
// name resolving to 127.0.0.1), to read the API with the developer's
// dashboard key or the demo data. 404 NOT_FOUND, in the error envelope:
// at that host there is no such route. (Not an exchange of the contract:
// API Gateway serves its own domains; only the local runtime listens on a
// machine with web browsers.)
func refuseForeignHost(w http.ResponseWriter, req *http.Request, port string) {
	requestID := ids.New(ids.Request, time.Now())
	resp := httpapi.ErrorResponse(apierr.New(apierr.NotFound, "this local API answers requests addressed to 127.0.0.1:%s, localhost:%s or [::1]:%s only, not to Host %q (a web page reaching it through DNS rebinding)", port, port, port, req.Host), requestID)
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.Header().Set("X-Request-Id", requestID)
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}

// Exchange is one request and its answer, read whole. The type lives in
// package exchange, which package apicontract checks too: neither imports
// the other, so make run does not compile an OpenAPI validator and a test
// that checks exchanges does not link this runtime.
type Exchange = exchange.Exchange

// exchange hands a request and its answer to Config.OnExchange.
func (r *Runtime) exchange(req *http.Request, body []byte, route string, status int, header http.Header, out []byte) {
	if r.cfg.OnExchange == nil {
		return
	}
	u := *req.URL
	u.Scheme, u.Host = "http", req.Host
	r.cfg.OnExchange(Exchange{
		Method: req.Method, URL: u.String(), Header: req.Header.Clone(), Body: body, Route: route,
		Status: status, ResponseHeader: header.Clone(), ResponseBody: out,
	})
}

func toEvent(req *http.Request, body []byte, rt route, params map[string]string) events.APIGatewayV2HTTPRequest {
	now := time.Now()
	headers := map[string]string{}
	for k, v := range req.Header {
		headers[strings.ToLower(k)] = strings.Join(v, ",")
	}
	headers["host"] = req.Host
	headers["x-forwarded-proto"] = "http"
	ip, _, _ := net.SplitHostPort(req.RemoteAddr)
	headers["x-forwarded-for"] = ip
	_, hostPort, _ := net.SplitHostPort(req.Host)
	headers["x-forwarded-port"] = hostPort
	var query map[string]string
	if q := req.URL.Query(); len(q) > 0 {
		query = map[string]string{}
		for k, v := range q {
			query[k] = strings.Join(v, ",")
		}
	}
	ev := events.APIGatewayV2HTTPRequest{
		Version:               "2.0",
		RouteKey:              rt.key,
		RawPath:               req.URL.EscapedPath(),
		RawQueryString:        req.URL.RawQuery,
		Headers:               headers,
		QueryStringParameters: query,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey:     rt.key,
			AccountID:    AccountID,
			Stage:        "$default",
			RequestID:    requestID(),
			APIID:        "local",
			DomainName:   req.Host,
			DomainPrefix: strings.Split(req.Host, ".")[0],
			Time:         now.UTC().Format("02/Jan/2006:15:04:05 -0700"),
			TimeEpoch:    now.UnixMilli(),
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method: req.Method, Path: req.URL.Path, Protocol: req.Proto, SourceIP: ip, UserAgent: req.UserAgent(),
			},
		},
	}
	if len(params) > 0 {
		ev.PathParameters = params
	}
	if len(body) > 0 {
		if textual(req.Header.Get("Content-Type")) && utf8.Valid(body) {
			ev.Body = string(body)
		} else {
			ev.Body, ev.IsBase64Encoded = base64.StdEncoding.EncodeToString(body), true
		}
	}
	return ev
}

// textual reports whether API Gateway passes a body of this media type as
// text rather than base64.
func textual(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		mt == "application/xml" || mt == "application/x-www-form-urlencoded" || mt == "application/javascript"
}

func requestID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
