package local

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"reflect"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/infra/run/awsemu"
	"github.com/botix/public-api/internal/awslimits"
)

// The local AWS endpoint: one address where the AWS APIs the runbook uses
// answer the real AWS CLI and SDKs, unchanged apart from --endpoint-url —
// Lambda Invoke of every function of the template, SQS and EventBridge
// Scheduler (package awsemu, in process: queue URLs point here, and the
// message move tasks the console's "Start DLQ redrive" runs work), and
// DynamoDB (DynamoDB Local behind a proxy).
//
// Requests are told apart as the services tell them apart: X-Amz-Target for
// the JSON protocols (DynamoDB_20120810.*, AmazonSQS.*), the path for
// REST ones (/2015-03-31/functions/... for Lambda, /schedules and
// /schedule-groups for Scheduler). Only signed requests from this machine
// get there: see guard.go.

// listenAWS takes the AWS endpoint's address.
func (r *Runtime) listenAWS() error {
	addr := r.cfg.AWSAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("local: listen on %s for the AWS endpoint: %w (is another make run still running?)", addr, err)
	}
	r.awsListener, r.AWSURL = l, "http://"+l.Addr().String()
	return nil
}

// serveAWSEndpoint starts the AWS endpoint's server.
func (r *Runtime) serveAWSEndpoint() error {
	ddb, err := url.Parse(r.cfg.DynamoDBEndpoint)
	if err != nil {
		return err
	}
	r.ddbProxy = httputil.NewSingleHostReverseProxy(ddb)
	if r.cfg.OnAWSExchange != nil {
		r.awsRecorded = r.recordAWS(http.HandlerFunc(r.routeAWS))
	}
	r.awsServer = &http.Server{Handler: http.HandlerFunc(r.serveAWS), ReadHeaderTimeout: 10 * time.Second}
	l := r.awsListener
	go func() { _ = r.awsServer.Serve(l) }()
	return nil
}

const invokePrefix = "/2015-03-31/functions/"

func (r *Runtime) serveAWS(w http.ResponseWriter, req *http.Request) {
	if !r.guardAWS(w, req) {
		return
	}
	// What the guard refuses is the local endpoint's own defence, not an
	// AWS API's answer: only what passes it is recorded.
	if r.awsRecorded != nil {
		r.awsRecorded.ServeHTTP(w, req)
		return
	}
	r.routeAWS(w, req)
}

// routeAWS hands a request to the service it is for.
func (r *Runtime) routeAWS(w http.ResponseWriter, req *http.Request) {
	target := req.Header.Get("X-Amz-Target")
	switch {
	case strings.HasPrefix(target, "DynamoDB_20120810."), strings.HasPrefix(target, "DynamoDBStreams_20120810."):
		r.ddbProxy.ServeHTTP(w, req)
	case strings.HasPrefix(target, "AmazonSQS."):
		r.sqs.ServeHTTP(w, req)
	case strings.HasPrefix(req.URL.Path, invokePrefix) && strings.HasSuffix(req.URL.Path, "/invocations") && req.Method == http.MethodPost:
		r.serveInvoke(w, req)
	case awsemu.IsScheduler(req):
		r.sched.ServeHTTP(w, req)
	default:
		writeAWSError(w, http.StatusBadRequest, "UnknownOperationException", "the local AWS endpoint serves Lambda Invoke, SQS, EventBridge Scheduler and DynamoDB; not "+req.Method+" "+req.URL.Path+" "+target)
	}
}

// writeAWSError answers in the shape of the AWS JSON protocols.
func writeAWSError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amzn-ErrorType", code)
	w.WriteHeader(status)
	// "message", as AWS's models spell it for the errors written here:
	// SQS's, and Lambda's InvalidRequestContentException and
	// RequestTooLargeException (infra/testkit/awsmodel refuses a member a shape
	// does not have; Lambda's ResourceNotFoundException, which spells it
	// "Message", is written by serveInvoke itself).
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": code, "message": message})
}

