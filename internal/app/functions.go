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

// NotFound builds the $default route: 404 NOT_FOUND for unmatched requests.
func NotFound(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	return c.publicEndpoint(api.NotFound, 0), nil
}

// CreateContact builds POST /public/v1/contacts.
func CreateContact(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	h := &api.Contacts{Store: c.store}
	h.Now = c.opts.now
	return c.mutation(h.Create, 0), nil
}

// GetContact builds GET /public/v1/contacts/{id}.
func GetContact(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	h := &api.Contacts{Store: c.store}
	return c.endpoint(h.Get, 0), nil
}

// ListContacts builds GET /public/v1/contacts.
func ListContacts(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	h := &api.Contacts{Store: c.store, Pager: c.pager()}
	return c.endpoint(h.List, 0), c.env.err()
}

// CountContacts builds GET /public/v1/contacts/count.
func CountContacts(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	h := &api.Contacts{Store: c.store}
	return c.endpoint(h.Count, 0), nil
}

// ListMessages builds GET /public/v1/messages.
func ListMessages(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	h := &api.Messages{Store: c.store, Pager: c.pager()}
	return c.endpoint(h.List, 0), c.env.err()
}

// SendMessage builds POST /public/v1/messages.
func SendMessage(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	h := &api.Messages{Store: c.store}
	h.Now = c.opts.now
	return c.mutation(h.Create, 0), nil
}

// ImportCatalog builds POST /public/v1/catalog/imports.
func ImportCatalog(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	h := &api.Catalog{Store: c.store}
	h.Now = c.opts.now
	return c.mutation(h.Import, api.MaxImportBody), nil
}

// RunScenario builds POST /public/v1/scenarios/{scenario_id}/runs.
func RunScenario(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	h := &api.Scenarios{Store: c.store}
	h.Now = c.opts.now
	return c.mutation(h.Run, 0), nil
}

// CatalogApply builds the catalog applier (DynamoDB stream consumer).
func CatalogApply(ctx context.Context, env Env, opts ...Option) (StreamHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	a := &catalogapply.Applier{Store: c.store, Log: c.log}
	return a.Handle, nil
}

// webhookEndpoints is the handler set of /public/v1/webhook-endpoints.
func webhookEndpoints(c *core) *api.WebhookEndpoints {
	h := &api.WebhookEndpoints{Store: c.store, Guard: c.guard(), Resolver: net.DefaultResolver}
	h.Now = c.opts.now
	return h
}

// CreateWebhookEndpoint builds POST /public/v1/webhook-endpoints.
func CreateWebhookEndpoint(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	return c.mutation(webhookEndpoints(c).Create, 0), nil
}

// ListWebhookEndpoints builds GET /public/v1/webhook-endpoints.
func ListWebhookEndpoints(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	h := webhookEndpoints(c)
	h.Pager = c.pager()
	return c.endpoint(h.List, 0), c.env.err()
}

// GetWebhookEndpoint builds GET /public/v1/webhook-endpoints/{id}.
func GetWebhookEndpoint(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	return c.endpoint(webhookEndpoints(c).Get, 0), nil
}

// UpdateWebhookEndpoint builds PATCH /public/v1/webhook-endpoints/{id}.
func UpdateWebhookEndpoint(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	return c.mutation(webhookEndpoints(c).Update, 0), nil
}

// DeleteWebhookEndpoint builds DELETE /public/v1/webhook-endpoints/{id}.
func DeleteWebhookEndpoint(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	return c.mutation(webhookEndpoints(c).Delete, 0), nil
}

// RotateWebhookSecret builds POST /public/v1/webhook-endpoints/{id}/rotate-secret.
func RotateWebhookSecret(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	return c.mutation(webhookEndpoints(c).RotateSecret, 0), nil
}

// TestWebhookEndpoint builds POST /public/v1/webhook-endpoints/{id}/test.
func TestWebhookEndpoint(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	return c.mutation(webhookEndpoints(c).Test, 0), nil
}

func deliveries(c *core) *api.Deliveries {
	h := &api.Deliveries{Store: c.store}
	h.Now = c.opts.now
	return h
}

// ListDeliveries builds GET /public/v1/webhook-deliveries.
func ListDeliveries(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	h := deliveries(c)
	h.Pager = c.pager()
	return c.endpoint(h.List, 0), c.env.err()
}

// GetDelivery builds GET /public/v1/webhook-deliveries/{id}.
func GetDelivery(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	return c.endpoint(deliveries(c).Get, 0), nil
}

// RetryDelivery builds POST /public/v1/webhook-deliveries/{id}/retry.
func RetryDelivery(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	return c.mutation(deliveries(c).Retry, 0), nil
}

// RedirectDelivery builds POST /public/v1/webhook-deliveries/{id}/redirect.
func RedirectDelivery(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	return c.mutation(deliveries(c).Redirect, 0), nil
}

func inspectors(c *core) *api.Inspectors {
	h := &api.Inspectors{Store: c.store}
	h.Now = c.opts.now
	return h
}

// CreateInspector builds POST /public/v1/inspectors.
func CreateInspector(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	return c.mutation(inspectors(c).Create, 0), nil
}

// CaptureInspector builds ANY /inspect/{id}: the public capture URL.
func CaptureInspector(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	return c.publicEndpoint(inspectors(c).Capture, api.MaxCaptureBody), nil
}

// ListInspectorRequests builds GET /public/v1/inspectors/{id}/requests.
func ListInspectorRequests(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	h := inspectors(c)
	h.Pager = c.pager()
	return c.endpoint(h.Requests, 0), c.env.err()
}

func eventPolling(c *core) *api.Events {
	h := &api.Events{Store: c.store}
	h.Now = c.opts.now
	return h
}

// ListEvents builds GET /public/v1/events.
func ListEvents(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	h := eventPolling(c)
	h.Pager = c.pager()
	return c.endpoint(h.List, 0), c.env.err()
}

// GetEvent builds GET /public/v1/events/{id}.
func GetEvent(ctx context.Context, env Env, opts ...Option) (HTTPHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	return c.endpoint(eventPolling(c).Get, 0), nil
}

// Dispatch builds the dispatcher (DynamoDB stream consumer).
func Dispatch(ctx context.Context, env Env, opts ...Option) (StreamHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	d := &delivery.Dispatcher{Store: c.store, SQS: c.sqs(), QueueURL: c.env.required(EnvDeliveryQueueURL), Log: c.log, Hooks: c.opts.deliveries, Now: c.opts.now}
	return d.Handle, c.env.err()
}

// Deliver builds the deliver function (SQS consumer).
func Deliver(ctx context.Context, env Env, opts ...Option) (QueueHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
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
	return d.Handle, c.env.err()
}

// Redrive builds the redrive function: dead letters back to the delivery
// queue, filtered by project, endpoint and event type.
func Redrive(ctx context.Context, env Env, opts ...Option) (InvokeHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	r := &delivery.Redriver{Store: c.store, SQS: c.sqs(), QueueURL: c.env.required(EnvDeliveryQueueURL), DeadLetterURL: c.env.required(EnvDeadLetterQueueURL), Log: c.log}
	return invoke(c.log, r.Redrive), c.env.err()
}

// Admin builds the admin function (create projects and API keys).
func Admin(ctx context.Context, env Env, opts ...Option) (InvokeHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	a := &admin.Admin{Store: c.store}
	return invoke(c.log, a.Do), nil
}
