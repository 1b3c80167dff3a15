// Package exchange holds the types the local runtime and the checkers of
// its traffic share: an HTTP request and its answer, read whole, of the
// API (checked by infra/testkit/apicontract against the OpenAPI document) and of
// the local AWS (checked by infra/testkit/awsmodel against AWS's models). It is
// its own package so that the runtime (infra/run/local) does not compile a
// checker and a checker does not link the runtime: a test that checks
// exchanges, such as internal/api's, links neither through the other.
package exchange

import (
	"net/http"
	"net/url"
)

// Exchange is one request and its answer, read whole.
type Exchange struct {
	Method, URL string
	Header      http.Header
	Body        []byte
	// Route is the route key that served it ("$default" for no route).
	Route          string
	Status         int
	ResponseHeader http.Header
	ResponseBody   []byte
}

// AWS is one AWS API request and its answer, read whole.
type AWS struct {
	Method         string
	URL            *url.URL // path and query as sent
	RequestHeader  http.Header
	RequestBody    []byte
	Status         int
	ResponseHeader http.Header
	ResponseBody   []byte
}
