package app

import (
	"context"
	"net"

	"github.com/botix/public-api/internal/admin"
	"github.com/botix/public-api/internal/api"
	"github.com/botix/public-api/internal/app/awsfree"
	"github.com/botix/public-api/internal/awsqueue"
	"github.com/botix/public-api/internal/catalogapply"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/outbox"
	"github.com/botix/public-api/internal/webhook"
)

// The API functions of template.yaml. Each builder is named after its
// logical id without "Function" and its functions/ directory after the
// same name in kebab case (a test checks); it names the handler method of
// package api that serves its route.
//
// They are functions, not variables holding what the generic helpers
// below return: a package variable's initializer runs when the package is
// initialized, in every binary that imports it, so every Lambda would link
// every route's handler. A function is linked only where it is called, by
// its own main and by internal/app/registry (infra/checks/templatecheck checks
// the binaries).

// CreateContact builds CreateContactFunction: POST /public/v1/contacts.
func CreateContact(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return mutation((*api.Contacts).Create, 0)(ctx, env, opts...)
}

// GetContact builds GetContactFunction: GET /public/v1/contacts/{id}.
func GetContact(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return read((*api.Contacts).Get)(ctx, env, opts...)
}

// ListContacts builds ListContactsFunction: GET /public/v1/contacts.
func ListContacts(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return list((*api.Contacts).List)(ctx, env, opts...)
}

// CountContacts builds CountContactsFunction: GET /public/v1/contacts/count.
func CountContacts(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return read((*api.Contacts).Count)(ctx, env, opts...)
}

// SendMessage builds SendMessageFunction: POST /public/v1/messages.
func SendMessage(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return mutation((*api.Messages).Create, 0)(ctx, env, opts...)
}

// ListMessages builds ListMessagesFunction: GET /public/v1/messages.
func ListMessages(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return list((*api.Messages).List)(ctx, env, opts...)
}

// ImportCatalog builds ImportCatalogFunction: POST /public/v1/catalog/imports.
func ImportCatalog(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return mutation((*api.Catalog).Import, api.MaxImportBody)(ctx, env, opts...)
}

// RunScenario builds RunScenarioFunction: POST /public/v1/scenarios/{scenario_id}/runs.
func RunScenario(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return mutation((*api.Scenarios).Run, 0)(ctx, env, opts...)
}

// CreateWebhookEndpoint builds CreateWebhookEndpointFunction: POST /public/v1/webhook-endpoints.
func CreateWebhookEndpoint(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return mutation((*api.WebhookEndpoints).Create, 0)(ctx, env, opts...)
}

// ListWebhookEndpoints builds ListWebhookEndpointsFunction: GET /public/v1/webhook-endpoints.
func ListWebhookEndpoints(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return list((*api.WebhookEndpoints).List)(ctx, env, opts...)
}

// GetWebhookEndpoint builds GetWebhookEndpointFunction: GET /public/v1/webhook-endpoints/{id}.
func GetWebhookEndpoint(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return read((*api.WebhookEndpoints).Get)(ctx, env, opts...)
}

// UpdateWebhookEndpoint builds UpdateWebhookEndpointFunction: PATCH /public/v1/webhook-endpoints/{id}.
func UpdateWebhookEndpoint(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return mutation((*api.WebhookEndpoints).Update, 0)(ctx, env, opts...)
}

// DeleteWebhookEndpoint builds DeleteWebhookEndpointFunction: DELETE /public/v1/webhook-endpoints/{id}.
func DeleteWebhookEndpoint(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return mutation((*api.WebhookEndpoints).Delete, 0)(ctx, env, opts...)
}

// RotateWebhookSecret builds RotateWebhookSecretFunction: POST /public/v1/webhook-endpoints/{id}/rotate-secret.
func RotateWebhookSecret(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return mutation((*api.WebhookEndpoints).RotateSecret, 0)(ctx, env, opts...)
}

// TestWebhookEndpoint builds TestWebhookEndpointFunction: POST /public/v1/webhook-endpoints/{id}/test.
func TestWebhookEndpoint(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return mutation((*api.WebhookEndpoints).Test, 0)(ctx, env, opts...)
}

// RecoverWebhookEndpoint builds RecoverWebhookEndpointFunction: POST /public/v1/webhook-endpoints/{id}/recover.
func RecoverWebhookEndpoint(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return dashboardMutation((*api.WebhookEndpoints).Recover, recoveryPace)(ctx, env, opts...)
}

