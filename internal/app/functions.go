package app

import (
	"context"

	"github.com/botix/public-api/internal/admin"
	"github.com/botix/public-api/internal/api"
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
	m := &api.Mutations{Store: c.store}
	return c.endpoint(m.Handler(h.Create), 0), nil
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

// Admin builds the admin function (create projects and API keys).
func Admin(ctx context.Context, env Env, opts ...Option) (InvokeHandler, error) {
	c, err := newCore(ctx, env, opts)
	if err != nil {
		return nil, err
	}
	a := &admin.Admin{Store: c.store}
	return invoke(c.log, a.Do), nil
}
