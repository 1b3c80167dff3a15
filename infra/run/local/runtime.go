// Package local is the local runtime: it plays the AWS glue around the real
// function code so that the whole system runs on one machine without an
// AWS account or Docker. Everything it emulates is derived from
// template.yaml: tables, routes, functions and their environment.
package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/smithy-go/logging"

	"github.com/botix/public-api/infra/run/awsemu"
	"github.com/botix/public-api/infra/run/ddblocal"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/app/registry"
	"github.com/botix/public-api/internal/awsenv"
)

// Region, account and credentials of the local stand-in for AWS.
const (
	Region    = ddblocal.Region
	AccountID = "000000000000"
)

// Config configures a local runtime.
type Config struct {
	Template *template.Template
	// DynamoDBEndpoint is the URL of DynamoDB Local.
	DynamoDBEndpoint string
	// TablePrefix prefixes local table names, so that several runtimes
	// (parallel tests) can share one engine.
	TablePrefix string
	// Addr is the API's listen address; "" picks a free loopback port.
	Addr string
	// AWSAddr is the local AWS endpoint's listen address; "" picks a free
	// loopback port.
	AWSAddr string
	// Parameters override the template parameters' defaults.
	Parameters map[string]string
	// Env adds variables to every function's environment: local-only
	// settings that the template never sets (WEBHOOK_ALLOW_LOOPBACK).
	Env map[string]string
	// Options are passed to every function builder; FunctionOptions to
	// one function's only (by logical id).
	Options         []app.Option
	FunctionOptions map[string][]app.Option
	// Log receives the runtime's own messages; nil discards them.
	Log *slog.Logger
	// VisibilityTimeout and Timeouts override the template's queue
	// visibility timeouts and function timeouts (by logical id), so that
	// crash tests see a message return in seconds rather than minutes.
	VisibilityTimeout map[string]time.Duration
	Timeouts          map[string]time.Duration
	// QueuePollers bounds the concurrent invocations per SQS source
	// (default 4, never above the template's MaximumConcurrency, or the
	// MaximumConcurrency overrides of that queue's source by queue id).
	QueuePollers       int
	MaximumConcurrency map[string]int
	// OnResponse, if set, is told the status of every API response, with
	// the request it answered.
	OnResponse func(req *http.Request, route string, status int)
	// OnExchange, if set, gets every API request and its answer, read
	// whole (the tests check them against the OpenAPI document).
	OnExchange func(Exchange)
	// OnAWSExchange, if set, gets every request to the local AWS and its
	// answer, read whole: the AWS endpoint's (SQS, Scheduler, Lambda
	// Invoke, DynamoDB through it) and DynamoDB Local's, which the
	// functions and the runtime's own clients then reach through a
	// recording proxy. It may be called concurrently.
	OnAWSExchange func(AWSExchange)
	// Meter, if set, counts what AWS would bill for the invocations, API
	// requests and queue polls the runtime makes (the price bench).
	Meter *Meter
}

// Runtime is a running local system.
type Runtime struct {
	// URL is the base URL of the API, e.g. http://127.0.0.1:8080.
	URL string
	// AWSURL is the base URL of the local AWS endpoint (Lambda Invoke,
	// SQS, Scheduler, DynamoDB): the AWS CLI's --endpoint-url.
	AWSURL string

	cfg      Config
	tables   map[string]string
	db       *dynamodb.Client
	streams  *dynamodbstreams.Client
	mappings []*streamMapping
	secrets  map[string]map[string]string
	sqs      *awsemu.SQS
	sched    *awsemu.Scheduler
	queues   map[string]*awsemu.Queue
	sqsMaps  []*sqsMapping
	queue    map[string]app.QueueHandler
	calls    callLog
	fns      map[string]template.Function
	envs     map[string]map[string]string
	http     map[string]app.HTTPHandler
	invoke   map[string]app.InvokeHandler
	stream   map[string]app.StreamHandler
	routes   []route
	server   *http.Server
	listener net.Listener
	throttle *throttle
	// telemetry collects the functions' log lines and EMF metrics.
	telemetry *Telemetry

	awsServer   *http.Server
	ddbRecorder *http.Server // the recording proxy in front of DynamoDB Local, if any
	ddbURL      string       // where functions and the runtime reach DynamoDB
	awsListener net.Listener
	ddbProxy    http.Handler
	awsRecorded http.Handler // routeAWS, recorded for Config.OnAWSExchange; nil when not
	stop        context.CancelFunc
	bg          sync.WaitGroup

	overrunMu sync.Mutex
	overruns  map[string]int
}

