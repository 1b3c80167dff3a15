package awsmodel

import (
	"fmt"
	"net/url"
	"strings"
)

// route is a REST-JSON operation's method and URI template
// ("/schedules/{Name}", "/2015-03-31/functions/{FunctionName}/invocations",
// a greedy "{Key+}" taking the rest of the path).
type route struct {
	op       *operation
	method   string
	segments []string
	query    url.Values // literal query of the template ("?tagging"), rare
	literals int
}

func parseRoute(op *operation) (*route, error) {
	path, rawQuery, _ := strings.Cut(op.HTTP.RequestURI, "?")
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("requestUri %q does not start with /", op.HTTP.RequestURI)
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return nil, fmt.Errorf("requestUri %q: %w", op.HTTP.RequestURI, err)
	}
	rt := &route{op: op, method: op.HTTP.Method, segments: strings.Split(path[1:], "/"), query: q}
	for _, s := range rt.segments {
		if !strings.HasPrefix(s, "{") {
			rt.literals++
		}
	}
	return rt, nil
}

// match reports whether a request's method and path are this route's,
// and returns the URI labels' values, unescaped.
func (rt *route) match(method, escapedPath string, query url.Values) (map[string]string, bool) {
	if method != rt.method || !strings.HasPrefix(escapedPath, "/") {
		return nil, false
	}
	for k := range rt.query {
		if _, ok := query[k]; !ok {
			return nil, false
		}
	}
	parts := strings.Split(escapedPath[1:], "/")
	labels := map[string]string{}
	for i, seg := range rt.segments {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			name = strings.TrimSuffix(name, "}")
			if greedy, ok := strings.CutSuffix(name, "+"); ok {
				if i >= len(parts) {
					return nil, false
				}
				v, err := url.PathUnescape(strings.Join(parts[i:], "/"))
				if err != nil || v == "" {
					return nil, false
				}
				labels[greedy] = v
				return labels, true
			}
			if i >= len(parts) || parts[i] == "" {
				return nil, false
			}
			v, err := url.PathUnescape(parts[i])
			if err != nil {
				return nil, false
			}
			labels[name] = v
			continue
		}
		if i >= len(parts) || parts[i] != seg {
			return nil, false
		}
	}
	return labels, len(parts) == len(rt.segments)
}
