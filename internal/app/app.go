// Package app wires the functions of template.yaml: for each logical id, a
// builder that reads the function's environment, creates its clients and
// returns its Lambda handler. The Lambda mains (functions/*/main.go) and
// the local runtime (infra/run/local) call the same builders, so what runs
// locally is what deploys.
package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/botix/public-api/internal/api"
	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/app/awsfree"
	"github.com/botix/public-api/internal/auth"
	"github.com/botix/public-api/internal/awsenv"
	"github.com/botix/public-api/internal/awsqueue"
	"github.com/botix/public-api/internal/cursor"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/idempotency"
	"github.com/botix/public-api/internal/pagination"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
	"github.com/botix/public-api/internal/webhook/addrguard"
)

// Env looks up a function's environment variable ("" when unset).
type Env = awsenv.Env

// Environment variables the functions read (template.yaml sets them; a
// test checks that every one a function reads is set for it).
const (
	EnvDataTable        = "DATA_TABLE"
	EnvIdempotencyTable = "IDEMPOTENCY_TABLE"
	EnvDeliveriesTable  = "DELIVERIES_TABLE"
	EnvLogLevel         = awsfree.EnvLogLevel
	EnvPublicAPIURL     = awsfree.EnvPublicAPIURL
	EnvCursorKeys       = "CURSOR_SIGNING_KEYS"
	EnvCursorRevision   = "CURSOR_KEYS_REVISION"
	EnvOffsetMax        = "OFFSET_MAX"
	EnvOffsetDeprecated = awsfree.EnvOffsetDeprecated
	EnvOffsetSunset     = awsfree.EnvOffsetSunset
	EnvOffsetDocsURL    = awsfree.EnvOffsetDocsURL
	EnvOffsetTimeBudget = "OFFSET_TIME_BUDGET"

	EnvDeliveryQueueURL   = "DELIVERY_QUEUE_URL"
	EnvBulkQueueURL       = "BULK_DELIVERY_QUEUE_URL"
	EnvDeliveryQueueARN   = "DELIVERY_QUEUE_ARN"
	EnvDeadLetterQueueURL = "DEAD_LETTER_QUEUE_URL"
	EnvScheduleGroup      = "WEBHOOK_SCHEDULE_GROUP"
	EnvSchedulerRoleARN   = "SCHEDULER_ROLE_ARN"
	EnvRetrySchedule      = "WEBHOOK_RETRY_SCHEDULE"
	EnvConnectTimeout     = "WEBHOOK_CONNECT_TIMEOUT"
	EnvReadTimeout        = "WEBHOOK_READ_TIMEOUT"
	EnvAutoDisableAfter   = "WEBHOOK_AUTO_DISABLE_AFTER"
	EnvRecoveryPace       = "WEBHOOK_RECOVERY_PACE"
	// EnvAllowLoopback is set by the local runtime only: webhooks may
	// then target http:// and loopback addresses. The template never sets
	// it (a test checks).
	EnvAllowLoopback = "WEBHOOK_ALLOW_LOOPBACK"
)

// HTTPHandler is the Lambda handler of an API route.
type HTTPHandler = awsfree.HTTPHandler

// StreamHandler is the Lambda handler of a DynamoDB stream consumer.
type StreamHandler = func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error)

// QueueHandler is the Lambda handler of an SQS consumer.
type QueueHandler = func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)

// InvokeHandler is the Lambda handler of a function invoked directly with a
// JSON payload (admin, redrive).
type InvokeHandler = func(context.Context, json.RawMessage) (json.RawMessage, error)

// Builder creates a function's handler from its environment.
type Builder[H any] func(ctx context.Context, env Env, opts ...Option) (H, error)

// Option adjusts how a builder wires a function; tests and the local
// runtime use them to observe or inject faults into AWS calls and time.
type Option func(*options)

type options struct {
	dynamo     []func(*dynamodb.Options)
	sqs        []func(*sqs.Options)
	scheduler  []func(*scheduler.Options)
	now        func() time.Time
	log        *slog.Logger
	logTee     slog.Handler
	hooks      idempotency.Hooks
	deliveries webhook.Hooks
	calls      CallRecorder
}