// Overruns is how many queue invocations of function fn ran to their
// deadline: their messages return to the queue, and an attempt they made may
// legitimately be made again (as in Lambda). A test that asserts an attempt
// is never repeated holds only while this is 0: on a starved machine it is
// not.
func (r *Runtime) Overruns(fn string) int {
	r.overrunMu.Lock()
	defer r.overrunMu.Unlock()
	return r.overruns[fn]
}

func (r *Runtime) overran(fn string) {
	r.overrunMu.Lock()
	defer r.overrunMu.Unlock()
	if r.overruns == nil {
		r.overruns = map[string]int{}
	}
	r.overruns[fn]++
}

// Start provisions the template's resources and starts the functions and
// the API. Close stops it.
func Start(ctx context.Context, cfg Config) (*Runtime, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	r := &Runtime{telemetry: &Telemetry{}, cfg: cfg, fns: cfg.Template.Functions(), envs: map[string]map[string]string{}, http: map[string]app.HTTPHandler{}, invoke: map[string]app.InvokeHandler{}, stream: map[string]app.StreamHandler{}, queue: map[string]app.QueueHandler{}}
	// The runtime's own clients cancel in-flight reads when it stops; the
	// SDK's warnings about those bodies are noise.
	awsCfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(Region), config.WithLogger(logging.Nop{}),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	if err != nil {
		return nil, err
	}
	awsCfg.HTTPClient = awsenv.OwnBodies(awsCfg.HTTPClient)
	if r.ddbURL, err = r.dynamoDBEndpoint(); err != nil {
		return nil, err
	}
	defer func() {
		if r.ddbRecorder != nil && r.stop == nil {
			_ = r.ddbRecorder.Close() // Start failed
		}
	}()
	r.db = dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) {
		o.BaseEndpoint, o.DisableValidateResponseChecksum = aws.String(r.ddbURL), true
	})
	r.streams = dynamodbstreams.NewFromConfig(awsCfg, func(o *dynamodbstreams.Options) { o.BaseEndpoint = aws.String(r.ddbURL) })
	r.tables, err = ddblocal.CreateTables(ctx, r.db, cfg.Template, func(id string) string { return cfg.TablePrefix + id })
	if err != nil {
		return nil, err
	}
	if err := r.generateSecrets(); err != nil {
		return nil, err
	}
	if err := r.listen(); err != nil {
		return nil, err
	}
	started := false
	defer func() {
		if !started {
			_ = r.listener.Close()
		}
	}()
	if err := r.listenAWS(); err != nil {
		return nil, err
	}
	defer func() {
		if !started {
			_ = r.awsListener.Close()
		}
	}()
	// SQS and EventBridge Scheduler, in process, behind the AWS endpoint.
	r.sqs = awsemu.NewSQS(r.AWSURL, Region, AccountID)
	defer func() {
		if !started {
			r.sqs.Close()
		}
	}()
	r.sched = awsemu.NewScheduler(r.sqs, cfg.Log)
	if err := r.createQueues(); err != nil {
		return nil, err
	}
	if err := r.resolveEnvironments(); err != nil {
		return nil, err
	}
	if err := r.buildFunctions(ctx); err != nil {
		return nil, err
	}
	if err := r.serveAPI(); err != nil {
		return nil, err
	}
	if err := r.serveAWSEndpoint(); err != nil {
		return nil, err
	}
	bgCtx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	for _, m := range r.mappings {
		r.background(func() { r.pollStream(bgCtx, m) })
	}
	pollers := r.cfg.QueuePollers
	if pollers == 0 {
		pollers = 4
	}
	for _, m := range r.sqsMaps {
		if n, ok := r.cfg.MaximumConcurrency[m.queue]; ok {
			m.concurrency = n
		}
		for i := 0; i < min(pollers, m.concurrency); i++ {
			r.background(func() { r.pollQueue(bgCtx, m) })
		}
	}
	r.background(func() { r.sched.Run(bgCtx) })
	started = true
	return r, nil
}

