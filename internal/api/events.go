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
	"github.com/botix/public-api/internal/webhook"
)

// MaxListedEvent is the largest event body a list page carries; bigger
// ones are listed thin (GET /public/v1/events/{id} has the full body), so
// that a page of 200 stays well under Lambda's 6 MB response limit.
const MaxListedEvent = 16 << 10

// Events serves the event polling API: the fallback when webhooks could
// not be delivered.
type Events struct {
	clock
	Store *store.Store
	Pager *pagination.Pager
}

// List is GET /public/v1/events?type=&since=: the last 30 days, newest
// first; each event has the body its webhook has.
func (e *Events) List(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	if err := pagination.CheckParams(r.Query, "type", "since"); err != nil {
		return nil, err
	}
	problems, filters := apierr.Problems{}, map[string]string{}
	f := store.EventFilter{Type: enumParam(r, "type", domain.EventTypes, filters, problems), Since: timeParam(r, "since", filters, problems)}
	if err := problems.ParamErr(); err != nil {
		return nil, err
	}
	req, err := e.Pager.Parse(r, filters)
	if err != nil {
		return nil, err
	}
	f.Since = notBefore(f.Since, e.now(), store.EventRetention)
	return listPageAs(ctx, e.Store, e.Pager, store.EventsQuery(r.Project, f), req, listedEvent)
}

func listedEvent(ev store.EventRecord) json.RawMessage {
	body, err := webhook.Body(ev.Event())
	if err != nil || len(body) > MaxListedEvent {
		thin, _ := webhook.ThinBody(ev.Event())
		return thin
	}
	return body
}

// Get is GET /public/v1/events/{id}: the event's webhook body.
func (e *Events) Get(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	ev, err := e.Store.GetEvent(ctx, r.Project, r.PathParams["id"])
	if err != nil {
		return nil, err
	}
	if u, _ := ids.Parse(ids.Event, ev.ID); e.now().Sub(ids.Time(u)) > store.EventRetention {
		return nil, store.ErrNotFound
	}
	body, err := webhook.Body(ev.Event())
	if err != nil {
		return nil, err
	}
	return &httpapi.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": []string{"application/json"}}, Body: body}, nil
}
