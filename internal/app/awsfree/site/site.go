// Package site wires DashboardFunction, which serves the dashboard's files
// and calls no AWS API: it links package awsfree and the dashboard, no AWS
// client (see package awsfree).
package site

import (
	"context"

	"github.com/botix/public-api/internal/app/awsfree"
	"github.com/botix/public-api/internal/dashboard"
	"github.com/botix/public-api/internal/httpapi"
)

// Dashboard builds the dashboard function (GET /dashboard and its files):
// public, since the page logs in to the API with the key its user types,
// and with the dashboard's security headers on every answer.
func Dashboard(_ context.Context, env awsfree.Env, w awsfree.Wiring) (awsfree.HTTPHandler, error) {
	return awsfree.Build(env, w, func(c *awsfree.Core) awsfree.HTTPHandler {
		s, err := dashboard.New(dashboard.APIVocabulary())
		if err != nil {
			c.Vars.Bad("dashboard", err)
			return nil
		}
		e := c.Endpoint(s.Serve, 0)
		e.Headers = httpapi.PageSecurityHeaders
		return e.Serve
	})
}
