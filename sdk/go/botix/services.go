package botix

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Page is one page of a list. NextCursor continues the list (empty on the
// last page); keep it to resume a walk later.
type Page[T any] struct {
	Data       []T
	NextCursor string
	HasMore    bool
	Response   Response
}

type pageJSON[T any] struct {
	Data       []T     `json:"data"`
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

// query builds a list's query string from its cursor parameters and
// filters (name, value pairs; empty values are left out).
func query(p ListParams, filters ...string) url.Values {
	q := url.Values{}
	if p.Cursor != "" {
		q.Set("cursor", p.Cursor)
	}
	if p.Limit > 0 {
		q.Set("cursor_limit", strconv.Itoa(p.Limit))
	}
	for i := 0; i+1 < len(filters); i += 2 {
		if filters[i+1] != "" {
			q.Set(filters[i], filters[i+1])
		}
	}
	return q
}

// timeParam formats a filter time (the zero time: no filter).
func timeParam(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func list[T any](ctx context.Context, c *Client, path string, q url.Values) (Page[T], error) {
	var raw pageJSON[T]
	meta, err := c.do(ctx, request{method: http.MethodGet, path: path, query: q}, &raw, nil)
	if err != nil {
		return Page[T]{Response: meta}, err
	}
	p := Page[T]{Data: raw.Data, HasMore: raw.HasMore, Response: meta}
	if raw.NextCursor != nil {
		p.NextCursor = *raw.NextCursor
	}
	return p, nil
}

// all walks a list page by page from q's cursor (if any), yielding each
// item once; it stops fetching when the loop stops. An error is yielded
// once, with a zero item, and ends the walk. It is a Walker whose
// position nobody keeps.
func all[T any](ctx context.Context, c *Client, path string, q url.Values, id func(T) string) iter.Seq2[T, error] {
	return walker(c, path, q, id, Position{}).All(ctx)
}

func get[T any](ctx context.Context, c *Client, path string, q url.Values, out *T, meta *Response) (*T, error) {
	m, err := c.do(ctx, request{method: http.MethodGet, path: path, query: q}, out, nil)
	*meta = m
	if err != nil {
		return nil, err
	}
	return out, nil
}

func mutate[T any](ctx context.Context, c *Client, method, path string, body any, out *T, meta *Response, opts []CallOption) (*T, error) {
	m, err := c.do(ctx, request{method: method, path: path, body: body}, out, opts)
	*meta = m
	if err != nil {
		return nil, err
	}
	return out, nil
}

// pathID escapes an id for a path segment.
func pathID(id string) string { return url.PathEscape(id) }

// ContactsService is /public/v1/contacts.
type ContactsService struct{ c *Client }

// Create creates a contact (idempotent: one key for the call, reused on
// every retry). 409 CONTACT_ALREADY_EXISTS when the phone is taken.
func (s *ContactsService) Create(ctx context.Context, in ContactCreate, opts ...CallOption) (*Contact, error) {
	var out Contact
	return mutate(ctx, s.c, http.MethodPost, "/contacts", in, &out, &out.Response, opts)
}

// Get returns a contact.
func (s *ContactsService) Get(ctx context.Context, id string) (*Contact, error) {
	var out Contact
	return get(ctx, s.c, "/contacts/"+pathID(id), nil, &out, &out.Response)
}

// Count returns how many contacts the project has.
func (s *ContactsService) Count(ctx context.Context) (*ContactCount, error) {
	var out ContactCount
	return get(ctx, s.c, "/contacts/count", nil, &out, &out.Response)
}

// List returns one page of contacts, newest first.
func (s *ContactsService) List(ctx context.Context, p ContactListParams) (Page[Contact], error) {
	return list[Contact](ctx, s.c, "/contacts", p.query())
}

// All walks every contact, newest first, from p.Cursor if set.
func (s *ContactsService) All(ctx context.Context, p ContactListParams) iter.Seq2[Contact, error] {
	return all(ctx, s.c, "/contacts", p.query(), Contact.id)
}

// Walk is a Walker over the contacts, newest first: from the start (or
// p.Cursor), or from a saved position when from is not zero.
func (s *ContactsService) Walk(p ContactListParams, from Position) *Walker[Contact] {
	return walker(s.c, "/contacts", p.query(), Contact.id, from)
}

func (p ContactListParams) query() url.Values {
	return query(p.ListParams, "tag", p.Tag, "created_after", timeParam(p.CreatedAfter), "created_before", timeParam(p.CreatedBefore))
}

// MessagesService is /public/v1/messages.
type MessagesService struct{ c *Client }

// Send queues a message to a contact (idempotent).
func (s *MessagesService) Send(ctx context.Context, in MessageCreate, opts ...CallOption) (*Message, error) {
	var out Message
	return mutate(ctx, s.c, http.MethodPost, "/messages", in, &out, &out.Response, opts)
}

// List returns one page of messages, newest first.
func (s *MessagesService) List(ctx context.Context, p MessageListParams) (Page[Message], error) {
	return list[Message](ctx, s.c, "/messages", p.query())
}

// All walks every message, newest first.
func (s *MessagesService) All(ctx context.Context, p MessageListParams) iter.Seq2[Message, error] {
	return all(ctx, s.c, "/messages", p.query(), Message.id)
}

// Walk is a Walker over the messages, newest first: from the start (or
// p.Cursor), or from a saved position when from is not zero.
func (s *MessagesService) Walk(p MessageListParams, from Position) *Walker[Message] {
	return walker(s.c, "/messages", p.query(), Message.id, from)
}

func (p MessageListParams) query() url.Values {
	return query(p.ListParams, "contact_id", p.ContactID, "status", p.Status)
}

// CatalogService is /public/v1/catalog.
type CatalogService struct{ c *Client }

// Import queues a catalog import (idempotent; up to 1 MB of items).
func (s *CatalogService) Import(ctx context.Context, in CatalogImportCreate, opts ...CallOption) (*CatalogImport, error) {
	var out CatalogImport
	return mutate(ctx, s.c, http.MethodPost, "/catalog/imports", in, &out, &out.Response, opts)
}

// ScenariosService is /public/v1/scenarios.
type ScenariosService struct{ c *Client }

// Run starts a scenario for a contact (idempotent).
func (s *ScenariosService) Run(ctx context.Context, scenarioID string, in ScenarioRunCreate, opts ...CallOption) (*ScenarioRun, error) {
	var out ScenarioRun
	return mutate(ctx, s.c, http.MethodPost, "/scenarios/"+pathID(scenarioID)+"/runs", in, &out, &out.Response, opts)
}

// WebhookEndpointsService is /public/v1/webhook-endpoints.
type WebhookEndpointsService struct{ c *Client }

// Create registers an endpoint; the answer's Secret is shown only here.
func (s *WebhookEndpointsService) Create(ctx context.Context, in WebhookEndpointCreate, opts ...CallOption) (*WebhookEndpointWithSecret, error) {
	var out WebhookEndpointWithSecret
	return mutate(ctx, s.c, http.MethodPost, "/webhook-endpoints", in, &out, &out.Response, opts)
}

// Get returns an endpoint (without its secret).
func (s *WebhookEndpointsService) Get(ctx context.Context, id string) (*WebhookEndpoint, error) {
	var out WebhookEndpoint
	return get(ctx, s.c, "/webhook-endpoints/"+pathID(id), nil, &out, &out.Response)
}

// List returns one page of endpoints, newest first.
func (s *WebhookEndpointsService) List(ctx context.Context, p ListParams) (Page[WebhookEndpoint], error) {
	return list[WebhookEndpoint](ctx, s.c, "/webhook-endpoints", query(p))
}

// All walks every endpoint, newest first.
func (s *WebhookEndpointsService) All(ctx context.Context, p ListParams) iter.Seq2[WebhookEndpoint, error] {
	return all(ctx, s.c, "/webhook-endpoints", query(p), WebhookEndpoint.id)
}

// Walk is a Walker over the endpoints, newest first: from the start (or
// p.Cursor), or from a saved position when from is not zero.
func (s *WebhookEndpointsService) Walk(p ListParams, from Position) *Walker[WebhookEndpoint] {
	return walker(s.c, "/webhook-endpoints", query(p), WebhookEndpoint.id, from)
}

// Update changes the fields that are set (idempotent).
func (s *WebhookEndpointsService) Update(ctx context.Context, id string, in WebhookEndpointUpdate, opts ...CallOption) (*WebhookEndpoint, error) {
	var out WebhookEndpoint
	return mutate(ctx, s.c, http.MethodPatch, "/webhook-endpoints/"+pathID(id), in, &out, &out.Response, opts)
}

// Delete removes an endpoint (idempotent).
func (s *WebhookEndpointsService) Delete(ctx context.Context, id string, opts ...CallOption) (*Deleted, error) {
	var out Deleted
	return mutate(ctx, s.c, http.MethodDelete, "/webhook-endpoints/"+pathID(id), nil, &out, &out.Response, opts)
}

// RotateSecret makes a new signing secret (shown only in the answer); the
// previous one keeps signing until PreviousSecretExpiresAt.
func (s *WebhookEndpointsService) RotateSecret(ctx context.Context, id string, opts ...CallOption) (*WebhookEndpointWithSecret, error) {
	var out WebhookEndpointWithSecret
	return mutate(ctx, s.c, http.MethodPost, "/webhook-endpoints/"+pathID(id)+"/rotate-secret", nil, &out, &out.Response, opts)
}

// Test sends a webhook.test event to this endpoint through the normal
// pipeline.
func (s *WebhookEndpointsService) Test(ctx context.Context, id string, opts ...CallOption) (*TestEvent, error) {
	var out TestEvent
	return mutate(ctx, s.c, http.MethodPost, "/webhook-endpoints/"+pathID(id)+"/test", nil, &out, &out.Response, opts)
}

// Recover re-sends the failed or dead deliveries of the endpoint created
// since then (at most 14 days back) as a fresh round, at most 100 per call
// and per step after it: while the answer's HasMore is true the recovery
// continues by itself, paced (Get shows its progress; a call while one
// runs never starts another). 409 ENDPOINT_DISABLED while the endpoint is
// disabled.
func (s *WebhookEndpointsService) Recover(ctx context.Context, id string, since time.Time, opts ...CallOption) (*Recovery, error) {
	var out Recovery
	body := map[string]string{"since": since.UTC().Format(time.RFC3339Nano)}
	return mutate(ctx, s.c, http.MethodPost, "/webhook-endpoints/"+pathID(id)+"/recover", body, &out, &out.Response, opts)
}

// DeliveriesService is /public/v1/webhook-deliveries.
type DeliveriesService struct{ c *Client }

// List returns one page of the delivery log (14 days), newest first.
func (s *DeliveriesService) List(ctx context.Context, p DeliveryListParams) (Page[Delivery], error) {
	return list[Delivery](ctx, s.c, "/webhook-deliveries", p.query())
}

// All walks the delivery log, newest first.
func (s *DeliveriesService) All(ctx context.Context, p DeliveryListParams) iter.Seq2[Delivery, error] {
	return all(ctx, s.c, "/webhook-deliveries", p.query(), Delivery.id)
}

// Walk is a Walker over the delivery log, newest first: from the start
// (or p.Cursor), or from a saved position when from is not zero.
func (s *DeliveriesService) Walk(p DeliveryListParams, from Position) *Walker[Delivery] {
	return walker(s.c, "/webhook-deliveries", p.query(), Delivery.id, from)
}

func (p DeliveryListParams) query() url.Values {
	return query(p.ListParams, "status", p.Status, "endpoint_id", p.EndpointID, "event_type", p.EventType,
		"event_id", p.EventID, "delivery_id", p.DeliveryID, "request_id", p.RequestID, "since", timeParam(p.Since), "until", timeParam(p.Until))
}

// Get returns a delivery with its payload and attempts.
func (s *DeliveriesService) Get(ctx context.Context, id string) (*DeliveryDetail, error) {
	var out DeliveryDetail
	return get(ctx, s.c, "/webhook-deliveries/"+pathID(id), nil, &out, &out.Response)
}

// Stats returns attempts per hour or day, by outcome.
func (s *DeliveriesService) Stats(ctx context.Context, p StatsParams) (*DeliveryStats, error) {
	var out DeliveryStats
	q := query(ListParams{}, "granularity", p.Granularity, "endpoint_id", p.EndpointID, "since", timeParam(p.Since), "until", timeParam(p.Until))
	return get(ctx, s.c, "/webhook-deliveries/stats", q, &out, &out.Response)
}

// Retry sends the delivery again now, as a manual attempt.
func (s *DeliveriesService) Retry(ctx context.Context, id string, opts ...CallOption) (*DeliveryRequest, error) {
	var out DeliveryRequest
	return mutate(ctx, s.c, http.MethodPost, "/webhook-deliveries/"+pathID(id)+"/retry", nil, &out, &out.Response, opts)
}

// Redirect sends the delivery's webhook to an inspector instead.
func (s *DeliveriesService) Redirect(ctx context.Context, id, inspectorID string, opts ...CallOption) (*DeliveryRequest, error) {
	var out DeliveryRequest
	body := map[string]string{"inspector_id": inspectorID}
	return mutate(ctx, s.c, http.MethodPost, "/webhook-deliveries/"+pathID(id)+"/redirect", body, &out, &out.Response, opts)
}

// InspectorsService is /public/v1/inspectors.
type InspectorsService struct{ c *Client }

// Create makes an inspector: a URL that keeps what it is sent.
func (s *InspectorsService) Create(ctx context.Context, opts ...CallOption) (*Inspector, error) {
	var out Inspector
	return mutate(ctx, s.c, http.MethodPost, "/inspectors", nil, &out, &out.Response, opts)
}

// Requests returns one page of what an inspector captured, newest first.
func (s *InspectorsService) Requests(ctx context.Context, id string, p ListParams) (Page[InspectorRequest], error) {
	return list[InspectorRequest](ctx, s.c, "/inspectors/"+pathID(id)+"/requests", query(p))
}

// AllRequests walks everything an inspector captured.
func (s *InspectorsService) AllRequests(ctx context.Context, id string, p ListParams) iter.Seq2[InspectorRequest, error] {
	return all(ctx, s.c, "/inspectors/"+pathID(id)+"/requests", query(p), InspectorRequest.id)
}

// WalkRequests is a Walker over what an inspector captured, newest first:
// from the start (or p.Cursor), or from a saved position when from is not
// zero.
func (s *InspectorsService) WalkRequests(id string, p ListParams, from Position) *Walker[InspectorRequest] {
	return walker(s.c, "/inspectors/"+pathID(id)+"/requests", query(p), InspectorRequest.id, from)
}

// DashboardSessionsService is /public/v1/dashboard-sessions: short-lived,
// scoped tokens for the dashboard instead of the API key. Only a client
// made with the API key may call it; a client made with a session token
// (NewClient(token)) may call what the session's scope grants, and gets a
// CodeInsufficientScope *Error for anything else.
type DashboardSessionsService struct{ c *Client }

// Create makes a session (idempotent). The answer's Token is shown only
// there; TTLSeconds 0 is the server's default lifetime.
func (s *DashboardSessionsService) Create(ctx context.Context, in DashboardSessionCreate, opts ...CallOption) (*DashboardSession, error) {
	var out DashboardSession
	return mutate(ctx, s.c, http.MethodPost, "/dashboard-sessions", in, &out, &out.Response, opts)
}

// Current returns the session the client's token belongs to (its scope
// and expiry, never the token), so that a dashboard shows only what the
// scope grants. A client made with the API key gets a CodeNotFound *Error.
func (s *DashboardSessionsService) Current(ctx context.Context) (*CurrentDashboardSession, error) {
	var out CurrentDashboardSession
	return get(ctx, s.c, "/dashboard-sessions/current", nil, &out, &out.Response)
}

// List returns one page of the project's live sessions, newest first,
// each with the API key that made it (never their tokens), to find every
// token handed out and revoke it with Delete. A client made with a
// session's token gets a CodeInsufficientScope *Error.
func (s *DashboardSessionsService) List(ctx context.Context, p ListParams) (Page[ListedDashboardSession], error) {
	return list[ListedDashboardSession](ctx, s.c, "/dashboard-sessions", query(p))
}

// All walks every live session, newest first.
func (s *DashboardSessionsService) All(ctx context.Context, p ListParams) iter.Seq2[ListedDashboardSession, error] {
	return all(ctx, s.c, "/dashboard-sessions", query(p), ListedDashboardSession.id)
}

// Walk is a Walker over the live sessions, newest first: from the start
// (or p.Cursor), or from a saved position when from is not zero.
func (s *DashboardSessionsService) Walk(p ListParams, from Position) *Walker[ListedDashboardSession] {
	return walker(s.c, "/dashboard-sessions", query(p), ListedDashboardSession.id, from)
}

// Delete revokes a session: its token stops working at once (idempotent).
func (s *DashboardSessionsService) Delete(ctx context.Context, id string, opts ...CallOption) (*Deleted, error) {
	var out Deleted
	return mutate(ctx, s.c, http.MethodDelete, "/dashboard-sessions/"+pathID(id), nil, &out, &out.Response, opts)
}

// EventsService is /public/v1/events.
type EventsService struct{ c *Client }

// List returns one page of events, newest first.
func (s *EventsService) List(ctx context.Context, p EventListParams) (Page[Event], error) {
	return list[Event](ctx, s.c, "/events", p.query())
}

// All walks the events, newest first.
func (s *EventsService) All(ctx context.Context, p EventListParams) iter.Seq2[Event, error] {
	return all(ctx, s.c, "/events", p.query(), Event.id)
}

// Walk is a Walker over the events, newest first: from the start (or
// p.Cursor), or from a saved position when from is not zero.
func (s *EventsService) Walk(p EventListParams, from Position) *Walker[Event] {
	return walker(s.c, "/events", p.query(), Event.id, from)
}

func (p EventListParams) query() url.Values {
	return query(p.ListParams, "type", p.Type, "since", timeParam(p.Since))
}

// Get returns an event.
func (s *EventsService) Get(ctx context.Context, id string) (*Event, error) {
	var out Event
	return get(ctx, s.c, "/events/"+pathID(id), nil, &out, &out.Response)
}

// OpenAPI returns the API's OpenAPI 3.1 document (GET /public/v1/openapi.json),
// the contract this client follows.
func (c *Client) OpenAPI(ctx context.Context) (json.RawMessage, error) {
	var out json.RawMessage
	_, err := c.do(ctx, request{method: http.MethodGet, path: "/openapi.json"}, &out, nil)
	return out, err
}

// The ids walks compare (see Position).
func (c Contact) id() string                { return c.ID }
func (m Message) id() string                { return m.ID }
func (e WebhookEndpoint) id() string        { return e.ID }
func (d Delivery) id() string               { return d.ID }
func (r InspectorRequest) id() string       { return r.ID }
func (e Event) id() string                  { return e.ID }
func (d ListedDashboardSession) id() string { return d.ID }