// ListDeliveries builds ListDeliveriesFunction: GET /public/v1/webhook-deliveries.
func ListDeliveries(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return list((*api.Deliveries).List)(ctx, env, opts...)
}

// GetDelivery builds GetDeliveryFunction: GET /public/v1/webhook-deliveries/{id}.
func GetDelivery(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return read((*api.Deliveries).Get)(ctx, env, opts...)
}

// GetDeliveryStats builds GetDeliveryStatsFunction: GET /public/v1/webhook-deliveries/stats.
func GetDeliveryStats(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return filtered((*api.Deliveries).Stats)(ctx, env, opts...)
}

// RetryDelivery builds RetryDeliveryFunction: POST /public/v1/webhook-deliveries/{id}/retry.
func RetryDelivery(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return dashboardMutation((*api.Deliveries).Retry)(ctx, env, opts...)
}

// RedirectDelivery builds RedirectDeliveryFunction: POST /public/v1/webhook-deliveries/{id}/redirect.
func RedirectDelivery(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return mutation((*api.Deliveries).Redirect, 0)(ctx, env, opts...)
}

// CreateInspector builds CreateInspectorFunction: POST /public/v1/inspectors.
func CreateInspector(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return mutation((*api.Inspectors).Create, 0)(ctx, env, opts...)
}

// CaptureInspector builds CaptureInspectorFunction: ANY /inspect/{id}.
func CaptureInspector(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return public((*api.Inspectors).Capture, api.MaxCaptureBody)(ctx, env, opts...)
}

// ListInspectorRequests builds ListInspectorRequestsFunction: GET /public/v1/inspectors/{id}/requests.
func ListInspectorRequests(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return list((*api.Inspectors).Requests)(ctx, env, opts...)
}

// ListEvents builds ListEventsFunction: GET /public/v1/events.
func ListEvents(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return list((*api.Events).List)(ctx, env, opts...)
}

// GetEvent builds GetEventFunction: GET /public/v1/events/{id}.
func GetEvent(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return read((*api.Events).Get)(ctx, env, opts...)
}

// CreateDashboardSession builds CreateDashboardSessionFunction: POST /public/v1/dashboard-sessions.
func CreateDashboardSession(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return mutation((*api.DashboardSessions).Create, 0)(ctx, env, opts...)
}

// GetCurrentDashboardSession builds GetCurrentDashboardSessionFunction: GET /public/v1/dashboard-sessions/current.
func GetCurrentDashboardSession(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return read((*api.DashboardSessions).Current)(ctx, env, opts...)
}

// ListDashboardSessions builds ListDashboardSessionsFunction: GET /public/v1/dashboard-sessions.
func ListDashboardSessions(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return keyList((*api.DashboardSessions).List)(ctx, env, opts...)
}

// DeleteDashboardSession builds DeleteDashboardSessionFunction: DELETE /public/v1/dashboard-sessions/{id}.
func DeleteDashboardSession(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return mutation((*api.DashboardSessions).Delete, 0)(ctx, env, opts...)
}

// handlerSet is a handler set of package api: a struct embedding api.Deps.
type handlerSet[S any] interface {
	*S
	Use(api.Deps)
}

type (
	serveFunc[PS any] = func(PS, context.Context, *httpapi.Request) (*httpapi.Response, error)
	opFunc[PS any]    = func(PS, context.Context, *httpapi.Request) (api.Outcome, error)
)

// newSet builds a handler set over the function's core; lists get the
// pager, which needs the cursor keys only list functions are given.
func newSet[S any, PS handlerSet[S]](c *core, paged bool, configure ...func(*core, *api.Deps)) PS {
	deps := api.Deps{Store: c.store, Guard: c.guard(), Resolver: net.DefaultResolver, Now: c.opts.now}
	if paged {
		deps.Pager = c.pager()
	}
	for _, f := range configure {
		f(c, &deps)
	}
	var set S
	PS(&set).Use(deps)
	return &set
}

// httpRoute builds an API function served by serve under the common HTTP
// contract: auth unless public, the body limit (0: the default), and no
// query parameters unless the route takes some (its handler then checks
// their names).
func httpRoute[S any, PS handlerSet[S]](serve serveFunc[PS], who access, paged, takesQuery bool, maxBody int) Builder[HTTPHandler] {
	return func(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
		return build(ctx, env, opts, func(c *core) HTTPHandler {
			set := newSet[S, PS](c, paged)
			h := func(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) { return serve(set, ctx, r) }
			return c.endpoint(h, maxBody, who, takesQuery)
		})
	}
}

