package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
)

// WebhookEndpoints serves /public/v1/webhook-endpoints.
type WebhookEndpoints struct {
	Deps
}

// endpointWithSecret is the answer of a creation or rotation: the only
// times a secret is shown.
type endpointWithSecret struct {
	webhook.Endpoint
	Secret string `json:"secret"`
}

// Create is POST /public/v1/webhook-endpoints.
func (w *WebhookEndpoints) Create(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	in, err := w.decode(ctx, r, true)
	if err != nil {
		return Outcome{}, err
	}
	now := w.now()
	ep := webhook.NewEndpoint(in, ids.New(ids.WebhookEndpoint, now), now)
	var plan store.Plan
	if err := w.Store.AddEndpoint(&plan, r.Project, ep); err != nil {
		return Outcome{}, err
	}
	return created(endpointWithSecret{Endpoint: ep, Secret: ep.Secrets[0].Value}, plan)
}

// decode reads and validates an endpoint body, including the URL's
// address rules.
func (w *WebhookEndpoints) decode(ctx context.Context, r *httpapi.Request, create bool) (webhook.EndpointInput, error) {
	var in webhook.EndpointInput
	var nullable []string
	if !create {
		nullable = webhook.NullableFields
	}
	if err := httpapi.DecodeNullable(r.Body, &in, nullable...); err != nil {
		return in, err
	}
	problems := in.Validate(create)
	if in.URL != nil {
		u, problem := w.Guard.CheckURL(ctx, w.Resolver, *in.URL)
		if problem != "" {
			problems.Add("url", problem)
		} else {
			normalised := u.String() // the host as it is dialled (full-width and IDN forms mapped)
			in.URL = &normalised
		}
	}
	return in, problems.Err()
}

// List is GET /public/v1/webhook-endpoints (cursor-paginated), each
// endpoint with its health.
func (w *WebhookEndpoints) List(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	req, err := w.Pager.Params(r).Page()
	if err != nil {
		return nil, err
	}
	return listPageWith(ctx, w.Store, w.Pager, store.EndpointsQuery(r.Project), req, func(ctx context.Context, eps []webhook.Endpoint) ([]webhook.Endpoint, error) {
		for i := range eps {
			if err := w.withHealth(ctx, r.Project, &eps[i]); err != nil {
				return nil, err
			}
		}
		return eps, nil
	})
}

// withHealth sets ep's health, reading the class of its last failure
// while it has a streak (one small Query; none for a healthy endpoint).
func (w *WebhookEndpoints) withHealth(ctx context.Context, project string, ep *webhook.Endpoint) error {
	class := ""
	if ep.ConsecutiveFailures > 0 {
		var err error
		if class, err = w.Store.Deliveries().LastFailureClass(ctx, project, ep.ID); err != nil {
			return err
		}
	}
	h := webhook.EndpointHealth(*ep, class, w.now())
	ep.Health = &h
	return nil
}

// Get is GET /public/v1/webhook-endpoints/{id}: the endpoint with its
// health and, once it had one, its latest recovery's progress.
func (w *WebhookEndpoints) Get(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	ep, err := w.Store.Endpoints().Get(ctx, r.Project, r.PathParams["id"])
	if err != nil {
		return nil, err
	}
	if err := w.withHealth(ctx, r.Project, &ep); err != nil {
		return nil, err
	}
	rec, err := w.Store.Recoveries().Current(ctx, r.Project, ep.ID)
	switch {
	case err != nil:
		return nil, err
	case rec == nil:
		return httpapi.JSON(http.StatusOK, ep)
	}
	outcomes, err := w.Store.Deliveries().RecoveryOutcomes(ctx, r.Project, rec.ID)
	if err != nil {
		return nil, err
	}
	return httpapi.JSON(http.StatusOK, struct {
		webhook.Endpoint
		Recovery recoveryProgress `json:"recovery"`
	}{ep, progressOf(*rec, outcomes)})
}

