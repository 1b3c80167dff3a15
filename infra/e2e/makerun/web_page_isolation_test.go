package makerun_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/localtest"
)

// awsCall is one raw request to the local AWS endpoint, signed (or not)
// the way a case says.
type awsCall struct {
	method, path, contentType, target, body string
	// host overrides the Host header (default: the endpoint's own).
	host string
	// origin, when set, is sent as a browser would.
	origin string
	// accessKey and secret sign the request; "" leaves it unsigned.
	accessKey, secret, service string
	// afterSigning changes the request once it is signed.
	afterSigning func(*http.Request)
	// skew moves the signing time off the clock (a signer whose clock
	// is wrong, or a request replayed later).
	skew time.Duration
}

// signAWS signs req with SigV4 as the AWS SDK for Go does.
func signAWS(t *testing.T, req *http.Request, body []byte, accessKey, secret, service string, skew time.Duration) {
	t.Helper()
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: accessKey, SecretAccessKey: secret}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), service, local.Region, time.Now().Add(skew)); err != nil {
		t.Fatal(err)
	}
}

// do sends the call and returns the status, the AWS error type (__type)
// and the body.
func (c awsCall) do(t *testing.T, rt *local.Runtime) (int, string, []byte) {
	t.Helper()
	req, err := http.NewRequest(c.method, rt.AWSURL+c.path, strings.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	if c.host != "" {
		req.Host = c.host
	}
	if c.contentType != "" {
		req.Header.Set("Content-Type", c.contentType)
	}
	if c.target != "" {
		req.Header.Set("X-Amz-Target", c.target)
	}
	if c.origin != "" {
		req.Header.Set("Origin", c.origin)
	}
	if c.accessKey != "" {
		signAWS(t, req, []byte(c.body), c.accessKey, c.secret, c.service, c.skew)
	}
	if c.afterSigning != nil {
		c.afterSigning(req)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var e struct {
		Type string `json:"__type"`
	}
	_ = json.Unmarshal(b, &e)
	return res.StatusCode, e.Type, b
}

// TestTheLocalAWSEndpointServesSignedRequestsFromThisMachineOnly: a web
// page open in the developer's browser must not reach the AWS endpoint
// (create a project with a key it chooses, invoke functions, read the
// tables), while the AWS CLI and SDKs, which sign every request, work.
func TestTheLocalAWSEndpointServesSignedRequestsFromThisMachineOnly(t *testing.T) {
	t.Parallel() // its own runtime, and mostly waiting (see main_test.go)
	rt := localtest.Runtime(t, local.Config{})
	aws_, _ := url.Parse(rt.AWSURL)
	port := aws_.Port()
	invokeAdmin := "/2015-03-31/functions/botix-local-AdminFunction/invocations"
	createProject := `{"action":"create_project","name":"from a web page","api_key":"bx_live_chosen_by_a_web_page_0123456789"}`
	scan := `{"TableName":"` + rt.Tables()["DataTable"] + `"}`
	signedInvoke := func(c awsCall) awsCall {
		c.method, c.path, c.body = http.MethodPost, invokeAdmin, createProject
		if c.accessKey == "" {
			c.accessKey, c.secret = "local", "local"
		}
		c.service = "lambda"
		return c
	}
	before := localtest.ProjectCount(t, rt)

	refusals := []struct {
		name     string
		call     awsCall
		status   int
		wantType string
	}{
		{"an unsigned text/plain POST (what a page sends cross-origin without asking) → 403", awsCall{method: "POST", path: invokeAdmin, contentType: "text/plain;charset=UTF-8", body: createProject}, 403, "AccessDeniedException"},
		{"an unsigned invoke without Content-Type (a page's Blob body) → 403 MissingAuthenticationTokenException", awsCall{method: "POST", path: invokeAdmin, body: createProject}, 403, "MissingAuthenticationTokenException"},
		{"an unsigned DynamoDB Scan of the data table → 403 MissingAuthenticationTokenException", awsCall{method: "POST", path: "/", contentType: "application/x-amz-json-1.0", target: "DynamoDB_20120810.Scan", body: scan}, 403, "MissingAuthenticationTokenException"},
		{"an unsigned Scheduler CreateSchedule → 403 MissingAuthenticationTokenException", awsCall{method: "POST", path: "/schedules/from-a-page", contentType: "application/json", body: `{"ScheduleExpression":"rate(1 minute)","FlexibleTimeWindow":{"Mode":"OFF"},"Target":{"Arn":"a","RoleArn":"r"}}`}, 403, "MissingAuthenticationTokenException"},
		{"an Authorization that is not SigV4 → 403 IncompleteSignatureException", signedInvoke(awsCall{afterSigning: func(r *http.Request) { r.Header.Set("Authorization", "Bearer local") }}), 403, "IncompleteSignatureException"},
		{"signed with a wrong secret → 403 InvalidSignatureException", signedInvoke(awsCall{accessKey: "local", secret: "guessed"}), 403, "InvalidSignatureException"},
		{"signed by another access key → 403 UnrecognizedClientException", signedInvoke(awsCall{accessKey: "AKIDEXAMPLE", secret: "local"}), 403, "UnrecognizedClientException"},
		{"the body swapped after signing → 403 InvalidSignatureException", signedInvoke(awsCall{afterSigning: func(r *http.Request) {
			r.Body = io.NopCloser(strings.NewReader(strings.Replace(createProject, "web page", "web-page", 1)))
		}}), 403, "InvalidSignatureException"},
		{"a signed header dropped after signing → 403 InvalidSignatureException", signedInvoke(awsCall{target: "x", afterSigning: func(r *http.Request) { r.Header.Del("X-Amz-Target") }}), 403, "InvalidSignatureException"},
		{"signed 16 minutes ago (past AWS's 15 minutes of skew) → 403 InvalidSignatureException, Signature expired", signedInvoke(awsCall{skew: -16 * time.Minute}), 403, "InvalidSignatureException"},
		{"signed years ago → 403 InvalidSignatureException, Signature expired", signedInvoke(awsCall{skew: -3 * 365 * 24 * time.Hour}), 403, "InvalidSignatureException"},
		{"signed 16 minutes ahead → 403 InvalidSignatureException, Signature not yet current", signedInvoke(awsCall{skew: 16 * time.Minute}), 403, "InvalidSignatureException"},
		{"signed, but text/plain → 403 AccessDeniedException", signedInvoke(awsCall{contentType: "text/plain"}), 403, "AccessDeniedException"},
		{"signed, but multipart/form-data → 403 AccessDeniedException", signedInvoke(awsCall{contentType: "multipart/form-data; boundary=x"}), 403, "AccessDeniedException"},
		{"signed, from a web page (Origin) → 403 AccessDeniedException", signedInvoke(awsCall{origin: "http://127.0.0.1:5173"}), 403, "AccessDeniedException"},
		{"signed for a foreign Host (DNS rebinding) → 403 AccessDeniedException", signedInvoke(awsCall{host: "attacker.example:" + port}), 403, "AccessDeniedException"},
		{"signed for a name that ends like loopback → 403 AccessDeniedException", signedInvoke(awsCall{host: "127.0.0.1.attacker.example:" + port}), 403, "AccessDeniedException"},
		{"signed for loopback at another port → 403 AccessDeniedException", signedInvoke(awsCall{host: "127.0.0.1:1"}), 403, "AccessDeniedException"},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			status, typ, body := tc.call.do(t, rt)
			if status != tc.status || typ != tc.wantType {
				t.Fatalf("%d %s %s, want %d %s", status, typ, body, tc.status, tc.wantType)
			}
			var msg struct{ Message string }
			if json.Unmarshal(body, &msg); msg.Message == "" || strings.Contains(string(body), `"Items"`) {
				t.Fatalf("the refusal says nothing, or carries table data: %s", body)
			}
		})
	}
	t.Run("no refused request created a project", func(t *testing.T) {
		if after := localtest.ProjectCount(t, rt); after != before {
			t.Fatalf("projects: %d before, %d after the refused requests", before, after)
		}
	})
	t.Run("a signature 14 minutes old (within AWS's 15) is accepted", func(t *testing.T) {
		call := signedInvoke(awsCall{skew: -14 * time.Minute})
		call.body = `{"action":"create_project","name":"signed a while ago"}`
		if status, typ, body := call.do(t, rt); status != 200 || typ != "" {
			t.Fatalf("%d %s %s", status, typ, body)
		}
	})

	t.Run("the AWS SDK for Go works with the local credentials", func(t *testing.T) {
		cfg := localtest.AWSConfig(t, rt)
		ctx := context.Background()
		for _, fn := range []string{"botix-local-AdminFunction", "arn:aws:lambda:us-east-1:000000000000:function:botix-local-AdminFunction"} {
			res, err := lambda.NewFromConfig(cfg).Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String(fn), Payload: []byte(`{"action":"create_project","name":"by the SDK"}`)})
			if err != nil || res.FunctionError != nil {
				t.Fatalf("invoke %s: %v %s", fn, err, res.Payload)
			}
		}
		if out, err := dynamodb.NewFromConfig(cfg).Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(rt.Tables()["DataTable"]), Select: ddbtypes.SelectCount}); err != nil || out.Count == 0 {
			t.Fatalf("scan: %v", err)
		}
		// A token the signature must escape (space, slash). NextToken is any
		// string in Scheduler's model; a name prefix is [0-9a-zA-Z-_.]+,
		// and Scheduler would refuse spaces there.
		if _, err := scheduler.NewFromConfig(cfg).ListSchedules(ctx, &scheduler.ListSchedulesInput{NextToken: aws.String("a name/with spaces")}); err != nil {
			t.Fatalf("list schedules (a query string to sign): %v", err)
		}
		if _, err := sqs.NewFromConfig(cfg).ListQueues(ctx, &sqs.ListQueuesInput{}); err != nil {
			t.Fatalf("list queues: %v", err)
		}
	})
	t.Run("requests signed for localhost and [::1] are served", func(t *testing.T) {
		for _, host := range []string{"localhost:" + port, "[::1]:" + port, "127.0.0.1:" + port} {
			c := awsCall{method: "POST", path: "/", contentType: "application/x-amz-json-1.0", target: "DynamoDB_20120810.ListTables", body: "{}", host: host, accessKey: "local", secret: "local", service: "dynamodb"}
			if status, typ, body := c.do(t, rt); status != 200 {
				t.Errorf("Host %s: %d %s %s", host, status, typ, body)
			}
		}
	})
	t.Run("the AWS CLI works with the local credentials", func(t *testing.T) {
		if _, err := exec.LookPath("aws"); err != nil {
			t.Skip("the AWS CLI is not installed; the SDK case above signs the same way")
		}
		out := t.TempDir() + "/out.json"
		for _, args := range [][]string{
			{"lambda", "invoke", "--function-name", "botix-local-AdminFunction", "--payload", `{"action":"create_project","name":"by the CLI"}`, out},
			{"lambda", "invoke", "--function-name", "arn:aws:lambda:us-east-1:000000000000:function:botix-local-AdminFunction", "--payload", `{"action":"create_project","name":"by the CLI"}`, out},
			{"dynamodb", "scan", "--table-name", rt.Tables()["DataTable"], "--select", "COUNT"},
			{"lambda", "invoke", "--function-name", "botix-local-AdminFunction", "--qualifier", "$LATEST", "--payload", `{"action":"create_project","name":"by the CLI"}`, out}, // a query string to sign with an escaped $
			{"scheduler", "list-schedules", "--name-prefix", "by-the"},
			{"scheduler", "create-schedule", "--name", "by-the-cli", "--group-name", "default", "--schedule-expression", "at(2099-01-01T00:00:00)", "--flexible-time-window", "Mode=OFF",
				"--target", `{"Arn":"` + queueARN(rt) + `","RoleArn":"arn:aws:iam::000000000000:role/SchedulerRole","Input":"{}"}`},
			{"scheduler", "delete-schedule", "--name", "by-the-cli"},
			{"sqs", "list-queues"},
		} {
			cmd := exec.Command("aws", append([]string{"--endpoint-url", rt.AWSURL}, args...)...)
			cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local", "AWS_DEFAULT_REGION="+local.Region, "AWS_PAGER=")
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("aws %s: %v\n%s", strings.Join(args[:2], " "), err, b)
			}
		}
		if b, _ := os.ReadFile(out); !bytes.Contains(b, []byte(`"api_key"`)) {
			t.Errorf("the CLI's invoke answered %s", b)
		}
	})
}

