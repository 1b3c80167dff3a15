package api

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"time"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/pagination"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
)

// SecretOverlap is how long the previous secret keeps signing after a
// rotation.
const SecretOverlap = 24 * time.Hour

// WebhookEndpoints serves /public/v1/webhook-endpoints.
type WebhookEndpoints struct {
	clock
	Store    *store.Store
	Pager    *pagination.Pager
	Guard    webhook.Guard
	Resolver *net.Resolver
}

// endpointWithSecret is the answer of a creation or rotation: the only
// times a secret is shown.
type endpointWithSecret struct {
	domain.Endpoint
	Secret string `json:"secret"`
}

// Create is POST /public/v1/webhook-endpoints.
func (w *WebhookEndpoints) Create(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	in, err := w.decode(ctx, r, true)
	if err != nil {
		return Outcome{}, err
	}
	now := w.now()
	secret := webhook.NewSecret()
	ep := domain.Endpoint{ID: ids.New(ids.WebhookEndpoint, now), URL: *in.URL, Events: in.Events, Enabled: true, CreatedAt: ids.Timestamp(now), UpdatedAt: ids.Timestamp(now)}
	if in.Description != nil {
		ep.Description = *in.Description
	}
	var plan store.Plan
	if err := w.Store.AddEndpoint(&plan, r.Project, store.EndpointRecord{Secrets: []store.Secret{{Value: secret, CreatedAt: ep.CreatedAt}}, Endpoint: ep}); err != nil {
		return Outcome{}, err
	}
	return created(endpointWithSecret{Endpoint: ep, Secret: secret}, plan)
}

// decode reads and validates an endpoint body, including the URL's
// address rules.
func (w *WebhookEndpoints) decode(ctx context.Context, r *httpapi.Request, create bool) (domain.EndpointInput, error) {
	var in domain.EndpointInput
	if err := httpapi.Decode(r.Body, &in); err != nil {
		return in, err
	}
	problems := in.Validate(create)
	if in.URL != nil {
		if _, problem := w.Guard.CheckURL(ctx, w.Resolver, *in.URL); problem != "" {
			problems.Add("url", problem)
		}
	}
	if !create && in.URL == nil && in.Events == nil && in.Description == nil && in.Enabled == nil {
		problems.Add("body", "name at least one of url, events, description, enabled")
	}
	return in, problems.Err()
}

// List is GET /public/v1/webhook-endpoints (cursor-paginated).
func (w *WebhookEndpoints) List(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	if err := pagination.CheckParams(r.Query); err != nil {
		return nil, err
	}
	req, err := w.Pager.Parse(r, nil)
	if err != nil {
		return nil, err
	}
	return listPage[domain.Endpoint](ctx, w.Store, w.Pager, store.EndpointsQuery(r.Project), req)
}

// Get is GET /public/v1/webhook-endpoints/{id}.
func (w *WebhookEndpoints) Get(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	rec, err := w.Store.GetEndpoint(ctx, r.Project, r.PathParams["id"])
	if err != nil {
		return nil, err
	}
	return httpapi.JSON(http.StatusOK, rec.Endpoint)
}

// Update is PATCH /public/v1/webhook-endpoints/{id}: url, events,
// description, enabled. enabled=true re-enables a disabled endpoint.
func (w *WebhookEndpoints) Update(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	in, err := w.decode(ctx, r, false)
	if err != nil {
		return Outcome{}, err
	}
	rec, err := w.Store.GetEndpoint(ctx, r.Project, r.PathParams["id"])
	if err != nil {
		return Outcome{}, err
	}
	ep := rec.Endpoint
	ep.UpdatedAt = ids.Timestamp(w.now())
	if in.URL != nil {
		ep.URL = *in.URL
	}
	if in.Events != nil {
		ep.Events = in.Events
	}
	if in.Description != nil {
		ep.Description = *in.Description
	}
	if in.Enabled != nil {
		ep.Enabled = *in.Enabled
		if ep.Enabled {
			ep.DisabledReason, ep.ConsecutiveFailures = "", 0
		}
	}
	var plan store.Plan
	patch := store.EndpointPatch{URL: in.URL, Events: in.Events, Description: in.Description, Enabled: in.Enabled, UpdatedAt: ep.UpdatedAt}
	if err := w.Store.UpdateEndpoint(&plan, r.Project, ep.ID, patch); err != nil {
		return Outcome{}, err
	}
	return Outcome{Status: http.StatusOK, Body: ep, Plan: plan}, nil
}

