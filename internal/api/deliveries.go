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
	"github.com/botix/public-api/internal/pagination"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
)

// deliveryStatuses are the statuses the delivery log filters on.
var deliveryStatuses = func() []string {
	out := make([]string, len(webhook.Statuses))
	for i, s := range webhook.Statuses {
		out[i] = string(s)
	}
	return out
}()

// Deliveries serves /public/v1/webhook-deliveries: the delivery log the
// dashboard shows, and manual retries and redirects.
type Deliveries struct {
	Deps
}

// List is GET /public/v1/webhook-deliveries: the last 14 days, newest
// first, filtered by status (GSI1), endpoint_id (GSI2), event_type (a
// filter), since/until (the sort key), event_id (the sort key narrowed
// to the event's millisecond, see store.DeliveryFilter), delivery_id
// (the sort key narrowed to the delivery's) and request_id (the delivery
// whose attempt sent it, found in gsi3 first: store.NarrowToRequest), in
// any combination.
func (d *Deliveries) List(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	q := d.Pager.Params(r)
	f := store.DeliveryFilter{
		Status:     webhook.Status(q.Enum("status", deliveryStatuses)),
		EndpointID: q.ID("endpoint_id", ids.WebhookEndpoint, "a webhook endpoint id"),
		EventType:  q.Enum("event_type", domain.EventTypes),
		EventID:    q.ID("event_id", ids.Event, "an event id"),
		DeliveryID: q.ID("delivery_id", ids.Delivery, "a delivery id"),
		Since:      q.Time("since"),
		Until:      q.Time("until"),
	}
	requestID := q.ID("request_id", ids.Request, "a request id")
	// The document: until "must not be before since (400 INVALID_PARAMETER)";
	// a reversed window would otherwise answer an empty page as if true.
	if !f.Since.IsZero() && !f.Until.IsZero() && f.Until.Before(f.Since) {
		q.Problem("until", "must not be before since")
	}
	req, err := q.Page()
	if err != nil {
		return nil, err
	}
	f.Since = notBefore(f.Since, d.now(), webhook.DeliveryRetention)
	if requestID != "" {
		if err := d.Store.Deliveries().NarrowToRequest(ctx, r.Project, &f, requestID); err != nil {
			return nil, err
		}
	}
	return listPage(ctx, d.Store, d.Pager, store.DeliveriesQuery(r.Project, f), req)
}

// stats is the answer of Stats.
type stats struct {
	Granularity string           `json:"granularity"`
	EndpointID  *string          `json:"endpoint_id"`
	Since       string           `json:"since"`
	Until       string           `json:"until"`
	Buckets     []webhook.Bucket `json:"buckets"`
	Totals      webhook.Counts   `json:"totals"`
}

// Stats is GET /public/v1/webhook-deliveries/stats: attempts per hour or
// per day of a project (or of one endpoint, endpoint_id), stacked by the
// status each left its delivery in, from the hourly counters the
// deliverer updates with each attempt — one Query whatever the traffic.
// since is floored to its bucket; until (exclusive) is the end of the
// last bucket.
func (d *Deliveries) Stats(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	q := pagination.ReadQuery(r)
	granularity := q.Enum("granularity", webhook.Granularities)
	endpoint := q.ID("endpoint_id", ids.WebhookEndpoint, "a webhook endpoint id")
	since, until := q.Time("since"), q.Time("until")
	if err := q.Done(); err != nil {
		return nil, err
	}
	w, field, problem := webhook.NewStatsWindow(granularity, since, until, d.now())
	if problem != "" {
		return nil, apierr.Problems{field: problem}.ParamErr()
	}
	out := stats{Granularity: w.Granularity, Since: ids.Timestamp(w.From), Until: ids.Timestamp(w.End())}
	if endpoint != "" {
		if _, err := d.Store.Endpoints().Get(ctx, r.Project, endpoint); err != nil {
			return nil, err
		}
		out.EndpointID = &endpoint
	}
	hours, err := d.Store.Deliveries().Stats(ctx, r.Project, endpoint, w.From, w.End().Add(-time.Hour))
	if err != nil {
		return nil, err
	}
	out.Buckets = w.Buckets(hours)
	for _, b := range out.Buckets {
		out.Totals = out.Totals.Add(b.Counts)
	}
	return httpapi.JSON(http.StatusOK, out)
}