// Close stops the API and every background poller.
func (r *Runtime) Close() error {
	if r.stop != nil {
		r.stop()
	}
	if r.sqs != nil {
		r.sqs.Close() // ends long polls, so that the servers stop at once
	}
	var err error
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if r.server != nil {
		err = r.server.Shutdown(ctx)
	}
	if r.awsServer != nil {
		_ = r.awsServer.Shutdown(ctx)
	}
	r.bg.Wait()
	if r.ddbRecorder != nil {
		_ = r.ddbRecorder.Shutdown(ctx)
	}
	return err
}

func (r *Runtime) background(f func()) {
	r.bg.Add(1)
	go func() {
		defer r.bg.Done()
		f()
	}()
}

// Tables returns logical id -> local table name.
func (r *Runtime) Tables() map[string]string { return r.tables }

// DynamoDB returns a client of the runtime's DynamoDB Local.
func (r *Runtime) DynamoDB() *dynamodb.Client { return r.db }

// Env returns the environment of a function as the runtime gives it.
func (r *Runtime) Env(fn string) app.Env {
	env := r.envs[fn]
	return func(k string) string { return env[k] }
}

// EnvMap returns a copy of a function's environment, to start its real
// binary with (the Lambda emulator test).
func (r *Runtime) EnvMap(fn string) map[string]string {
	out := make(map[string]string, len(r.envs[fn]))
	for k, v := range r.envs[fn] {
		out[k] = v
	}
	return out
}

// Invoke calls a directly invoked function (admin, redrive) with a JSON
// payload, as `aws lambda invoke` would.
func (r *Runtime) Invoke(ctx context.Context, fn string, payload any) (json.RawMessage, error) {
	h, ok := r.invoke[fn]
	if !ok {
		return nil, fmt.Errorf("local: %s is not an invocable function", fn)
	}
	b, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout(fn))
	defer cancel()
	defer r.cfg.Meter.invocation(fn)()
	return h(ctx, b)
}

// resolveEnvironments computes each function's environment: what Lambda
// provides (region, credentials, endpoints of the local services), then the
// template's variables with intrinsics resolved locally, then cfg.Env.
func (r *Runtime) resolveEnvironments() error {
	res := r.resolver()
	for name, fn := range r.fns {
		env := map[string]string{
			"AWS_REGION":                 Region,
			"AWS_ACCESS_KEY_ID":          "local",
			"AWS_SECRET_ACCESS_KEY":      "local",
			"AWS_ENDPOINT_URL_DYNAMODB":  r.ddbURL,
			"AWS_ENDPOINT_URL_SQS":       r.AWSURL,
			"AWS_ENDPOINT_URL_SCHEDULER": r.AWSURL,
			"AWS_LAMBDA_FUNCTION_NAME":   r.functionName(name),
		}
		for k, v := range fn.Environment() {
			s, err := res.String(v)
			if err != nil {
				return fmt.Errorf("local: %s: environment %s: %w", name, k, err)
			}
			env[k] = s
		}
		for k, v := range r.cfg.Env {
			env[k] = v
		}
		r.envs[name] = env
	}
	return nil
}

// stackName names the local stack: "botix-local", or the table prefix
// when several runtimes share one engine (DynamoDB Local's tables).
func (r *Runtime) stackName() string {
	if p := strings.TrimSuffix(r.cfg.TablePrefix, "-"); p != "" {
		return p
	}
	return "botix-local"
}

