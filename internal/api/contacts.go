package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/pagination"
	"github.com/botix/public-api/internal/store"
)

// Contacts serves /public/v1/contacts.
type Contacts struct {
	Deps
}

// Create is POST /public/v1/contacts: a contact and its contact.created
// event, or 409 CONTACT_ALREADY_EXISTS when the phone is taken.
func (c *Contacts) Create(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	var in domain.ContactInput
	if err := httpapi.Decode(r.Body, &in); err != nil {
		return Outcome{}, err
	}
	if err := in.Validate().Err(); err != nil {
		return Outcome{}, err
	}
	now := c.now()
	contact := domain.NewContact(in, ids.New(ids.Contact, now), ids.Timestamp(now))
	var plan store.Plan
	if err := c.Store.AddContact(&plan, r.Project, contact); err != nil {
		return Outcome{}, err
	}
	if err := addEvent(c.Store, &plan, r.Project, domain.EventContactCreated, contact, now); err != nil {
		return Outcome{}, err
	}
	return created(contact, plan)
}

// Get is GET /public/v1/contacts/{id}.
func (c *Contacts) Get(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	contact, err := c.Store.GetContact(ctx, r.Project, r.PathParams["id"])
	if err != nil {
		return nil, err
	}
	return httpapi.JSON(http.StatusOK, contact)
}

// List is GET /public/v1/contacts: newest first, filtered by tag,
// created_after and created_before (all key conditions).
func (c *Contacts) List(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	q := c.Pager.Params(r)
	f := store.ContactFilter{
		Tag:    q.Match("tag", domain.TagPattern, "must be 1-64 letters, digits, '_', '.', ':' or '-'"),
		After:  q.Time("created_after"),
		Before: q.Time("created_before"),
	}
	req, err := q.Page()
	if err != nil {
		return nil, err
	}
	return listPage(ctx, c.Store, c.Pager, store.ContactsQuery(r.Project, f), req)
}

// Count is GET /public/v1/contacts/count: the exact number of contacts,
// from the counter the create transaction updates (no Scan, no COUNT).
func (c *Contacts) Count(ctx context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	if err := pagination.ReadQuery(r).Done(); err != nil {
		return nil, err
	}
	n, err := c.Store.CountContacts(ctx, r.Project)
	if err != nil {
		return nil, err
	}
	return httpapi.JSON(http.StatusOK, map[string]int64{"total": n})
}

// addEvent plans the outbox event of type typ whose data is the JSON of data.
func addEvent(s *store.Store, plan *store.Plan, project, typ string, data any, now time.Time) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	return s.AddEvent(plan, store.NewEvent(project, typ, raw, now), "")
}
