package api

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/pagination"
	"github.com/botix/public-api/internal/store"
)

// DeliveryStatuses are the statuses the delivery log filters on.
var DeliveryStatuses = []string{store.DeliveryPending, store.DeliveryRetrying, store.DeliveryDelivered, store.DeliveryDead}

// Deliveries serves /public/v1/webhook-deliveries: the delivery log the
// dashboard shows, and manual retries and redirects.
type Deliveries struct {
	clock
	Store *store.Store
	Pager *pagination.Pager
}

// List is GET /public/v1/webhook-deliveries: the last 14 days, newest
// first, filtered by status (GSI1), endpoint_id (GSI2), event_type (a
// filter) and since/until (the sort key).
func (d *Deliveries) List(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	if err := pagination.CheckParams(r.Query, "status", "event_type", "endpoint_id", "since", "until"); err != nil {
		return nil, err
	}
	problems, filters := apierr.Problems{}, map[string]string{}
	f := store.DeliveryFilter{
		Status:     enumParam(r, "status", DeliveryStatuses, filters, problems),
		EndpointID: idParam(r, "endpoint_id", ids.WebhookEndpoint, "a webhook endpoint id", filters, problems),
		EventType:  enumParam(r, "event_type", domain.EventTypes, filters, problems),
		Since:      timeParam(r, "since", filters, problems),
		Until:      timeParam(r, "until", filters, problems),
	}
	if err := problems.ParamErr(); err != nil {
		return nil, err
	}
	req, err := d.Pager.Parse(r, filters)
	if err != nil {
		return nil, err
	}
	f.Since = notBefore(f.Since, d.now(), store.DeliveryRetention)
	return listPage[store.DeliveryRecord](ctx, d.Store, d.Pager, store.DeliveriesQuery(r.Project, f), req)
}

// deliveryDetail is a delivery with its payload and attempt log.
type deliveryDetail struct {
	store.DeliveryRecord
	Payload  json.RawMessage       `json:"payload"`
	Attempts []store.AttemptRecord `json:"attempts"`
}

// Get is GET /public/v1/webhook-deliveries/{id}.
func (d *Deliveries) Get(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	rec, err := d.Store.GetDelivery(ctx, r.Project, r.PathParams["id"])
	if err != nil {
		return nil, err
	}
	attempts, err := d.Store.Attempts(ctx, r.Project, rec.ID)
	if err != nil {
		return nil, err
	}
	if attempts == nil {
		attempts = []store.AttemptRecord{}
	}
	return httpapi.JSON(http.StatusOK, deliveryDetail{DeliveryRecord: rec, Payload: json.RawMessage(rec.Payload), Attempts: attempts})
}

// Retry is POST /public/v1/webhook-deliveries/{id}/retry: the same webhook
// again, now, with a new request id, as a manual attempt that leaves a
// scheduled round alone. Allowed for any status.
func (d *Deliveries) Retry(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	if err := httpapi.Decode(r.Body, &struct{}{}); err != nil {
		return Outcome{}, err
	}
	return d.request(ctx, r, store.RequestRetry, "")
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
	if in.InspectorID == nil || *in.InspectorID == "" {
		return Outcome{}, apierr.Problems{"inspector_id": "is required"}.Err()
	}
	insp, err := d.Store.GetInspector(ctx, r.Project, *in.InspectorID)
	if err != nil {
		return Outcome{}, err
	}
	return d.request(ctx, r, store.RequestRedirect, insp.URL)
}

func (d *Deliveries) request(ctx context.Context, r *httpapi.Request, kind, target string) (Outcome, error) {
	rec, err := d.Store.GetDelivery(ctx, r.Project, r.PathParams["id"])
	if err != nil {
		return Outcome{}, err
	}
	var plan store.Plan
	dr := store.DeliveryRequest{ProjectID: r.Project, DeliveryID: rec.ID, Kind: kind, TargetURL: target}
	if err := d.Store.AddDeliveryRequest(&plan, dr, d.now()); err != nil {
		return Outcome{}, err
	}
	body := map[string]string{"delivery_id": rec.ID, "kind": kind, "status": "queued"}
	if target != "" {
		body["target_url"] = target
	}
	return accepted(body, plan)
}