// WithDynamoDB adds options to the DynamoDB client (e.g. a middleware that
// counts calls or injects failures).
func WithDynamoDB(o ...func(*dynamodb.Options)) Option {
	return func(x *options) { x.dynamo = append(x.dynamo, o...) }
}

// WithSQS adds options to the SQS client (e.g. a middleware that counts
// requests).
func WithSQS(o ...func(*sqs.Options)) Option {
	return func(x *options) { x.sqs = append(x.sqs, o...) }
}

// WithScheduler adds options to the EventBridge Scheduler client.
func WithScheduler(o ...func(*scheduler.Options)) Option {
	return func(x *options) { x.scheduler = append(x.scheduler, o...) }
}

// WithClock replaces the wall clock.
func WithClock(now func() time.Time) Option { return func(x *options) { x.now = now } }

// WithMutationHooks installs test hooks between the steps of every
// mutation (see idempotency.Hooks).
func WithMutationHooks(h idempotency.Hooks) Option { return func(x *options) { x.hooks = h } }

// WithDeliveryHooks installs test hooks in the webhook pipeline.
func WithDeliveryHooks(h webhook.Hooks) Option { return func(x *options) { x.deliveries = h } }

// WithLogger replaces the JSON logger on stdout.
func WithLogger(l *slog.Logger) Option { return func(x *options) { x.log = l } }

// WithLogTee also sends every line the function logs, metrics included, to
// h (the local runtime's collector), whatever logger it has.
func WithLogTee(h slog.Handler) Option { return func(x *options) { x.logTee = h } }

// Start runs a function in Lambda: it builds the handler from the process
// environment and hands it to the Lambda runtime. A function that cannot
// be built logs why and exits, which Lambda reports as an init error.
func Start[H any](build Builder[H]) {
	awsfree.Start(func(ctx context.Context, env awsfree.Env, _ awsfree.Wiring) (H, error) { return build(ctx, env) })
}

// core holds what every function of the API needs: the AWS-free core
// (variables, logger, clock) and the AWS configuration and store.
type core struct {
	*awsfree.Core
	opts  options
	aws   aws.Config
	store *store.Store
}

func newCore(ctx context.Context, env Env, opts []Option) (*core, error) {
	c := &core{}
	for _, o := range opts {
		o(&c.opts)
	}
	c.Core = awsfree.NewCore(env, awsfree.Wiring{Log: c.opts.log, Tee: c.opts.logTee, Now: c.opts.now})
	cfg, err := awsenv.Load(ctx, env, c.Log)
	if err != nil {
		return nil, fmt.Errorf("aws config: %w", err)
	}
	c.aws = cfg
	db := dynamodb.NewFromConfig(cfg, append([]func(*dynamodb.Options){func(o *dynamodb.Options) {
		o.BaseEndpoint = awsenv.Endpoint(env, "DYNAMODB")
		o.DisableValidateResponseChecksum = awsenv.LocalDynamoDB(env)
		if c.opts.calls != nil {
			o.APIOptions = append(o.APIOptions, recordCalls(c.opts.calls))
		}
	}}, c.opts.dynamo...)...)
	c.store = store.New(db, store.Tables{
		Data: c.Vars.Required(EnvDataTable), Idempotency: c.Vars.Required(EnvIdempotencyTable), Deliveries: c.Vars.Required(EnvDeliveriesTable),
	})
	c.store.Now = c.opts.now
	return c, c.Vars.Err()
}

func (c *core) authenticator() *auth.Cached {
	return &auth.Cached{Keys: c.store, Sessions: c.store, NotFound: store.IsNotFound, TTL: time.Minute, NegativeTTL: 5 * time.Second, Now: c.opts.now}
}

// access is who may call an API route.
type access struct {
	// authenticated routes take an API key; public ones take nothing.
	authenticated bool
	// sessions is the grant a dashboard session needs ("": keys only).
	sessions auth.Grant
}

var (
	publicAccess = access{}
	keyOnly      = access{authenticated: true}
	readAccess   = access{authenticated: true, sessions: auth.GrantRead}
	retryAccess  = access{authenticated: true, sessions: auth.GrantRetry}
)

// endpoint returns the Lambda handler of an API route: authenticated or
// public, with a body limit (0: the default).
func (c *core) endpoint(h httpapi.Handler, maxBody int, who access, takesQuery bool) HTTPHandler {
	e := c.Endpoint(h, maxBody)
	if who.authenticated {
		e.Auth = c.authenticator()
		e.SessionGrant = who.sessions
	}
	e.NoQuery = !takesQuery
	return e.Serve
}