// FunctionTimeout is the deadline the runtime gives each invocation of
// function fn (a logical id): the template's timeout, unless overridden.
func (r *Runtime) FunctionTimeout(fn string) time.Duration { return r.timeout(fn) }

// Resolve evaluates an expression of a template (Ref, Fn::GetAtt, Fn::Sub,
// dynamic references...) as this runtime provisioned the stack, e.g. a
// queue's Ref to its local URL: a test compares what a deploy's template
// declares with what the runtime built.
func (r *Runtime) Resolve(v any) (string, error) { return r.resolver().String(v) }

// timeout is a function's timeout: the template's, unless overridden.
func (r *Runtime) timeout(fn string) time.Duration {
	if d, ok := r.cfg.Timeouts[fn]; ok {
		return d
	}
	return r.fns[fn].Timeout()
}

func (r *Runtime) functionName(logicalID string) string { return "botix-local-" + logicalID }

func (r *Runtime) ref(name string) (string, error) {
	switch name {
	case "AWS::Region":
		return Region, nil
	case "AWS::AccountId":
		return AccountID, nil
	case "AWS::URLSuffix":
		return "amazonaws.com", nil
	case "AWS::Partition":
		return "aws", nil
	case "AWS::StackName":
		return r.stackName(), nil
	}
	if v, ok := r.cfg.Parameters[name]; ok {
		return v, nil
	}
	if p, ok := r.cfg.Template.Parameters[name]; ok {
		return fmt.Sprint(p["Default"]), nil
	}
	if t, ok := r.tables[name]; ok {
		return t, nil
	}
	if _, ok := r.fns[name]; ok {
		return r.functionName(name), nil
	}
	if _, ok := r.secrets[name]; ok {
		return secretARN(name), nil
	}
	if q, ok := r.queues[name]; ok {
		return q.URL(), nil
	}
	if res, ok := r.cfg.Template.Resources[name]; ok && res.Type == "AWS::Scheduler::ScheduleGroup" {
		return r.resolver().String(res.Properties["Name"])
	}
	return "", fmt.Errorf("local: cannot resolve Ref %s", name)
}

func (r *Runtime) getAtt(res, attr string) (string, error) {
	if t, ok := r.tables[res]; ok && attr == "Arn" {
		return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", Region, AccountID, t), nil
	}
	if q, ok := r.queues[res]; ok {
		switch attr {
		case "Arn":
			return q.ARN(), nil
		case "QueueUrl":
			return q.URL(), nil
		}
	}
	if rs, ok := r.cfg.Template.Resources[res]; ok && rs.Type == "AWS::IAM::Role" && attr == "Arn" {
		return fmt.Sprintf("arn:aws:iam::%s:role/%s", AccountID, res), nil
	}
	return "", fmt.Errorf("local: cannot resolve Fn::GetAtt %s.%s", res, attr)
}

// resolver evaluates the template's intrinsics as this runtime provisioned
// its resources.
func (r *Runtime) resolver() template.Resolver {
	return template.Resolver{Ref: r.ref, GetAtt: r.getAtt, Dynamic: r.dynamic, Conditions: r.cfg.Template.Conditions}
}

func (r *Runtime) dynamic(ref string) (string, error) {
	return r.resolveSecret(ref)
}

