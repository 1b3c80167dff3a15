// Package exchange holds the one type the local runtime and the contract
// checker share: an HTTP request and its answer, read whole. It is its own
// package so that the runtime (infra/local) does not compile the OpenAPI
// validator and the checker (infra/apicontract) does not link the runtime:
// a test that checks exchanges, such as internal/api's, links neither
// through the other.
package exchange

import "net/http"

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
