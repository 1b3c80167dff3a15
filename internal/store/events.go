package store

import (
	"context"
	"time"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
)

// EventRetention is how long outbox events stay readable through the event
// polling API (TTL).
const EventRetention = 30 * 24 * time.Hour

// EntityEvent is the entity of outbox event items; the dispatch function's
// stream filter in template.yaml selects INSERTs of it.
const EntityEvent = "event"

// eventItem is a stored outbox event.
type eventItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	GSI1PK    string `dynamodbav:"gsi1pk"`
	GSI1SK    string `dynamodbav:"gsi1sk"`
	Entity    string `dynamodbav:"entity"`
	ID        string `dynamodbav:"id"`
	Type      string `dynamodbav:"type"`
	CreatedAt string `dynamodbav:"created_at"`
	ProjectID string `dynamodbav:"project_id"`
	// Data is the event's data as raw JSON text, kept byte for byte.
	Data string `dynamodbav:"data"`
	// TargetEndpoint restricts the fan-out to one endpoint (webhook.test).
	TargetEndpoint string `dynamodbav:"target_endpoint_id,omitempty"`
	// AboutEndpoint keeps a health event from the endpoint it is about.
	AboutEndpoint string `dynamodbav:"about_endpoint_id,omitempty"`
	ExpiresAt     int64  `dynamodbav:"expires_at"`
	// Trace is the traceparent of the request that committed it (traced).
	Trace string `dynamodbav:"traceparent,omitempty"`
}

// NewEvent mints an outbox event of type typ about data, created now.
func NewEvent(project, typ string, data []byte, now time.Time) domain.Event {
	return domain.Event{ID: ids.New(ids.Event, now), Type: typ, CreatedAt: ids.Timestamp(now), ProjectID: project, Data: data}
}

// AddEvent adds the outbox write of ev to the plan, so that the event
// exists if and only if the business change it describes commits.
func (s *Store) AddEvent(p *Plan, ev domain.Event, targetEndpoint string) error {
	return s.addEvent(p, webhook.Outgoing{Event: &ev, TargetEndpoint: targetEndpoint})
}

// addEvent adds the outbox write of an outgoing event, its target or the
// endpoint it is about kept for the dispatcher.
func (s *Store) addEvent(p *Plan, o webhook.Outgoing) error {
	ev := o.Event
	u, err := ids.Parse(ids.Event, ev.ID)
	if err != nil {
		return err
	}
	w, err := put(s.Tables.Data, eventItem{
		PK: scoped(ev.ProjectID, "EVT"), SK: u.String(), GSI1PK: eventTypePK(ev.ProjectID, ev.Type), GSI1SK: u.String(),
		Entity: EntityEvent, ID: ev.ID, Type: ev.Type, CreatedAt: ev.CreatedAt, ProjectID: ev.ProjectID,
		Data: string(ev.Data), TargetEndpoint: o.TargetEndpoint, AboutEndpoint: o.About,
		ExpiresAt: ids.Time(u).Add(EventRetention).Unix(),
	}, "attribute_not_exists(pk)")
	if err != nil {
		return err
	}
	p.Add(w, nil)
	return nil
}

// event returns the public event.
func (it eventItem) event() domain.Event {
	return domain.Event{ID: it.ID, Type: it.Type, CreatedAt: it.CreatedAt, ProjectID: it.ProjectID, Data: []byte(it.Data)}
}

// EventFilter selects events: Type is a key condition (GSI1), Since bounds
// the ULID sort key.
type EventFilter struct {
	Type  string
	Since time.Time
}

// EventsQuery lists a project's events, newest first.
func EventsQuery(project string, f EventFilter) List[domain.Event] {
	q := Query{PartitionAttr: attrPK, Partition: scoped(project, "EVT"), SortAttr: attrSK}
	if f.Type != "" {
		q = Query{Index: IndexGSI1, PartitionAttr: attrGSI1PK, Partition: eventTypePK(project, f.Type), SortAttr: attrGSI1SK}
	}
	q.From, _ = ulidRange(f.Since, time.Time{})
	return listOf(q, eventItem.event)
}

// GetEvent returns an event of project, or NOT_FOUND.
func (s *Store) GetEvent(ctx context.Context, project, id string) (domain.Event, error) {
	u, err := ids.Parse(ids.Event, id)
	if err != nil {
		return domain.Event{}, ErrNotFound
	}
	var it eventItem
	if err := s.get(ctx, s.Tables.Data, key(scoped(project, "EVT"), u.String()), &it); err != nil {
		return domain.Event{}, err
	}
	return it.event(), nil
}
