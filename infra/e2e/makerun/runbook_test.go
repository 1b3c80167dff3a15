package makerun_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
)

// invoke calls a function through the local AWS endpoint's Lambda Invoke,
// by the name `make run` prints, and fails on a function error.
func invoke(t *testing.T, client *lambda.Client, fn string, payload any, out any) {
	t.Helper()
	b, _ := json.Marshal(payload)
	res, err := client.Invoke(context.Background(), &lambda.InvokeInput{FunctionName: aws.String("botix-local-" + fn), Payload: b})
	if err != nil {
		t.Fatal(err)
	}
	if res.FunctionError != nil {
		t.Fatalf("%s: %s: %s", fn, aws.ToString(res.FunctionError), res.Payload)
	}
	if err := json.Unmarshal(res.Payload, out); err != nil {
		t.Fatalf("%s answered %s: %v", fn, res.Payload, err)
	}
}

// TestRunbookThroughTheLocalAWSEndpoint walks docs/operators.md's runbook with the
// AWS SDK for Go against `make run`'s AWS endpoint: projects and keys from
// the admin function, tenant isolation between two projects, both dead-
// letter redrives, and the attempt-log query on DynamoDB.
func TestRunbookThroughTheLocalAWSEndpoint(t *testing.T) {
	t.Parallel() // its own runtime, and mostly waiting (see main_test.go)
	cfg, err := local.MakeRunConfig(func(k string) string {
		return map[string]string{"WEBHOOK_RETRY_SCHEDULE": "1s,1s,1s,1s"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	rt := localtest.Runtime(t, cfg)
	awsCfg := localtest.AWSConfig(t, rt)
	lambdas, queues, tables := lambda.NewFromConfig(awsCfg), sqs.NewFromConfig(awsCfg), dynamodb.NewFromConfig(awsCfg)
	ctx := context.Background()

	type created struct {
		Project struct{ ID string } `json:"project"`
		APIKey  string              `json:"api_key"`
		KeyID   string              `json:"key_id"`
	}
	var a, b created
	invoke(t, lambdas, "AdminFunction", map[string]string{"action": "create_project", "name": "Acme"}, &a)
	invoke(t, lambdas, "AdminFunction", map[string]string{"action": "create_project", "name": "Rival"}, &b)
	ca, cb := localtest.Client{T: t, Base: rt.URL, Key: a.APIKey}, localtest.Client{T: t, Base: rt.URL, Key: b.APIKey}

	t.Run("the admin function adds and revokes keys", func(t *testing.T) {
		var extra created
		invoke(t, lambdas, "AdminFunction", map[string]string{"action": "create_api_key", "project_id": a.Project.ID}, &extra)
		if r := (localtest.Client{T: t, Base: rt.URL, Key: extra.APIKey}).Get("/public/v1/contacts"); r.Status != 200 {
			t.Fatalf("the new key: %d", r.Status)
		}
		var revoked map[string]any
		invoke(t, lambdas, "AdminFunction", map[string]string{"action": "revoke_api_key", "project_id": a.Project.ID, "key_id": extra.KeyID}, &revoked)
		res, err := lambdas.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("botix-local-AdminFunction"), Payload: []byte(`{"action":"nope"}`)})
		if err != nil || aws.ToString(res.FunctionError) != "Unhandled" || !strings.Contains(string(res.Payload), "errorMessage") {
			t.Fatalf("a bad action: %v %s", err, res.Payload)
		}
		if _, err := lambdas.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("botix-local-NoSuchFunction")}); err == nil || !strings.Contains(err.Error(), "ResourceNotFoundException") {
			t.Fatalf("an unknown function: %v", err)
		}
	})

	rc := apitest.NewReceiver(t, func(n int, r *http.Request, w http.ResponseWriter) { w.WriteHeader(http.StatusUnauthorized) })
	ep := ca.Endpoint(rc.URL)
	contact := ca.Contact("+79990007001")
	var page struct {
		NextCursor *string `json:"next_cursor"`
	}
	ca.Contact("+79990007002")
	ca.Get("/public/v1/contacts?cursor_limit=1").JSON(t, &page)
	var insp struct{ ID, URL string }
	ca.Post("/public/v1/inspectors", uuid.NewString(), "").JSON(t, &insp)
	apitest.Do(t, http.MethodPost, insp.URL, []byte(`{"secret":"a's"}`))
	var deliveries struct {
		Data []webhook.Delivery `json:"data"`
	}
	apitest.Eventually(t, 10*time.Second, "project A's deliveries", func() bool {
		ca.Get("/public/v1/webhook-deliveries?status=dead").JSON(t, &deliveries)
		return len(deliveries.Data) == 2
	})
	var events struct {
		Data []struct{ ID string } `json:"data"`
	}
	ca.Get("/public/v1/events").JSON(t, &events)

	t.Run("a second project sees nothing of the first", func(t *testing.T) {
		for _, path := range []string{"/public/v1/contacts", "/public/v1/webhook-deliveries", "/public/v1/webhook-endpoints", "/public/v1/events"} {
			var list struct {
				Data []json.RawMessage `json:"data"`
			}
			if r := cb.Get(path); r.Status != 200 {
				t.Fatalf("%s: %d", path, r.Status)
			} else if r.JSON(t, &list); len(list.Data) != 0 {
				t.Errorf("%s: project B sees %d of project A's items", path, len(list.Data))
			}
		}
		for _, path := range []string{"/public/v1/contacts/" + contact, "/public/v1/webhook-deliveries/" + deliveries.Data[0].ID,
			"/public/v1/webhook-endpoints/" + ep.ID, "/public/v1/events/" + events.Data[0].ID, "/public/v1/inspectors/" + insp.ID + "/requests"} {
			if r := cb.Get(path); r.Status != 404 {
				t.Errorf("%s: %d, want 404", path, r.Status)
			}
		}
		if r := cb.Post("/public/v1/webhook-deliveries/"+deliveries.Data[0].ID+"/retry", uuid.NewString(), ""); r.Status != 404 {
			t.Errorf("retry of another project's delivery: %d", r.Status)
		}
	})
	t.Run("the first project's cursor and idempotency key mean nothing to the second", func(t *testing.T) {
		if r := cb.Get("/public/v1/contacts?cursor_limit=1&cursor=" + url.QueryEscape(*page.NextCursor)); r.Status != 400 || r.ErrorCode() != "INVALID_CURSOR" {
			t.Fatalf("project A's cursor: %d %s", r.Status, r.Body)
		}
		key := uuid.NewString()
		first := ca.Post("/public/v1/inspectors", key, "")
		second := cb.Post("/public/v1/inspectors", key, "")
		if first.Status != 201 || second.Status != 201 || second.Header.Get("Idempotent-Replayed") != "" || string(first.Body) == string(second.Body) {
			t.Fatalf("one key in two projects: %d %s / %d %s", first.Status, first.Body, second.Status, second.Body)
		}
	})
	dlqURL, dlqARN := rt.Queue("DeadLetterQueue")
	t.Run("dead letters wait in the queue the endpoint names, with their reason", func(t *testing.T) {
		out, err := queues.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(dlqURL), MaxNumberOfMessages: 10, MessageAttributeNames: []string{"All"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.Messages { // looked at, left for the redrive
			if _, err := queues.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(dlqURL), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0}); err != nil {
				t.Fatal(err)
			}
		}
		if len(out.Messages) != 2 || !strings.Contains(aws.ToString(out.Messages[0].Body), `"reason":"the endpoint answered 401`) ||
			aws.ToString(out.Messages[0].MessageAttributes["project_id"].StringValue) != a.Project.ID {
			t.Fatalf("dead letters %+v", out.Messages)
		}
		attrs, err := queues.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(dlqURL), AttributeNames: []sqstypes.QueueAttributeName{"QueueArn"}})
		if err != nil || attrs.Attributes["QueueArn"] != dlqARN {
			t.Fatalf("queue ARN %v %v", attrs.Attributes, err)
		}
		list, err := queues.ListQueues(ctx, &sqs.ListQueuesInput{})
		if err != nil || len(list.QueueUrls) < 2 || !strings.HasPrefix(list.QueueUrls[0], rt.AWSURL+"/") {
			t.Fatalf("queue URLs %v %v: they must point at the AWS endpoint", list.QueueUrls, err)
		}
	})
	rc.SetRespond(nil) // the receiver is fixed
	// deliveredOnce waits until want of the two dead deliveries are
	// delivered again, each in a fresh round 2 and with one request.
	deliveredOnce := func(t *testing.T, want int) {
		t.Helper()
		done := map[string]webhook.Delivery{}
		apitest.Eventually(t, 20*time.Second, "the redriven deliveries delivered", func() bool {
			for _, dead := range deliveries.Data {
				var d webhook.Delivery
				ca.Get("/public/v1/webhook-deliveries/"+dead.ID).JSON(t, &d)
				if d.Status == webhook.StatusDelivered {
					done[d.ID] = d
				}
			}
			return len(done) == want
		})
		time.Sleep(1500 * time.Millisecond) // a second copy would have arrived by now
		for _, d := range done {
			n := 0
			for _, req := range rc.Requests() {
				if req.Header.Get("Webhook-Id") == d.EventID && req.Header.Get("X-Delivery-Attempt") != "1" {
					n++
				}
			}
			if d.Round != 2 || n != 1 {
				t.Fatalf("%s: round %d, %d requests after the redrive; want round 2 delivered once", d.ID, d.Round, n)
			}
		}
	}
	t.Run("the redrive function moves one project's dead letters; a fresh round delivers once", func(t *testing.T) {
		var out webhook.RedriveOutput
		invoke(t, lambdas, "RedriveFunction", map[string]any{"project_id": a.Project.ID, "event_type": "contact.created", "max": 1}, &out)
		if out.Moved != 1 {
			t.Fatalf("redrive %+v", out)
		}
		deliveredOnce(t, 1)
	})
	t.Run("StartMessageMoveTask (the console's Start DLQ redrive) moves the rest; a fresh round delivers once", func(t *testing.T) {
		if moved := localtest.MoveDeadLetters(t, rt); moved != 1 {
			t.Fatalf("moved %d", moved)
		}
		deliveredOnce(t, 2)
	})
	t.Run("the attempt log is a DynamoDB query away", func(t *testing.T) {
		u, _ := ids.Parse(ids.Delivery, deliveries.Data[0].ID)
		out, err := tables.Query(ctx, &dynamodb.QueryInput{
			TableName: aws.String(rt.Tables()["DeliveriesTable"]), KeyConditionExpression: aws.String("pk = :pk"),
			ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":pk": &ddbtypes.AttributeValueMemberS{Value: "P#" + a.Project.ID + "#DLV#" + u.String()}},
		})
		if err != nil || out.Count != 2 {
			t.Fatalf("attempts %v %v", out, err)
		}
	})
	t.Run("the endpoint says what it does not serve", func(t *testing.T) {
		cases := []struct {
			name, contentType, target, body, want string
		}{
			{"SQS's old query protocol", "application/x-www-form-urlencoded", "", "Action=ListQueues", "UnsupportedProtocol"},
			{"an SQS operation it does not have", "application/x-amz-json-1.0", "AmazonSQS.TagQueue", `{"QueueUrl":"` + rt.AWSURL + `/000000000000/q","Tags":{"team":"botix"}}`, "UnsupportedOperation"},
			{"another service", "application/x-amz-json-1.1", "AWSEvents.PutEvents", "{}", "UnknownOperationException"},
		}
		// EventBridge is no service the local AWS has the model of.
		localtest.ExpectAWSViolation(t, rt, `AWS request: X-Amz-Target "AWSEvents.PutEvents" names no modelled service`)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				req, _ := http.NewRequest(http.MethodPost, rt.AWSURL+"/", strings.NewReader(tc.body))
				req.Header.Set("Content-Type", tc.contentType)
				if tc.target != "" {
					req.Header.Set("X-Amz-Target", tc.target)
				}
				signAWS(t, req, []byte(tc.body), "local", "local", "sqs", 0)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				var body map[string]string
				_ = json.NewDecoder(res.Body).Decode(&body)
				res.Body.Close()
				if res.StatusCode != 400 || !strings.Contains(body["__type"], tc.want) || body["message"] == "" {
					t.Fatalf("%d %v, want 400 %s with a message", res.StatusCode, body, tc.want)
				}
			})
		}
	})
}
