package templatecheck_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/internal/awslimits"
	"github.com/botix/public-api/internal/webhook"
)

// number reads a template setting that is a literal integer; def when it
// is absent.
func number(t *testing.T, v any, def int) int {
	t.Helper()
	switch n := v.(type) {
	case nil:
		return def
	case int:
		return n
	case float64:
		return int(n)
	}
	t.Fatalf("%v is not a literal number", v)
	return 0
}

// within reports whether n is in [lo, hi].
func within(n, lo, hi int) bool { return lo <= n && n <= hi }

// TestFunctionsWithinLambdasAndTheGatewaysLimits: every function's
// timeout and memory are within Lambda's ranges, and a function behind
// the HTTP API ends before the gateway's integration timeout, so that the
// client gets the function's own answer rather than the gateway's.
func TestFunctionsWithinLambdasAndTheGatewaysLimits(t *testing.T) {
	tpl, _ := load(t)
	for id, fn := range tpl.Functions() {
		if d := fn.Timeout(); d < time.Second || d > awslimits.LambdaMaxTimeout {
			t.Errorf("%s: timeout %s outside Lambda's 1 s to %s", id, d, awslimits.LambdaMaxTimeout)
		}
		if m := fn.MemorySize(); !within(m, awslimits.LambdaMinMemory, awslimits.LambdaMaxMemory) {
			t.Errorf("%s: memory %d MB outside Lambda's %d to %d", id, m, awslimits.LambdaMinMemory, awslimits.LambdaMaxMemory)
		}
		for _, e := range fn.Events() {
			if e.Type != "HttpApi" {
				continue
			}
			if fn.Timeout() >= awslimits.HTTPAPIIntegrationTimeout {
				t.Errorf("%s: timeout %s, not under the HTTP API's integration timeout %s", id, fn.Timeout(), awslimits.HTTPAPIIntegrationTimeout)
			}
			if ms := number(t, e.Properties["TimeoutInMillis"], int(awslimits.HTTPAPIIntegrationTimeout/time.Millisecond)); time.Duration(ms)*time.Millisecond > awslimits.HTTPAPIIntegrationTimeout {
				t.Errorf("%s %s: TimeoutInMillis %d past the HTTP API's %s", id, e.Name, ms, awslimits.HTTPAPIIntegrationTimeout)
			}
		}
	}
}

// TestEventSourcesWithinLambdasLimits: every event source's batch,
// window, retries, parallelization and concurrency are within the ranges
// CreateEventSourceMapping takes (a deploy would fail otherwise), and the
// SQS sources' consumers together, with any reserved concurrency, leave
// most of the account's default concurrency to the API.
func TestEventSourcesWithinLambdasLimits(t *testing.T) {
	tpl, _ := load(t)
	consumers, sources := 0, 0
	for id, fn := range tpl.Functions() {
		consumers += number(t, fn.Properties["ReservedConcurrentExecutions"], 0)
		for _, e := range fn.Events() {
			p := e.Properties
			if e.Type != "SQS" && e.Type != "DynamoDB" {
				continue
			}
			sources++
			def := map[string]int{"SQS": 10, "DynamoDB": 100}[e.Type]
			batch, window := number(t, p["BatchSize"], def), number(t, p["MaximumBatchingWindowInSeconds"], 0)
			if !within(batch, 1, awslimits.LambdaMaxBatchSize) {
				t.Errorf("%s %s: BatchSize %d outside 1 to %d", id, e.Name, batch, awslimits.LambdaMaxBatchSize)
			}
			if time.Duration(window)*time.Second > awslimits.LambdaMaxBatchingWindow || window < 0 {
				t.Errorf("%s %s: MaximumBatchingWindowInSeconds %d outside 0 to %s", id, e.Name, window, awslimits.LambdaMaxBatchingWindow)
			}
			switch e.Type {
			case "SQS":
				if batch > awslimits.LambdaSQSBatchWithoutWindow && window == 0 {
					t.Errorf("%s %s: BatchSize %d over %d needs a batching window", id, e.Name, batch, awslimits.LambdaSQSBatchWithoutWindow)
				}
				scaling, _ := p["ScalingConfig"].(map[string]any)
				n := number(t, scaling["MaximumConcurrency"], awslimits.LambdaMaxSQSConcurrency)
				if !within(n, awslimits.LambdaMinSQSConcurrency, awslimits.LambdaMaxSQSConcurrency) {
					t.Errorf("%s %s: MaximumConcurrency %d outside %d to %d", id, e.Name, n, awslimits.LambdaMinSQSConcurrency, awslimits.LambdaMaxSQSConcurrency)
				}
				consumers += n
			case "DynamoDB":
				if f := number(t, p["ParallelizationFactor"], 1); !within(f, awslimits.LambdaMinParallelization, awslimits.LambdaMaxParallelization) {
					t.Errorf("%s %s: ParallelizationFactor %d outside %d to %d", id, e.Name, f, awslimits.LambdaMinParallelization, awslimits.LambdaMaxParallelization)
				}
				if r := number(t, p["MaximumRetryAttempts"], -1); !within(r, -1, awslimits.LambdaMaxStreamRetries) {
					t.Errorf("%s %s: MaximumRetryAttempts %d outside -1 to %d", id, e.Name, r, awslimits.LambdaMaxStreamRetries)
				}
			}
		}
	}
	if sources == 0 {
		t.Fatal("no event source read: the template's shape changed")
	}
	// An SQS source without MaximumConcurrency counts as its maximum, so
	// that an unbounded one fails here.
	if consumers > awslimits.LambdaAccountConcurrency/10 {
		t.Errorf("queue consumers and reserved concurrency take %d of the account's %d concurrent executions; keep them under a tenth, the rest serves the API", consumers, awslimits.LambdaAccountConcurrency)
	}
}

