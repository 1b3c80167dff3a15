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

	"github.com/botix/public-api/infra/template"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/app/registry"
)

// Region, account and credentials of the local stand-in for AWS.
const (
	Region    = "us-east-1"
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
	// Parameters override the template parameters' defaults.
	Parameters map[string]string
	// Env adds variables to every function's environment: local-only
	// settings that the template never sets (WEBHOOK_ALLOW_LOOPBACK).
	Env map[string]string
	// Options are passed to every function builder.
	Options []app.Option
	// Log receives the runtime's own messages; nil discards them.
	Log *slog.Logger
}

// Runtime is a running local system.
type Runtime struct {
	// URL is the base URL of the API, e.g. http://127.0.0.1:8080.
	URL string

	cfg      Config
	tables   map[string]string
	db       *dynamodb.Client
	streams  *dynamodbstreams.Client
	mappings []*streamMapping
	secrets  map[string]map[string]string
	fns      map[string]template.Function
	envs     map[string]map[string]string
	http     map[string]app.HTTPHandler
	invoke   map[string]app.InvokeHandler
	stream   map[string]app.StreamHandler
	routes   []route
	server   *http.Server
	stop     context.CancelFunc
	bg       sync.WaitGroup
	closeErr error
}

// Start provisions the template's resources and starts the functions and
// the API. Close stops it.
func Start(ctx context.Context, cfg Config) (*Runtime, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	r := &Runtime{cfg: cfg, fns: cfg.Template.Functions(), envs: map[string]map[string]string{}, http: map[string]app.HTTPHandler{}, invoke: map[string]app.InvokeHandler{}, stream: map[string]app.StreamHandler{}}
	// The runtime's own clients cancel in-flight reads when it stops; the
	// SDK's warnings about those bodies are noise.
	awsCfg, err := config.LoadDefaultConfig(ctx, config.WithRegion(Region), config.WithLogger(logging.Nop{}),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	if err != nil {
		return nil, err
	}
	r.db = dynamodb.NewFromConfig(awsCfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(cfg.DynamoDBEndpoint) })
	r.streams = dynamodbstreams.NewFromConfig(awsCfg, func(o *dynamodbstreams.Options) { o.BaseEndpoint = aws.String(cfg.DynamoDBEndpoint) })
	r.tables, err = CreateTables(ctx, r.db, cfg.Template, func(id string) string { return cfg.TablePrefix + id })
	if err != nil {
		return nil, err
	}
	if err := r.generateSecrets(); err != nil {
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
	bgCtx, cancel := context.WithCancel(context.Background())
	r.stop = cancel
	for _, m := range r.mappings {
		r.background(func() { r.pollStream(bgCtx, m) })
	}
	return r, nil
}

// Close stops the API and every background poller.
func (r *Runtime) Close() error {
	if r.stop != nil {
		r.stop()
	}
	if r.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r.closeErr = r.server.Shutdown(ctx)
	}
	r.bg.Wait()
	return r.closeErr
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
	ctx, cancel := context.WithTimeout(ctx, r.fns[fn].Timeout())
	defer cancel()
	return h(ctx, b)
}

// resolveEnvironments computes each function's environment: what Lambda
// provides (region, credentials, endpoints of the local services), then the
// template's variables with intrinsics resolved locally, then cfg.Env.
func (r *Runtime) resolveEnvironments() error {
	res := template.Resolver{Ref: r.ref, GetAtt: r.getAtt, Dynamic: r.dynamic}
	for name, fn := range r.fns {
		env := map[string]string{
			"AWS_REGION":                Region,
			"AWS_ACCESS_KEY_ID":         "local",
			"AWS_SECRET_ACCESS_KEY":     "local",
			"AWS_ENDPOINT_URL_DYNAMODB": r.cfg.DynamoDBEndpoint,
			"AWS_LAMBDA_FUNCTION_NAME":  r.functionName(name),
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
		return "botix-local", nil
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
	return "", fmt.Errorf("local: cannot resolve Ref %s", name)
}

func (r *Runtime) getAtt(res, attr string) (string, error) {
	if t, ok := r.tables[res]; ok && attr == "Arn" {
		return fmt.Sprintf("arn:aws:dynamodb:%s:%s:table/%s", Region, AccountID, t), nil
	}
	return "", fmt.Errorf("local: cannot resolve Fn::GetAtt %s.%s", res, attr)
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
		if !isHTTP && !isInvoke && !isStream {
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
		h, err := build(ctx, r.Env(name), r.cfg.Options...)
		if err != nil {
			*problems = append(*problems, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		into[name] = h
	}
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
	addr := r.cfg.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("local: listen on %s: %w (is another make run still running?)", addr, err)
	}
	r.URL = "http://" + l.Addr().String()
	r.server = &http.Server{Handler: http.HandlerFunc(r.serveHTTP), ReadHeaderTimeout: 10 * time.Second}
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
