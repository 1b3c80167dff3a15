package app

import (
	"context"
	"net"

	"github.com/botix/public-api/internal/admin"
	"github.com/botix/public-api/internal/api"
	"github.com/botix/public-api/internal/catalogapply"
	"github.com/botix/public-api/internal/delivery"
	"github.com/botix/public-api/internal/webhook"
)

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
	return h, c.env.err()
}

// NotFound builds the $default route: 404 NOT_FOUND for unmatched requests.
func NotFound(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler { return c.publicEndpoint(api.NotFound, 0) })
}

func contacts(c *core) *api.Contacts {
	h := &api.Contacts{Store: c.store}
	h.Now = c.opts.now
	return h
}

// CreateContact builds POST /public/v1/contacts.
func CreateContact(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler { return c.mutation(contacts(c).Create, 0) })
}

// GetContact builds GET /public/v1/contacts/{id}.
func GetContact(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler { return c.endpoint(contacts(c).Get, 0) })
}

// ListContacts builds GET /public/v1/contacts.
func ListContacts(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler {
		h := contacts(c)
		h.Pager = c.pager()
		return c.endpoint(h.List, 0)
	})
}

// CountContacts builds GET /public/v1/contacts/count.
func CountContacts(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler { return c.endpoint(contacts(c).Count, 0) })
}

func messages(c *core) *api.Messages {
	h := &api.Messages{Store: c.store}
	h.Now = c.opts.now
	return h
}

// SendMessage builds POST /public/v1/messages.
func SendMessage(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler { return c.mutation(messages(c).Create, 0) })
}

// ListMessages builds GET /public/v1/messages.
func ListMessages(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler {
		h := messages(c)
		h.Pager = c.pager()
		return c.endpoint(h.List, 0)
	})
}

// ImportCatalog builds POST /public/v1/catalog/imports.
func ImportCatalog(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler {
		h := &api.Catalog{Store: c.store}
		h.Now = c.opts.now
		return c.mutation(h.Import, api.MaxImportBody)
	})
}

// RunScenario builds POST /public/v1/scenarios/{scenario_id}/runs.
func RunScenario(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler {
		h := &api.Scenarios{Store: c.store}
		h.Now = c.opts.now
		return c.mutation(h.Run, 0)
	})
}

// webhookEndpoints is the handler set of /public/v1/webhook-endpoints.
func webhookEndpoints(c *core) *api.WebhookEndpoints {
	h := &api.WebhookEndpoints{Store: c.store, Guard: c.guard(), Resolver: net.DefaultResolver}
	h.Now = c.opts.now
	return h
}

// CreateWebhookEndpoint builds POST /public/v1/webhook-endpoints.
func CreateWebhookEndpoint(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler { return c.mutation(webhookEndpoints(c).Create, 0) })
}

// ListWebhookEndpoints builds GET /public/v1/webhook-endpoints.
func ListWebhookEndpoints(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler {
		h := webhookEndpoints(c)
		h.Pager = c.pager()
		return c.endpoint(h.List, 0)
	})
}

// GetWebhookEndpoint builds GET /public/v1/webhook-endpoints/{id}.
func GetWebhookEndpoint(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler { return c.endpoint(webhookEndpoints(c).Get, 0) })
}

// UpdateWebhookEndpoint builds PATCH /public/v1/webhook-endpoints/{id}.
func UpdateWebhookEndpoint(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler { return c.mutation(webhookEndpoints(c).Update, 0) })
}

// DeleteWebhookEndpoint builds DELETE /public/v1/webhook-endpoints/{id}.
func DeleteWebhookEndpoint(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler { return c.mutation(webhookEndpoints(c).Delete, 0) })
}

// RotateWebhookSecret builds POST /public/v1/webhook-endpoints/{id}/rotate-secret.
func RotateWebhookSecret(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler { return c.mutation(webhookEndpoints(c).RotateSecret, 0) })
}

// TestWebhookEndpoint builds POST /public/v1/webhook-endpoints/{id}/test.
func TestWebhookEndpoint(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler { return c.mutation(webhookEndpoints(c).Test, 0) })
}

func deliveries(c *core) *api.Deliveries {
	h := &api.Deliveries{Store: c.store}
	h.Now = c.opts.now
	return h
}

// ListDeliveries builds GET /public/v1/webhook-deliveries.
func ListDeliveries(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler {
		h := deliveries(c)
		h.Pager = c.pager()
		return c.endpoint(h.List, 0)
	})
}

// GetDelivery builds GET /public/v1/webhook-deliveries/{id}.
func GetDelivery(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler { return c.endpoint(deliveries(c).Get, 0) })
}

