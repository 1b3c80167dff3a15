package webhooks_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/google/uuid"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/internal/app"
)

// TestAFailingDispatchHoldsNoOtherProject: an event whose dispatch keeps
// failing (its project's endpoints cannot be read) does not hold the
// outbox stream, where every other project's events wait behind it in
// order: it is parked on the delivery queue, the next project's event is
// delivered meanwhile, and the parked one is dispatched once its cause is
// gone — from the delivery queue, or, after the queue's receive limit,
// from the dead-letter queue by the redrive runbook.
func TestAFailingDispatchHoldsNoOtherProject(t *testing.T) {
	t.Parallel() // its own runtime, and mostly waiting (see main_test.go)
	faults := &dynamotest.Faults{}
	rt, a, _, projectA := webhookRuntime(t, func(cfg *local.Config) {
		opt := app.WithDynamoDB(faults.Option())
		cfg.FunctionOptions = map[string][]app.Option{"DispatchFunction": {opt}, "DeliverFunction": {opt}}
	})
	_, keyB := localtest.Project(t, rt, "")
	b := localtest.Client{T: t, Base: rt.URL, Key: keyB, RT: rt}
	create := func(c localtest.Client, body string) {
		t.Helper()
		if r := c.Post("/public/v1/contacts", uuid.NewString(), body); r.Status != 201 {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
	}
	rcA, rcB := apitest.NewReceiver(t, nil), apitest.NewReceiver(t, nil)
	a.Endpoint(rcA.URL, "contact.created")
	b.Endpoint(rcB.URL, "contact.created")
	// A's endpoints cannot be read by the pipeline: its dispatch fails,
	// every time, until the fault is cleared.
	breakA := func() {
		faults.Add(dynamotest.Fault{Op: "Query", Err: &smithy.GenericAPIError{Code: "ValidationException", Message: "injected"}, When: func(in any) bool {
			q, ok := in.(*dynamodb.QueryInput)
			pk, _ := q.ExpressionAttributeValues[":pk"].(*types.AttributeValueMemberS)
			return ok && pk != nil && strings.Contains(pk.Value, projectA)
		}})
	}

	breakA()
	create(a, `{"phone":"+79990008001","name":"Anna"}`)
	// B's event comes after A's failed once: in a later batch of the
	// stream, which in-place retries would hold behind A's.
	apitest.Eventually(t, time.Minute, "project A's dispatch to fail", func() bool { return faults.Fired() > 0 })
	create(b, `{"phone":"+79990008002","name":"Boris"}`)
	apitest.Eventually(t, time.Minute, "project B's webhook while A's dispatch fails", func() bool { return len(rcB.Requests()) == 1 })
	if n := len(rcA.Requests()); n != 0 {
		t.Fatalf("project A's receiver got %d requests while its dispatch fails", n)
	}

	t.Run("the parked event is dispatched from the delivery queue once its cause is gone", func(t *testing.T) {
		faults.Clear()
		apitest.Eventually(t, time.Minute, "project A's webhook", func() bool { return len(rcA.Requests()) == 1 })
	})

	t.Run("one that fails past the queue's receive limit waits in the dead-letter queue, and the redrive sends it back", func(t *testing.T) {
		breakA()
		create(a, `{"phone":"+79990008003","name":"Alla"}`)
		apitest.Eventually(t, 2*time.Minute, "the parked event in the dead-letter queue", func() bool {
			n, _ := rt.QueueDepth(context.Background(), "DeadLetterQueue")
			return n == 1
		})
		faults.Clear()
		if _, err := rt.Invoke(context.Background(), "RedriveFunction", map[string]any{"project_id": projectA}); err != nil {
			t.Fatal(err)
		}
		apitest.Eventually(t, time.Minute, "project A's second webhook", func() bool { return len(rcA.Requests()) == 2 })
		if n := len(rcB.Requests()); n != 1 {
			t.Fatalf("project B's receiver got %d requests, want its one", n)
		}
	})
}