// mutations runs mutating routes under pillar 1.
func (c *core) mutations() *api.Mutations {
	return &api.Mutations{Runner: &idempotency.Runner{Store: c.store.Idempotency(), Answer: api.FinalAnswer, Log: c.Log, Hooks: c.opts.hooks, Now: c.opts.now}}
}

// pager reads the pagination configuration: cursor signing keys and the
// offset mode's policy.
func (c *core) pager() *pagination.Pager {
	p := &pagination.Pager{Offset: c.ReadOffsetNotice()}
	p.Offset.Max = c.Vars.Integer(EnvOffsetMax)
	p.Offset.TimeBudget = c.Vars.Duration(EnvOffsetTimeBudget)
	if keys := c.Vars.Required(EnvCursorKeys); keys != "" {
		kr, err := cursor.ParseKeyring(keys)
		if err != nil {
			c.Vars.Bad(EnvCursorKeys, err)
		} else {
			// Ops check a rotation took effect here; only key ids are logged.
			c.Log.Info("cursor signing keys loaded", "signing_kid", kr.IDs()[0], "kids", kr.IDs(), "revision", c.Vars.Optional(EnvCursorRevision, "unset"))
		}
		p.Keys = kr
	}
	c.CheckOffset(p.Offset.Validate)
	return p
}

// guard is the webhook address guard of this function's environment.
func (c *core) guard() addrguard.Guard {
	return addrguard.Guard{AllowLoopback: c.Vars.Lookup(EnvAllowLoopback) == "true"}
}

func (c *core) sqs() *sqs.Client {
	return sqs.NewFromConfig(c.aws, append([]func(*sqs.Options){func(o *sqs.Options) {
		o.BaseEndpoint = awsenv.Endpoint(c.Vars.Lookup, "SQS")
		if c.opts.calls != nil {
			o.APIOptions = append(o.APIOptions, recordCalls(c.opts.calls))
		}
	}}, c.opts.sqs...)...)
}

// queue is the delivery queue and its bulk lane of this function's
// environment.
func (c *core) queue() *awsqueue.Queue {
	return &awsqueue.Queue{SQS: c.sqs(), URL: c.Vars.Required(EnvDeliveryQueueURL), BulkURL: c.Vars.Required(EnvBulkQueueURL)}
}

func (c *core) scheduler() *scheduler.Client {
	return scheduler.NewFromConfig(c.aws, append([]func(*scheduler.Options){func(o *scheduler.Options) {
		o.BaseEndpoint = awsenv.Endpoint(c.Vars.Lookup, "SCHEDULER")
		if c.opts.calls != nil {
			o.APIOptions = append(o.APIOptions, recordCalls(c.opts.calls))
		}
	}}, c.opts.scheduler...)...)
}

// invoke adapts a typed handler to InvokeHandler. Errors keep their public
// message; internal ones are logged and reported without their text.
func invoke[In, Out any](log *slog.Logger, h func(context.Context, In) (Out, error)) InvokeHandler {
	return func(ctx context.Context, payload json.RawMessage) (json.RawMessage, error) {
		var in In
		if len(payload) > 0 {
			if err := json.Unmarshal(payload, &in); err != nil {
				return nil, apierr.New(apierr.InvalidJSON, "the payload is not valid JSON for this function: %v", err)
			}
		}
		out, err := h(ctx, in)
		if err != nil {
			if _, public := apierr.As(err); !public || apierr.Is(err, apierr.ServiceUnavailable) {
				log.ErrorContext(ctx, "invocation failed", "error", err.Error())
				return nil, errors.New("internal error; see the function's logs")
			}
			return nil, err
		}
		return json.Marshal(out)
	}
}

// pace reads a recovery pace: deliveries per second, above zero.
func pace(r *awsfree.Vars, name string) webhook.RecoveryPace {
	v := r.Required(name)
	p, err := strconv.ParseFloat(v, 64)
	if v != "" && (err != nil || p <= 0) {
		r.Bad(name, errors.New("not a number of deliveries per second above 0"))
	}
	return webhook.RecoveryPace(p)
}
