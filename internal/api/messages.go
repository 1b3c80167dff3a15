package api

import (
	"context"
	"slices"
	"strings"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/pagination"
	"github.com/botix/public-api/internal/store"
)

// Messages serves /public/v1/messages.
type Messages struct {
	clock
	Store *store.Store
	Pager *pagination.Pager
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
	if err := pagination.CheckParams(r.Query, "contact_id", "status"); err != nil {
		return nil, err
	}
	problems, filters := apierr.Problems{}, map[string]string{}
	f := store.MessageFilter{ContactID: r.Query.Get("contact_id"), Status: r.Query.Get("status")}
	if f.ContactID != "" {
		if _, err := ids.Parse(ids.Contact, f.ContactID); err != nil {
			problems.Add("contact_id", "must be a contact id (ct_...)")
		}
		filters["contact_id"] = f.ContactID
	}
	if f.Status != "" {
		if !slices.Contains(domain.MessageStatuses, f.Status) {
			problems.Add("status", "must be one of "+strings.Join(domain.MessageStatuses, ", "))
		}
		filters["status"] = f.Status
	}
	if err := problems.ParamErr(); err != nil {
		return nil, err
	}
	req, err := m.Pager.Parse(r, filters)
	if err != nil {
		return nil, err
	}
	return listPage[domain.Message](ctx, m.Store, m.Pager, store.MessagesQuery(r.Project, f), req)
}

func contactNotFound(id string) error {
	return apierr.New(apierr.NotFound, "contact %s not found", id)
}
