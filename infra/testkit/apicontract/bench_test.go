package apicontract_test

import (
	"net/http"
	"testing"

	"github.com/botix/public-api/infra/testkit/apicontract"
)

// BenchmarkCheck is the cost the contract check adds to each exchange of
// the end-to-end tests (a create with its request and answer).
func BenchmarkCheck(b *testing.B) {
	v, err := apicontract.Shared()
	if err != nil {
		b.Fatal(err)
	}
	ex := apicontract.Exchange{
		Method: "POST", URL: "http://127.0.0.1:8080/public/v1/contacts", Route: "POST /public/v1/contacts", Status: 201,
		Header:         http.Header{"Authorization": {"Bearer bx_x"}, "Content-Type": {"application/json"}, "Idempotency-Key": {"3f0c8a4e-2d3b-4c8e-9f1a-7b6d5e4c3a21"}},
		Body:           []byte(`{"phone":"+79989457005","name":"SDK example"}`),
		ResponseHeader: http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_01M8MH66BDSA24DKGTQX9AMX6H"}},
		ResponseBody:   []byte(`{"id":"ct_01M8MGFZYD68EJ46SD446DT3ZV","phone":"+79989457005","name":"SDK example","tags":[],"created_at":"2026-11-29T20:38:39.821Z"}`),
	}
	for b.Loop() {
		if p := v.Check(ex); len(p) != 0 {
			b.Fatal(p)
		}
	}
}
