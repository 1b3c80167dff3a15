package api

import (
	"context"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
)

// Messages serves /public/v1/messages.
type Messages struct {
	Deps
}

// Create is POST /public/v1/messages: a queued message and its
// message.sent event; 404 NOT_FOUND when the contact does not exist (a
// condition of the same transaction, not a prior read).
func (m *Messages) Create(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	var in domain.MessageInput
	if err := httpapi.Decode(r.Body, &in); err != nil {
		return Outcome{}, err
	}
	if err := in.Validate().Err(); err != nil {
		return Outcome{}, err
	}
	now := m.now()
	msg := domain.NewMessage(in, ids.New(ids.Message, now), ids.Timestamp(now))
	var plan store.Plan
	if err := m.Store.ContactExistsCheck(&plan, r.Project, msg.ContactID, contactNotFound(msg.ContactID)); err != nil {
		return Outcome{}, err
	}
	if err := m.Store.AddMessage(&plan, r.Project, msg); err != nil {
		return Outcome{}, err
	}
	if err := addEvent(m.Store, &plan, r.Project, domain.EventMessageSent, msg, now); err != nil {
		return Outcome{}, err
	}
	return accepted(msg, plan)
}

// List is GET /public/v1/messages: newest first, filtered by contact_id
// (a key condition on GSI1) and status (a FilterExpression, within the
// read budget).
func (m *Messages) List(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	q := m.Pager.Params(r)
	f := store.MessageFilter{
		ContactID: q.ID("contact_id", ids.Contact, "a contact id"),
		Status:    q.Enum("status", domain.MessageStatuses),
	}
	req, err := q.Page()
	if err != nil {
		return nil, err
	}
	return listPage(ctx, m.Store, m.Pager, store.MessagesQuery(r.Project, f), req)
}

func contactNotFound(id string) error {
	return apierr.New(apierr.NotFound, "contact %s not found", id)
}
