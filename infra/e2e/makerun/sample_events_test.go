package makerun_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/localtest"
)

// SampleAPIKey is the key the samples in events/ send; tests register it.
const SampleAPIKey = "bx_sample_key_for_local_invoke_0001"

// sampleExpectations is what each sample in events/ must produce when the
// sample key's project exists and is otherwise empty.

// TestEventSamples proves the samples in events/ are real: each function
// has one, HTTP samples name a route the template gives that function, and
// invoking the function with it gives the expected answer.
func TestEventSamples(t *testing.T) {
	t.Parallel() // its own runtime, and mostly waiting (see main_test.go)
	rt := localtest.Runtime(t, local.Config{})
	localtest.Project(t, rt, SampleAPIKey)
	expectations := localtest.SampleExpectations(t)
	tpl, err := template.LoadRepo()
	if err != nil {
		t.Fatal(err)
	}
	routeOf := map[string][]string{}
	for _, r := range tpl.Routes() {
		routeOf[r.Function] = append(routeOf[r.Function], r.Key)
	}
	for id := range tpl.Functions() {
		t.Run(id, func(t *testing.T) {
			raw := localtest.Sample(t, id)
			if sh, isStream := rt.StreamHandler(id); isStream {
				var ev events.DynamoDBEvent
				if err := json.Unmarshal(raw, &ev); err != nil {
					t.Fatal(err)
				}
				resp, err := sh(context.Background(), ev)
				if err != nil || len(resp.BatchItemFailures) > 0 {
					t.Fatalf("stream sample: %v, failures %v", err, resp.BatchItemFailures)
				}
				return
			}
			if qh, isQueue := rt.QueueHandler(id); isQueue {
				var ev events.SQSEvent
				if err := json.Unmarshal(raw, &ev); err != nil {
					t.Fatal(err)
				}
				// The sample names a delivery that does not exist: the
				// message is obsolete, acknowledged without failure.
				resp, err := qh(context.Background(), ev)
				if err != nil || len(resp.BatchItemFailures) > 0 {
					t.Fatalf("queue sample: %v, failures %v", err, resp.BatchItemFailures)
				}
				return
			}
			h, isHTTP := rt.HTTPHandler(id)
			if !isHTTP {
				if _, err := rt.Invoke(context.Background(), id, json.RawMessage(raw)); err != nil {
					t.Fatalf("invoke with sample: %v", err)
				}
				return
			}
			var ev events.APIGatewayV2HTTPRequest
			if err := json.Unmarshal(raw, &ev); err != nil {
				t.Fatal(err)
			}
			if !contains(routeOf[id], ev.RouteKey) {
				t.Fatalf("sample routeKey %q is not a route of %s (%v)", ev.RouteKey, id, routeOf[id])
			}
			want, ok := expectations[id]
			if !ok {
				t.Fatalf("events/expected.json has no expectation for %s", id)
			}
			resp, err := h(context.Background(), ev)
			if err != nil {
				t.Fatal(err)
			}
			got := apitest.Reply{Status: resp.StatusCode, Body: []byte(resp.Body)}
			if got.Status != want.Status || got.ErrorCode() != want.Code {
				t.Fatalf("got %d %q, want %d %q: %s", got.Status, got.ErrorCode(), want.Status, want.Code, resp.Body)
			}
		})
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