// read builds an authenticated route that changes nothing and takes no
// query parameters. Reads admit dashboard sessions of every scope.
func read[S any, PS handlerSet[S]](serve serveFunc[PS]) Builder[HTTPHandler] {
	return httpRoute[S, PS](serve, readAccess, false, false, 0)
}

// filtered builds an authenticated read whose query parameters select what
// it reads.
func filtered[S any, PS handlerSet[S]](serve serveFunc[PS]) Builder[HTTPHandler] {
	return httpRoute[S, PS](serve, readAccess, false, true, 0)
}

// list builds an authenticated, cursor-paginated route.
func list[S any, PS handlerSet[S]](serve serveFunc[PS]) Builder[HTTPHandler] {
	return httpRoute[S, PS](serve, readAccess, true, true, 0)
}

// keyList builds a cursor-paginated route that takes the API key only:
// what the project's owner alone may read (its dashboard sessions).
func keyList[S any, PS handlerSet[S]](serve serveFunc[PS]) Builder[HTTPHandler] {
	return httpRoute[S, PS](serve, keyOnly, true, true, 0)
}

// public builds a route without auth (the capture URL keeps any query).
func public[S any, PS handlerSet[S]](serve serveFunc[PS], maxBody int) Builder[HTTPHandler] {
	return httpRoute[S, PS](serve, publicAccess, false, true, maxBody)
}

// mutation builds an authenticated, idempotent route that takes the API
// key only: op runs under pillar 1 (see api.Mutations); configure adds
// what only this route's handler is given.
func mutation[S any, PS handlerSet[S]](op opFunc[PS], maxBody int, configure ...func(*core, *api.Deps)) Builder[HTTPHandler] {
	return idempotentRoute[S, PS](op, maxBody, keyOnly, configure...)
}

// dashboardMutation is a mutation that a dashboard session of scope
// read_retry may call too: the catch-up after an outage (a delivery's
// retry, an endpoint's recovery), which sends what was due again and
// creates, changes or deletes nothing.
func dashboardMutation[S any, PS handlerSet[S]](op opFunc[PS], configure ...func(*core, *api.Deps)) Builder[HTTPHandler] {
	return idempotentRoute[S, PS](op, 0, retryAccess, configure...)
}

func idempotentRoute[S any, PS handlerSet[S]](op opFunc[PS], maxBody int, who access, configure ...func(*core, *api.Deps)) Builder[HTTPHandler] {
	return func(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
		return build(ctx, env, opts, func(c *core) HTTPHandler {
			set := newSet[S, PS](c, false, configure...)
			m := c.mutations()
			return c.endpoint(m.Handler(func(ctx context.Context, r *httpapi.Request) (api.Outcome, error) { return op(set, ctx, r) }), maxBody, who, false)
		})
	}
}

// recoveryPace gives the recover route the deployment's recovery pace.
func recoveryPace(c *core, d *api.Deps) { d.RecoveryPace = pace(c.Vars, EnvRecoveryPace) }

// build wires one function: its core (clients, store, logger) and then its
// handler. Configuration problems found while wiring — missing or malformed
// variables — are reported together.
func build[H any](ctx context.Context, env Env, opts []Option, wire func(c *core) H) (H, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		var zero H
		return zero, err
	}
	h := wire(c)
	return h, c.Vars.Err()
}

// AWSFree adapts a builder of a function that calls no AWS API, whose
// binary links package awsfree and its own package alone, to the builders
// of this package, for internal/app/registry: it takes the logger and clock
// of the options and ignores the rest. Package app imports none of those
// builders' packages (the dashboard's and the API reference's embedded
// files), so that no other binary links them.
func AWSFree(b awsfree.Builder) Builder[HTTPHandler] {
	return func(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
		var o options
		for _, f := range opts {
			f(&o)
		}
		return b(ctx, env, awsfree.Wiring{Log: o.log, Tee: o.logTee, Now: o.now})
	}
}

// CatalogApply builds the catalog applier (DynamoDB stream consumer).
func CatalogApply(ctx context.Context, env Env, opts ...Option) (StreamHandler, error) {
	return build(ctx, env, opts, func(c *core) StreamHandler {
		a := &catalogapply.Applier{Store: c.store, Log: c.Log}
		return a.Handle
	})
}