// deliveryDetail is a delivery with its payload and attempt log.
type deliveryDetail struct {
	webhook.Delivery
	Payload  json.RawMessage   `json:"payload"`
	Attempts []webhook.Attempt `json:"attempts"`
}

// Get is GET /public/v1/webhook-deliveries/{id}.
func (d *Deliveries) Get(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	rec, err := d.Store.Deliveries().Get(ctx, r.Project, r.PathParams["id"])
	if err != nil {
		return nil, err
	}
	attempts, err := d.Store.Deliveries().Attempts(ctx, r.Project, rec.ID)
	if err != nil {
		return nil, err
	}
	return httpapi.JSON(http.StatusOK, deliveryDetail{Delivery: rec, Payload: json.RawMessage(rec.Payload), Attempts: attempts})
}

// Retry is POST /public/v1/webhook-deliveries/{id}/retry: the same webhook
// again, now, with a new request id, as a manual attempt that leaves a
// scheduled round alone. Allowed for any status, once per delivery per
// webhook.ManualRetryCooldown (cooldown).
func (d *Deliveries) Retry(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	if err := httpapi.Decode(r.Body, &struct{}{}); err != nil {
		return Outcome{}, err
	}
	out, err := d.request(ctx, r, webhook.RequestRetry, "")
	if err != nil {
		return out, err
	}
	return out, d.cooldown(ctx, r.Project, r.PathParams["id"], &out.Plan)
}

// Redirect is POST /public/v1/webhook-deliveries/{id}/redirect
// {"inspector_id"}: the same webhook to a built-in inspector instead of the
// endpoint, to look at it safely.
func (d *Deliveries) Redirect(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	var in struct {
		InspectorID *string `json:"inspector_id"`
	}
	if err := httpapi.Decode(r.Body, &in); err != nil {
		return Outcome{}, err
	}
	switch {
	case in.InspectorID == nil || *in.InspectorID == "":
		return Outcome{}, apierr.Problems{"inspector_id": "is required"}.Err()
	case !ids.ValidInspector(*in.InspectorID):
		return Outcome{}, apierr.Problems{"inspector_id": "must be an inspector id (insp_ and 32 characters)"}.Err()
	}
	insp, err := d.Store.GetInspector(ctx, r.Project, *in.InspectorID)
	if err != nil {
		return Outcome{}, err
	}
	// The URL was built from configuration; it is still a URL webhooks
	// will be sent to, so it passes the same rules as an endpoint's.
	if _, problem := d.Guard.CheckURL(ctx, d.Resolver, insp.URL); problem != "" {
		return Outcome{}, apierr.Problems{"inspector_id": "the inspector's URL " + problem}.Err()
	}
	return d.request(ctx, r, webhook.RequestRedirect, insp.URL)
}

func (d *Deliveries) request(ctx context.Context, r *httpapi.Request, kind webhook.RequestKind, target string) (Outcome, error) {
	rec, err := d.Store.Deliveries().Get(ctx, r.Project, r.PathParams["id"])
	if err != nil {
		return Outcome{}, err
	}
	var plan store.Plan
	dr := webhook.DeliveryRequest{ProjectID: r.Project, DeliveryID: rec.ID, EndpointID: rec.EndpointID, Kind: kind, TargetURL: target}
	if err := d.Store.AddDeliveryRequest(&plan, &dr, d.now()); err != nil {
		return Outcome{}, err
	}
	body := map[string]string{"delivery_id": rec.ID, "kind": string(kind), "status": "queued"}
	if target != "" {
		body["target_url"] = target
	}
	return accepted(body, plan)
}