// serveInvoke plays Lambda's Invoke for every function of the template,
// found by name (botix-local-<LogicalId>), ARN or logical id. A function
// error answers 200 with X-Amz-Function-Error, as Lambda does.
func (r *Runtime) serveInvoke(w http.ResponseWriter, req *http.Request) {
	raw := strings.TrimSuffix(strings.TrimPrefix(req.URL.Path, invokePrefix), "/invocations")
	name, _ := url.PathUnescape(raw)
	fn, ok := r.functionByName(name)
	if !ok {
		w.Header().Set("X-Amzn-ErrorType", "ResourceNotFoundException")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(map[string]string{"Type": "User", "Message": "Function not found: " + r.functionARN(name)})
		return
	}
	// Lambda's bounds on a request, each by invocation type.
	async := req.Header.Get("X-Amz-Invocation-Type") == "Event"
	limit, invocationType := awslimits.LambdaPayloadBytes, "RequestResponse"
	if async {
		limit, invocationType = awslimits.LambdaAsyncPayloadBytes, "Event"
	}
	payload, err := io.ReadAll(io.LimitReader(req.Body, int64(limit)+1))
	if err != nil {
		writeAWSError(w, http.StatusBadRequest, "InvalidRequestContentException", err.Error())
		return
	}
	if len(payload) > limit {
		size := max(int64(len(payload)), req.ContentLength)
		writeAWSError(w, http.StatusRequestEntityTooLarge, "RequestTooLargeException", fmt.Sprintf("%d byte payload is too large for the %s invocation type (limit %d bytes)", size, invocationType, limit))
		return
	}
	if len(bytes.TrimSpace(payload)) == 0 {
		payload = []byte("{}")
	}
	if !json.Valid(payload) {
		writeAWSError(w, http.StatusBadRequest, "InvalidRequestContentException", "Could not parse request body into json")
		return
	}
	run := func(ctx context.Context) ([]byte, error) {
		ctx, cancel := context.WithTimeout(ctx, r.timeout(fn))
		defer cancel()
		return r.invokeJSON(ctx, fn, payload)
	}
	if async {
		r.background(func() { _, _ = run(context.Background()) })
		w.WriteHeader(http.StatusAccepted)
		return
	}
	out, err := run(context.WithoutCancel(req.Context()))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amz-Executed-Version", "$LATEST")
	if err != nil {
		w.Header().Set("X-Amz-Function-Error", "Unhandled")
		w.WriteHeader(http.StatusOK)
		_ = json.NewEncoder(w).Encode(map[string]string{"errorMessage": err.Error(), "errorType": errorType(err)})
		return
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// errorType names an error the way the Lambda Go runtime does.
func errorType(err error) string {
	t := reflect.TypeOf(err)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// functionByName finds a function by its local name, ARN or logical id.
func (r *Runtime) functionByName(name string) (string, bool) {
	if i := strings.LastIndex(name, ":function:"); i >= 0 {
		name = name[i+len(":function:"):]
	}
	name = strings.TrimPrefix(name, r.functionName(""))
	_, ok := r.fns[name]
	return name, ok
}

func (r *Runtime) functionARN(name string) string {
	return fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", Region, AccountID, name)
}

// invokeJSON invokes any function of the template with a JSON payload, as
// Lambda would: the payload is the function's event.
func (r *Runtime) invokeJSON(ctx context.Context, fn string, payload []byte) ([]byte, error) {
	defer r.cfg.Meter.invocation(fn)()
	if h, ok := r.invoke[fn]; ok {
		return h(ctx, payload)
	}
	if h, ok := r.http[fn]; ok {
		return handleJSON[events.APIGatewayV2HTTPRequest](ctx, payload, h)
	}
	if h, ok := r.stream[fn]; ok {
		return handleJSON[events.DynamoDBEvent](ctx, payload, h)
	}
	if h, ok := r.queue[fn]; ok {
		return handleJSON[events.SQSEvent](ctx, payload, h)
	}
	return nil, fmt.Errorf("local: %s has no handler", fn)
}

func handleJSON[In, Out any](ctx context.Context, payload []byte, h func(context.Context, In) (Out, error)) ([]byte, error) {
	var in In
	if err := json.Unmarshal(payload, &in); err != nil {
		return nil, err
	}
	out, err := h(ctx, in)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}