// Dispatch builds the dispatcher (DynamoDB stream consumer).
func Dispatch(ctx context.Context, env Env, opts ...Option) (StreamHandler, error) {
	return build(ctx, env, opts, func(c *core) StreamHandler {
		o := c.outbox(c.queue())
		return o.HandleBatch
	})
}

// outbox is the dispatcher of the outbox stream's records, parking on q
// those whose dispatch fails.
func (c *core) outbox(q *awsqueue.Queue) *outbox.Consumer {
	d := &webhook.Dispatcher{Endpoints: c.store.Endpoints(), Deliveries: c.store.Deliveries(), Queue: q, Log: c.Log, Hooks: c.opts.deliveries, Now: c.opts.now}
	return &outbox.Consumer{Dispatcher: d, Queue: q, Log: c.Log}
}

// Deliver builds the deliver function (SQS consumer): deliveries, the
// continuations of recoveries, and the outbox records parked on its queue.
func Deliver(ctx context.Context, env Env, opts ...Option) (QueueHandler, error) {
	return build(ctx, env, opts, func(c *core) QueueHandler {
		cfg := webhook.Config{AutoDisableAfter: c.Vars.Duration(EnvAutoDisableAfter)}
		if s := c.Vars.Required(EnvRetrySchedule); s != "" {
			sched, err := webhook.ParseSchedule(s)
			if err != nil {
				c.Vars.Bad(EnvRetrySchedule, err)
			}
			cfg.Schedule = sched
		}
		q := c.queue()
		q.DeadLetterURL = c.Vars.Required(EnvDeadLetterQueueURL)
		d := &webhook.Deliverer{
			Deliveries: c.store.Deliveries(), Endpoints: c.store.Endpoints(), Queue: q,
			Scheduler: &awsqueue.Scheduler{Client: c.scheduler(), Group: c.Vars.Required(EnvScheduleGroup), QueueURL: c.Vars.Required(EnvDeliveryQueueURL), BulkQueueURL: c.Vars.Required(EnvBulkQueueURL), QueueARN: c.Vars.Required(EnvDeliveryQueueARN), RoleARN: c.Vars.Required(EnvSchedulerRoleARN)},
			Poster:    webhook.NewSender(c.guard(), c.Vars.Duration(EnvConnectTimeout), c.Vars.Duration(EnvReadTimeout)),
			Config:    cfg, Log: c.Log, Hooks: c.opts.deliveries, Now: c.opts.now,
			Announcer: &webhook.Announcer{Events: c.store.HealthEvents(), Log: c.Log},
		}
		rc := &webhook.Recoverer{Deliveries: c.store.Deliveries(), Recoveries: c.store.Recoveries(), NewID: api.NewRecoveryID, Pace: pace(c.Vars, EnvRecoveryPace)}
		cont := &webhook.Continuer{Recoverer: rc, Endpoints: c.store.Endpoints(), Log: c.Log, Now: c.opts.now}
		parked := c.outbox(q) // outbox records the dispatch function parked on the delivery queue
		handle := webhook.Route(outbox.Parked, parked.Redispatch, cont.Route(d.HandleBatch))
		consumer := &awsqueue.Consumer{Handle: handle, SQS: q.SQS, QueueURLs: []string{q.URL, q.BulkURL}, Log: c.Log}
		return consumer.HandleBatch
	})
}

// Redrive builds the redrive function: dead letters back to the delivery
// queue, filtered by project, endpoint and event type.
func Redrive(ctx context.Context, env Env, opts ...Option) (InvokeHandler, error) {
	return build(ctx, env, opts, func(c *core) InvokeHandler {
		q := c.queue()
		q.DeadLetterURL = c.Vars.Required(EnvDeadLetterQueueURL)
		r := &webhook.Redriver{DeadLetters: q, Deliveries: c.store.Deliveries(), Log: c.Log}
		return invoke(c.Log, r.Redrive)
	})
}

// Admin builds the admin function (create projects and API keys).
func Admin(ctx context.Context, env Env, opts ...Option) (InvokeHandler, error) {
	return build(ctx, env, opts, func(c *core) InvokeHandler {
		a := &admin.Admin{Store: c.store}
		return invoke(c.Log, a.Do)
	})
}