// Delete is DELETE /public/v1/webhook-endpoints/{id}.
func (w *WebhookEndpoints) Delete(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	var plan store.Plan
	id := r.PathParams["id"]
	if err := w.Store.DeleteEndpoint(&plan, r.Project, id); err != nil {
		return Outcome{}, err
	}
	return Outcome{Status: http.StatusOK, Body: map[string]any{"id": id, "deleted": true}, Plan: plan}, nil
}

// RotateSecret is POST /public/v1/webhook-endpoints/{id}/rotate-secret: a
// new secret signs from now on; the previous one keeps signing alongside it
// for SecretOverlap, so receivers can switch without losing a webhook.
func (w *WebhookEndpoints) RotateSecret(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	rec, err := w.target(ctx, r)
	if err != nil {
		return Outcome{}, err
	}
	now := w.now()
	secret := webhook.NewSecret()
	overlapEnds := now.Add(SecretOverlap)
	secrets := []store.Secret{{Value: secret, CreatedAt: ids.Timestamp(now)}}
	// Every secret still signing keeps signing for its full overlap: the
	// current one for SecretOverlap from now, older ones until their own
	// expiry (two rotations in a day must not cut the first one short).
	for _, old := range rec.Secrets {
		if old.ExpiresAt != 0 && now.Unix() >= old.ExpiresAt {
			continue
		}
		if old.ExpiresAt == 0 {
			old.ExpiresAt = overlapEnds.Unix()
		}
		secrets = append(secrets, old)
	}
	var plan store.Plan
	ep := rec.Endpoint
	ep.UpdatedAt = ids.Timestamp(now)
	if err := w.Store.UpdateEndpoint(&plan, r.Project, ep.ID, store.EndpointPatch{Secrets: secrets, UpdatedAt: ep.UpdatedAt}); err != nil {
		return Outcome{}, err
	}
	return Outcome{Status: http.StatusOK, Plan: plan, Body: struct {
		endpointWithSecret
		PreviousSecretExpiresAt string `json:"previous_secret_expires_at"`
	}{endpointWithSecret{Endpoint: ep, Secret: secret}, ids.Timestamp(overlapEnds)}}, nil
}

// Test is POST /public/v1/webhook-endpoints/{id}/test: a webhook.test event
// through the normal pipeline, to this endpoint only.
func (w *WebhookEndpoints) Test(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	rec, err := w.target(ctx, r)
	if err != nil {
		return Outcome{}, err
	}
	now := w.now()
	data, err := json.Marshal(map[string]string{"id": rec.ID, "endpoint_id": rec.ID, "message": "This is a test event from BOTIX."})
	if err != nil {
		return Outcome{}, err
	}
	ev := store.NewEvent(r.Project, domain.EventWebhookTest, data, now)
	var plan store.Plan
	if err := w.Store.AddEvent(&plan, ev, rec.ID); err != nil {
		return Outcome{}, err
	}
	return accepted(map[string]string{"event_id": ev.ID, "endpoint_id": rec.ID, "status": "queued"}, plan)
}

// target is the endpoint an action without a body (rotate, test) is about.
func (w *WebhookEndpoints) target(ctx context.Context, r *httpapi.Request) (store.EndpointRecord, error) {
	if err := httpapi.Decode(r.Body, &struct{}{}); err != nil {
		return store.EndpointRecord{}, err
	}
	return w.Store.GetEndpoint(ctx, r.Project, r.PathParams["id"])
}