// recoveryProgress is an endpoint's latest recovery as GET shows it: what
// it queued, and how those rounds ended so far (the rest are on their way).
type recoveryProgress struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Since   string `json:"since"`
	Until   string `json:"until"`
	Queued  int    `json:"queued"`
	Skipped int    `json:"skipped"`
	webhook.RecoveryOutcomes
	NextStepAt string `json:"next_step_at,omitempty"`
	CreatedAt  string `json:"created_at"`
	UpdatedAt  string `json:"updated_at"`
}

func progressOf(r webhook.Recovery, o webhook.RecoveryOutcomes) recoveryProgress {
	return recoveryProgress{ID: r.ID, Status: string(r.Status), Since: ids.Timestamp(r.Since), Until: ids.Timestamp(r.Until),
		Queued: r.Queued, Skipped: r.Skipped, RecoveryOutcomes: o, NextStepAt: timestampOrEmpty(r.NextStepAt), CreatedAt: ids.Timestamp(r.CreatedAt), UpdatedAt: ids.Timestamp(r.UpdatedAt)}
}

func timestampOrEmpty(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return ids.Timestamp(t)
}

// Update is PATCH /public/v1/webhook-endpoints/{id}: url, events,
// description, enabled, rate_limit, max_concurrency (null removes a
// limit). enabled=true re-enables a disabled endpoint.
func (w *WebhookEndpoints) Update(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	in, err := w.decode(ctx, r, false)
	if err != nil {
		return Outcome{}, err
	}
	ep, err := w.Store.Endpoints().Get(ctx, r.Project, r.PathParams["id"])
	if err != nil {
		return Outcome{}, err
	}
	ep = ep.Patch(in, w.now())
	var plan store.Plan
	patch := store.EndpointPatch{URL: in.URL, Events: in.Events, Description: in.Description, Enabled: in.Enabled,
		RateLimit: in.RateLimit, MaxConcurrency: in.MaxConcurrency, UpdatedAt: ep.UpdatedAt}
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
// new secret signs from now on; the previous one keeps signing alongside
// it for webhook.SecretOverlap (see webhook.Endpoint.Rotate).
func (w *WebhookEndpoints) RotateSecret(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	ep, err := w.target(ctx, r)
	if err != nil {
		return Outcome{}, err
	}
	now := w.now()
	secret, secrets, previousEnds := ep.Rotate(now)
	ep.UpdatedAt = ids.Timestamp(now)
	var plan store.Plan
	if err := w.Store.UpdateEndpoint(&plan, r.Project, ep.ID, store.EndpointPatch{Secrets: secrets, UpdatedAt: ep.UpdatedAt}); err != nil {
		return Outcome{}, err
	}
	return Outcome{Status: http.StatusOK, Plan: plan, Body: struct {
		endpointWithSecret
		PreviousSecretExpiresAt string `json:"previous_secret_expires_at"`
	}{endpointWithSecret{Endpoint: ep, Secret: secret}, ids.Timestamp(previousEnds)}}, nil
}

// Test is POST /public/v1/webhook-endpoints/{id}/test: a webhook.test event
// through the normal pipeline, to this endpoint only.
func (w *WebhookEndpoints) Test(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	ep, err := w.target(ctx, r)
	if err != nil {
		return Outcome{}, err
	}
	now := w.now()
	data, err := json.Marshal(map[string]string{"id": ep.ID, "endpoint_id": ep.ID, "message": "This is a test event from BOTIX."})
	if err != nil {
		return Outcome{}, err
	}
	ev := store.NewEvent(r.Project, domain.EventWebhookTest, data, now)
	var plan store.Plan
	if err := w.Store.AddEvent(&plan, ev, ep.ID); err != nil {
		return Outcome{}, err
	}
	return accepted(map[string]string{"event_id": ev.ID, "endpoint_id": ep.ID, "status": "queued"}, plan)
}

// Recover is POST /public/v1/webhook-endpoints/{id}/recover {"since"}: it
// starts a recovery of the endpoint's failed (retrying) or dead
// deliveries created since then, or continues the one running (an
// endpoint has one at a time, decided by a conditional write: see
// webhook.Recoverer), and queues at most webhook.MaxRecoveryBatch of them
// as fresh rounds. has_more says the recovery continues by itself, paced,
// its next step due at next_step_at (GET of the endpoint follows it). The
// recovery's own write carries the redrives and the continuation to the
// stream (a step item), so what it counts as queued is queued; the
// idempotency record is completed after it, and a request retried after a
// crash in between answers the recovery as it stands (it never re-sends:
// a redrive claims its round once, and a recovered delivery is left alone
// for RecoveryCooldown).
func (w *WebhookEndpoints) Recover(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	var in struct {
		Since *string `json:"since"`
	}
	if err := httpapi.Decode(r.Body, &in); err != nil {
		return Outcome{}, err
	}
	if in.Since == nil || *in.Since == "" {
		return Outcome{}, apierr.Problems{"since": "is required"}.Err()
	}
	since, err := time.Parse(time.RFC3339Nano, *in.Since)
	if err != nil {
		return Outcome{}, apierr.Problems{"since": domain.ProblemTime}.Err()
	}
	now := w.now()
	if since.After(now) {
		return Outcome{}, apierr.Problems{"since": "must not be in the future"}.Err()
	}
	since = notBefore(since, now, webhook.DeliveryRetention)
	ep, err := w.Store.Endpoints().Get(ctx, r.Project, r.PathParams["id"])
	if err != nil {
		return Outcome{}, err
	}
	if !ep.Enabled {
		why := ""
		if ep.DisabledReason != "" {
			why = " (" + ep.DisabledReason + ")"
		}
		return Outcome{}, apierr.New(apierr.EndpointDisabled, "the webhook endpoint is disabled%s; enable it (PATCH {\"enabled\": true}) before recovering its deliveries", why)
	}
	rc := webhook.Recoverer{Deliveries: w.Store.Deliveries(), Recoveries: w.Store.Recoveries(), NewID: NewRecoveryID, Pace: w.RecoveryPace}
	call, err := rc.Recover(ctx, r.Project, ep, since, now)
	if err != nil {
		return Outcome{}, err
	}
	return accepted(recovery{
		ID: call.ID, EndpointID: ep.ID, Since: ids.Timestamp(call.Since), Until: ids.Timestamp(call.Until), Status: string(call.Status),
		Deliveries: call.Recovery.Queued, Queued: call.Queued, Skipped: call.Skipped, HasMore: call.HasMore(),
		NextStepAt: timestampOrEmpty(call.NextStepAt),
	}, store.Plan{})
}

// NewRecoveryID names a new recovery (rcv_<ulid>).
func NewRecoveryID(now time.Time) string { return ids.New(ids.Recovery, now) }

// recovery is the answer of Recover.
type recovery struct {
	ID         string `json:"recovery_id"`
	EndpointID string `json:"endpoint_id"`
	Since      string `json:"since"`
	Until      string `json:"until"`
	// Deliveries counts what the recovery queued over all its steps;
	// Queued what this call did.
	Deliveries int    `json:"deliveries"`
	Queued     int    `json:"queued"`
	Skipped    int    `json:"skipped"`
	HasMore    bool   `json:"has_more"`
	Status     string `json:"status"`
	NextStepAt string `json:"next_step_at,omitempty"`
}

// target is the endpoint an action without a body (rotate, test) is about.
func (w *WebhookEndpoints) target(ctx context.Context, r *httpapi.Request) (webhook.Endpoint, error) {
	if err := httpapi.Decode(r.Body, &struct{}{}); err != nil {
		return webhook.Endpoint{}, err
	}
	return w.Store.Endpoints().Get(ctx, r.Project, r.PathParams["id"])
}