func queueARN(rt *local.Runtime) string {
	_, arn := rt.Queue("DeliveryQueue")
	return arn
}

// apiCall sends a request to the local API with a given Host header.
func apiCall(t *testing.T, rt *local.Runtime, method, path, host, key, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, rt.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", uuid.NewString())
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// TestTheLocalAPIAnswersLoopbackHostsOnly: a page whose host name resolves
// to 127.0.0.1 (DNS rebinding) is same-origin with what it reaches, so it
// could read the API with a key it found (the dashboard's, the demo's);
// its requests carry its own name in Host, and the API refuses them.
func TestTheLocalAPIAnswersLoopbackHostsOnly(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	_, key := localtest.Project(t, rt, "")
	u, _ := url.Parse(rt.URL)
	port := u.Port()
	other := strconv.Itoa(otherPort(t, port))
	count := func() string {
		status, body := apiCall(t, rt, "GET", "/public/v1/contacts/count", u.Host, key, "")
		if status != 200 {
			t.Fatalf("count: %d %s", status, body)
		}
		return string(body)
	}
	before := count()
	refused := []struct{ name, method, path, host, body string }{
		{"a rebound name reads the contacts → 404 NOT_FOUND", "GET", "/public/v1/contacts", "attacker.example:" + port, ""},
		{"a rebound name creates a contact → 404 NOT_FOUND", "POST", "/public/v1/contacts", "attacker.example:" + port, `{"phone":"+79990001122","name":"From a page"}`},
		{"a name that starts like loopback → 404 NOT_FOUND", "GET", "/public/v1/contacts", "127.0.0.1.attacker.example:" + port, ""},
		{"localhost as a subdomain of another name → 404 NOT_FOUND", "GET", "/public/v1/contacts", "localhost.attacker.example:" + port, ""},
		{"a rebound name without a port → 404 NOT_FOUND", "GET", "/dashboard/", "attacker.example", ""},
		{"loopback at another port → 404 NOT_FOUND", "GET", "/public/v1/contacts", "127.0.0.1:" + other, ""},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			status, body := apiCall(t, rt, tc.method, tc.path, tc.host, key, tc.body)
			var env apitest.ErrorEnvelope
			_ = json.Unmarshal(body, &env)
			if status != 404 || env.Error.Code != "NOT_FOUND" || !strings.HasPrefix(env.Error.RequestID, "req_") || !strings.Contains(env.Error.Message, tc.host) {
				t.Fatalf("%d %s, want 404 NOT_FOUND in the error envelope naming the Host", status, body)
			}
			if strings.Contains(string(body), `"data"`) {
				t.Fatalf("the refusal carries data: %s", body)
			}
		})
	}
	t.Run("nothing was created through a foreign Host", func(t *testing.T) {
		if after := count(); after != before {
			t.Fatalf("contacts %s before, %s after", before, after)
		}
	})
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port, "127.0.0.2:" + port} {
		t.Run("Host "+host+" is served", func(t *testing.T) {
			if status, body := apiCall(t, rt, "GET", "/public/v1/contacts", host, key, ""); status != 200 {
				t.Fatalf("%d %s", status, body)
			}
		})
	}
}

// otherPort is a loopback port other than port.
func otherPort(t *testing.T, port string) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	p := l.Addr().(*net.TCPAddr).Port
	if strconv.Itoa(p) == port {
		return p + 1
	}
	return p
}