// TestQueueBatchesFitALambdaInvocation: a full batch of the deliver
// function's SQS sources, of the largest messages the dispatcher sends
// (a bulk lane's first ones, carrying webhook.MaxPayload of quotes, which
// the event's JSON escapes again), is under Lambda's 6 MB synchronous
// payload: Lambda never has to cut a batch short for its size.
func TestQueueBatchesFitALambdaInvocation(t *testing.T) {
	tpl, _ := load(t)
	m := webhook.Message{DeliveryID: "dlv_01JDQ7X3ZV8N5W2K4R6T9Y1B30", ProjectID: "prj_01JDQ7X3ZV8N5W2K4R6T9Y1B30", EndpointID: "whe_01JDQ7X3ZV8N5W2K4R6T9Y1B30",
		Round: 1, Attempt: 1, Bulk: true, Pending: &webhook.PendingDelivery{EventID: "evt_01JDQ7X3ZV8N5W2K4R6T9Y1B30", Payload: strings.Repeat(`"`, webhook.MaxPayload), CreatedAt: "2026-12-02T00:00:00Z"}}
	record := events.SQSMessage{
		MessageId: "0b5a4f3e-5c2d-4a8e-9f1b-2d3c4e5f6a7b", ReceiptHandle: strings.Repeat("r", 1024), Body: m.String(),
		Md5OfBody: strings.Repeat("0", 32), EventSource: "aws:sqs", EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:botix-BulkDeliveryQueue-ABCDEFGHIJKL", AWSRegion: "us-east-1",
		Attributes: map[string]string{"ApproximateReceiveCount": "5", "SentTimestamp": "1795939200000", "SenderId": "AROAEXAMPLE:botix-DispatchFunction", "ApproximateFirstReceiveTimestamp": "1795939200000", "MessageGroupId": m.ProjectID},
	}
	seen := 0
	for _, e := range tpl.Functions()["DeliverFunction"].Events() {
		if e.Type != "SQS" {
			continue
		}
		seen++
		batch := number(t, e.Properties["BatchSize"], 10)
		out, _ := json.Marshal(events.SQSEvent{Records: slices.Repeat([]events.SQSMessage{record}, batch)})
		if len(out) > awslimits.LambdaPayloadBytes {
			t.Errorf("%s: a batch of %d is %d bytes, past Lambda's %d", e.Name, batch, len(out), awslimits.LambdaPayloadBytes)
		}
	}
	if seen == 0 {
		t.Fatal("DeliverFunction has no SQS source")
	}
}
