package app

import (
	"context"

	"github.com/botix/public-api/internal/admin"
	"github.com/botix/public-api/internal/api"
	"github.com/botix/public-api/internal/catalogapply"
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

// Admin builds the admin function (create projects and API keys).
func Admin(ctx context.Context, env Env, opts ...Option) (InvokeHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	a := &admin.Admin{Store: c.store}
	return invoke(c.log, a.Do), nil
}