// RetryDelivery builds POST /public/v1/webhook-deliveries/{id}/retry.
func RetryDelivery(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler { return c.mutation(deliveries(c).Retry, 0) })
}

// RedirectDelivery builds POST /public/v1/webhook-deliveries/{id}/redirect.
func RedirectDelivery(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler { return c.mutation(deliveries(c).Redirect, 0) })
}

func inspectors(c *core) *api.Inspectors {
	h := &api.Inspectors{Store: c.store}
	h.Now = c.opts.now
	return h
}

// CreateInspector builds POST /public/v1/inspectors.
func CreateInspector(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler { return c.mutation(inspectors(c).Create, 0) })
}

// CaptureInspector builds ANY /inspect/{id}: the public capture URL.
func CaptureInspector(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler { return c.publicEndpoint(inspectors(c).Capture, api.MaxCaptureBody) })
}

// ListInspectorRequests builds GET /public/v1/inspectors/{id}/requests.
func ListInspectorRequests(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler {
		h := inspectors(c)
		h.Pager = c.pager()
		return c.endpoint(h.Requests, 0)
	})
}

func eventPolling(c *core) *api.Events {
	h := &api.Events{Store: c.store}
	h.Now = c.opts.now
	return h
}

// ListEvents builds GET /public/v1/events.
func ListEvents(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler {
		h := eventPolling(c)
		h.Pager = c.pager()
		return c.endpoint(h.List, 0)
	})
}

// GetEvent builds GET /public/v1/events/{id}.
func GetEvent(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	return build(ctx, env, opts, func(c *core) HTTPHandler { return c.endpoint(eventPolling(c).Get, 0) })
}

// CatalogApply builds the catalog applier (DynamoDB stream consumer).
func CatalogApply(ctx context.Context, env Env, opts ...Option) (StreamHandler, error) {
	return build(ctx, env, opts, func(c *core) StreamHandler {
		a := &catalogapply.Applier{Store: c.store, Log: c.log}
		return a.Handle
	})
}

// Dispatch builds the dispatcher (DynamoDB stream consumer).
func Dispatch(ctx context.Context, env Env, opts ...Option) (StreamHandler, error) {
	return build(ctx, env, opts, func(c *core) StreamHandler {
		d := &delivery.Dispatcher{Store: c.store, SQS: c.sqs(), QueueURL: c.env.required(EnvDeliveryQueueURL), Log: c.log, Hooks: c.opts.deliveries, Now: c.opts.now}
		return d.Handle
	})
}

// Deliver builds the deliver function (SQS consumer).
func Deliver(ctx context.Context, env Env, opts ...Option) (QueueHandler, error) {
	return build(ctx, env, opts, func(c *core) QueueHandler {
		cfg := delivery.Config{
			QueueURL: c.env.required(EnvDeliveryQueueURL), QueueARN: c.env.required(EnvDeliveryQueueARN),
			DeadLetterURL: c.env.required(EnvDeadLetterQueueURL), ScheduleGroup: c.env.required(EnvScheduleGroup),
			SchedulerRoleARN: c.env.required(EnvSchedulerRoleARN), AutoDisableAfter: c.env.duration(EnvAutoDisableAfter),
		}
		if s := c.env.required(EnvRetrySchedule); s != "" {
			sched, err := webhook.ParseSchedule(s)
			if err != nil {
				c.env.bad(EnvRetrySchedule, err)
			}
			cfg.Schedule = sched
		}
		sender := delivery.NewSender(c.guard(), c.env.duration(EnvConnectTimeout), c.env.duration(EnvReadTimeout))
		d := &delivery.Deliverer{Store: c.store, SQS: c.sqs(), Scheduler: c.scheduler(), Sender: sender, Config: cfg, Log: c.log, Hooks: c.opts.deliveries, Now: c.opts.now}
		return d.Handle
	})
}

// Redrive builds the redrive function: dead letters back to the delivery
// queue, filtered by project, endpoint and event type.
func Redrive(ctx context.Context, env Env, opts ...Option) (InvokeHandler, error) {
	return build(ctx, env, opts, func(c *core) InvokeHandler {
		r := &delivery.Redriver{Store: c.store, SQS: c.sqs(), QueueURL: c.env.required(EnvDeliveryQueueURL), DeadLetterURL: c.env.required(EnvDeadLetterQueueURL), Log: c.log}
		return invoke(c.log, r.Redrive)
	})
}

// Admin builds the admin function (create projects and API keys).
func Admin(ctx context.Context, env Env, opts ...Option) (InvokeHandler, error) {
	return build(ctx, env, opts, func(c *core) InvokeHandler {
		a := &admin.Admin{Store: c.store}
		return invoke(c.log, a.Do)
	})
}
