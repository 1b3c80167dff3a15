package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
)

// MaxListedEvent is the largest event body a list page carries, counted
// as Lambda's response carries it (see responseBytes); bigger ones are
// listed thin (GET /public/v1/events/{id} has the full body), so that a
// page of pagination.MaxLimit stays under Lambda's 6 MB response limit.
const MaxListedEvent = 16 << 10

// responseBytes is what body costs in the function's response to API
// Gateway, where the page is one JSON string: each quote and backslash
// takes a second byte (Go's JSON escapes nothing else of a JSON body).
// Counted as body bytes, a page of events of quotes would pass 6 MB.
func responseBytes(body []byte) int {
	return len(body) + bytes.Count(body, []byte(`"`)) + bytes.Count(body, []byte(`\`))
}

// Events serves the event polling API: the fallback when webhooks could
// not be delivered.
type Events struct {
	Deps
}

// List is GET /public/v1/events?type=&since=: the last 30 days, newest
// first; each event has the body its webhook has.
func (e *Events) List(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	q := e.Pager.Params(r)
	f := store.EventFilter{Type: q.Enum("type", domain.EventTypes), Since: q.Time("since")}
	req, err := q.Page()
	if err != nil {
		return nil, err
	}
	f.Since = notBefore(f.Since, e.now(), store.EventRetention)
	return listPageAs(ctx, e.Store, e.Pager, store.EventsQuery(r.Project, f), req, listedEvent)
}

func listedEvent(ev domain.Event) json.RawMessage {
	body, err := webhook.Body(ev)
	if err != nil || responseBytes(body) > MaxListedEvent {
		thin, _ := webhook.ThinBody(ev)
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
	body, err := webhook.Body(ev)
	if err != nil {
		return nil, err
	}
	return &httpapi.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": []string{"application/json"}}, Body: body}, nil
}
