package api

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/auth"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
)

// DashboardSessions serves /public/v1/dashboard-sessions: short-lived,
// scoped bearer tokens that the project's key holder hands to the
// dashboard (or a teammate) instead of the key.
type DashboardSessions struct {
	Deps
}

// sessionInput is the body of a creation.
type sessionInput struct {
	Scope      *string `json:"scope"`
	TTLSeconds *int64  `json:"ttl_seconds"`
}

// sessionCreated is the answer of a creation: the only time the token is
// shown.
type sessionCreated struct {
	ID        string `json:"id"`
	Scope     string `json:"scope"`
	Token     string `json:"token"`
	CreatedAt string `json:"created_at"`
	ExpiresAt string `json:"expires_at"`
}

// Create is POST /public/v1/dashboard-sessions {"scope","ttl_seconds"?}.
func (d *DashboardSessions) Create(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	var in sessionInput
	if err := httpapi.Decode(r.Body, &in); err != nil {
		return Outcome{}, err
	}
	scope, ttl, err := in.validate()
	if err != nil {
		return Outcome{}, err
	}
	now := d.now()
	sess := auth.Session{ID: ids.New(ids.DashboardSession, now), Project: r.Project, KeyID: r.KeyID, Scope: scope, CreatedAt: now, ExpiresAt: now.Add(ttl)}
	token := auth.NewSessionToken()
	var plan store.Plan
	if err := d.Store.AddDashboardSession(&plan, sess, auth.Hash(token)); err != nil {
		return Outcome{}, err
	}
	return created(sessionCreated{ID: sess.ID, Scope: string(scope), Token: token, CreatedAt: ids.Timestamp(now), ExpiresAt: ids.Timestamp(sess.ExpiresAt)}, plan)
}

func (in sessionInput) validate() (auth.Scope, time.Duration, error) {
	problems := apierr.Problems{}
	var scope auth.Scope
	switch {
	case in.Scope == nil:
		problems.Add("scope", fmt.Sprintf("is required: one of %s", scopeList()))
	case !auth.Scope(*in.Scope).Valid():
		problems.Add("scope", fmt.Sprintf("must be one of %s", scopeList()))
	default:
		scope = auth.Scope(*in.Scope)
	}
	ttl := auth.DefaultSessionTTL
	if in.TTLSeconds != nil {
		min, max := int64(auth.MinSessionTTL/time.Second), int64(auth.MaxSessionTTL/time.Second)
		if *in.TTLSeconds < min || *in.TTLSeconds > max {
			problems.Add("ttl_seconds", fmt.Sprintf("must be between %d and %d (seconds)", min, max))
		}
		ttl = time.Duration(*in.TTLSeconds) * time.Second
	}
	return scope, ttl, problems.Err()
}

func scopeList() string {
	out := ""
	for i, s := range auth.Scopes {
		if i > 0 {
			out += ", "
		}
		out += string(s)
	}
	return out
}

// sessionView is a session as its own holder sees it: never the token.
type sessionView struct {
	ID        string `json:"id"`
	Scope     string `json:"scope"`
	CreatedAt string `json:"created_at"`
	ExpiresAt string `json:"expires_at"`
}

// Current is GET /public/v1/dashboard-sessions/current: the session the
// request came with, so that the dashboard shows only what its scope
// grants. A request with the API key has no session: 404.
func (d *DashboardSessions) Current(_ context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	s := r.Session
	if s == nil {
		return nil, apierr.New(apierr.NotFound, "this request came with the project's API key, not a dashboard session: it may call every route")
	}
	return httpapi.JSON(http.StatusOK, sessionView{ID: s.ID, Scope: string(s.Scope), CreatedAt: ids.Timestamp(s.CreatedAt), ExpiresAt: ids.Timestamp(s.ExpiresAt)})
}

// sessionListed is a session as its project's key holder lists it: never
// the token, and the key that made it (null for sessions made before
// sessions recorded it).
type sessionListed struct {
	ID        string  `json:"id"`
	Scope     string  `json:"scope"`
	KeyID     *string `json:"key_id"`
	CreatedAt string  `json:"created_at"`
	ExpiresAt string  `json:"expires_at"`
}

// List is GET /public/v1/dashboard-sessions (the API key only): the
// project's live sessions, newest first, so that its owner finds every
// token handed out and can revoke it.
func (d *DashboardSessions) List(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	req, err := d.Pager.Params(r).Page()
	if err != nil {
		return nil, err
	}
	now := d.now()
	return listPageWith(ctx, d.Store, d.Pager, store.DashboardSessionsQuery(r.Project, now), req, func(_ context.Context, all []auth.Session) ([]sessionListed, error) {
		out := make([]sessionListed, 0, len(all))
		for _, s := range all {
			// The query's filter is to the second; expiry is to the
			// millisecond.
			if !s.Live(now) {
				continue
			}
			v := sessionListed{ID: s.ID, Scope: string(s.Scope), CreatedAt: ids.Timestamp(s.CreatedAt), ExpiresAt: ids.Timestamp(s.ExpiresAt)}
			if s.KeyID != "" {
				v.KeyID = &s.KeyID
			}
			out = append(out, v)
		}
		return out, nil
	})
}

// Delete is DELETE /public/v1/dashboard-sessions/{id}: the session's token
// stops working at once.
func (d *DashboardSessions) Delete(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	id := r.PathParams["id"]
	var plan store.Plan
	if err := d.Store.DeleteDashboardSession(ctx, &plan, r.Project, id); err != nil {
		return Outcome{}, err
	}
	return Outcome{Status: http.StatusOK, Body: map[string]any{"id": id, "deleted": true}, Plan: plan}, nil
}