// buildFunctions builds every function of the template with the same
// builders the Lambda mains use. A template function without a builder, or
// a builder without a template function, is an error.
func (r *Runtime) buildFunctions(ctx context.Context) error {
	var problems []string
	for name := range r.fns {
		_, isHTTP := registry.HTTP[name]
		_, isInvoke := registry.Invoke[name]
		_, isStream := registry.Stream[name]
		_, isQueue := registry.Queue[name]
		if !isHTTP && !isInvoke && !isStream && !isQueue {
			problems = append(problems, name+" is in template.yaml but has no builder in internal/app/registry")
		}
	}
	buildAll(ctx, r, registry.HTTP, r.http, &problems)
	buildAll(ctx, r, registry.Invoke, r.invoke, &problems)
	buildAll(ctx, r, registry.Stream, r.stream, &problems)
	mappings, err := streamMappings(r.fns)
	if err != nil {
		return err
	}
	for _, m := range mappings {
		if m.handler = r.stream[m.function]; m.handler == nil {
			problems = append(problems, m.function+" has a DynamoDB event source but no stream handler")
		}
	}
	r.mappings = mappings
	buildAll(ctx, r, registry.Queue, r.queue, &problems)
	sqsMaps, err := sqsMappings(r.fns)
	if err != nil {
		return err
	}
	for _, m := range sqsMaps {
		if m.handler = r.queue[m.function]; m.handler == nil {
			problems = append(problems, m.function+" has an SQS event source but no queue handler")
		}
		if _, ok := r.queues[m.queue]; !ok {
			problems = append(problems, m.function+" reads queue "+m.queue+", which is not in the template")
		}
	}
	r.sqsMaps = sqsMaps
	if len(problems) > 0 {
		sort.Strings(problems)
		return errors.New("local: " + strings.Join(problems, "; "))
	}
	return nil
}

// buildAll builds every function of one kind into into, recording
// builders without a template function and builders that fail.
func buildAll[H any](ctx context.Context, r *Runtime, builders map[string]app.Builder[H], into map[string]H, problems *[]string) {
	for name, build := range builders {
		if _, ok := r.fns[name]; !ok {
			*problems = append(*problems, name+" has a builder but is not in template.yaml")
			continue
		}
		opts := append(append([]app.Option{app.WithCallRecorder(r.recorder(name)), app.WithLogTee(r.telemetry.Handler(name))}, r.cfg.Options...), r.cfg.FunctionOptions[name]...)
		h, err := build(ctx, r.Env(name), opts...)
		if err != nil {
			*problems = append(*problems, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		into[name] = h
	}
}

// listen takes the API's address, so that its URL is known before the
// functions are built: it is their PublicApiUrl (inspector URLs).
func (r *Runtime) listen() error {
	addr := r.cfg.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("local: listen on %s: %w (is another make run still running?)", addr, err)
	}
	r.listener, r.URL = l, "http://"+l.Addr().String()
	params := map[string]string{"PublicApiUrl": r.URL}
	for k, v := range r.cfg.Parameters {
		params[k] = v
	}
	r.cfg.Parameters = params
	return nil
}

func (r *Runtime) serveAPI() error {
	routes, err := compileRoutes(r.cfg.Template.Routes())
	if err != nil {
		return err
	}
	for _, rt := range routes {
		if _, ok := r.http[rt.function]; !ok {
			return fmt.Errorf("local: route %s targets %s, which is not an API function", rt.key, rt.function)
		}
	}
	r.routes = routes
	if r.throttle, err = r.stageThrottle(); err != nil {
		return err
	}
	r.server = &http.Server{Handler: http.HandlerFunc(r.serveHTTP), ReadHeaderTimeout: 10 * time.Second}
	l := r.listener
	go func() {
		if err := r.server.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "local: API server:", err)
		}
	}()
	return nil
}

// HTTPHandler returns the handler of an API function, to invoke it with a
// hand-made event (the samples in events/).
func (r *Runtime) HTTPHandler(fn string) (app.HTTPHandler, bool) {
	h, ok := r.http[fn]
	return h, ok
}

// Function returns the template's declaration of a function.
func (r *Runtime) Function(fn string) (template.Function, bool) {
	f, ok := r.fns[fn]
	return f, ok
}

// StreamHandler returns the handler of a stream consumer.
func (r *Runtime) StreamHandler(fn string) (app.StreamHandler, bool) {
	h, ok := r.stream[fn]
	return h, ok
}

// QueueHandler returns the handler of an SQS consumer.
func (r *Runtime) QueueHandler(fn string) (app.QueueHandler, bool) {
	h, ok := r.queue[fn]
	return h, ok
}
