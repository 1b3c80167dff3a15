package localtest

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
)

// Client calls the local runtime's public API as one API key or dashboard
// session token does; each call fails T when the transport fails. RT is
// set for the tests that also invoke functions or read the tables.
type Client struct {
	T    testing.TB
	Base string
	Key  string
	RT   *local.Runtime
}

// As is the same client calling with another key or session token.
func (c Client) As(token string) Client { c.Key = token; return c }

// In is the same client reporting to t: a subtest's calls fail the
// subtest, not the test that made the client.
func (c Client) In(t testing.TB) Client { c.T = t; return c }

// Post sends a JSON body with an Idempotency-Key.
func (c Client) Post(path, idemKey, body string) apitest.Reply {
	c.T.Helper()
	return apitest.Do(c.T, http.MethodPost, c.Base+path, []byte(body), "Authorization", "Bearer "+c.Key, "Content-Type", "application/json", "Idempotency-Key", idemKey)
}

// Get reads path.
func (c Client) Get(path string) apitest.Reply {
	c.T.Helper()
	return apitest.Do(c.T, http.MethodGet, c.Base+path, nil, "Authorization", "Bearer "+c.Key)
}

// Patch sends a JSON body with a fresh Idempotency-Key.
func (c Client) Patch(path, body string) apitest.Reply {
	c.T.Helper()
	return apitest.Do(c.T, http.MethodPatch, c.Base+path, []byte(body), "Authorization", "Bearer "+c.Key, "Content-Type", "application/json", "Idempotency-Key", uuid.NewString())
}

// Del deletes path with an Idempotency-Key.
func (c Client) Del(path, idemKey string) apitest.Reply {
	c.T.Helper()
	return apitest.Do(c.T, http.MethodDelete, c.Base+path, nil, "Authorization", "Bearer "+c.Key, "Idempotency-Key", idemKey)
}

// Read GETs path, which must answer 200, into v.
func (c Client) Read(path string, v any) {
	c.T.Helper()
	r := c.Get(path)
	if r.Status != http.StatusOK {
		c.T.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	r.JSON(c.T, v)
}

// Page is one page of a list route.
type Page struct {
	Data       []json.RawMessage `json:"data"`
	NextCursor *string           `json:"next_cursor"`
	HasMore    bool              `json:"has_more"`
}

// List reads one page of a list route.
func (c Client) List(path string) Page {
	c.T.Helper()
	var p Page
	c.Read(path, &p)
	return p
}

// Contact creates a contact with phone and returns its id.
func (c Client) Contact(phone string) string {
	c.T.Helper()
	r := c.Post("/public/v1/contacts", uuid.NewString(), `{"phone":"`+phone+`","name":"Ivan"}`)
	if r.Status != http.StatusCreated {
		c.T.Fatalf("create contact: %d %s", r.Status, r.Body)
	}
	var ct struct{ ID string }
	r.JSON(c.T, &ct)
	return ct.ID
}

// Endpoint is a webhook endpoint as its creation answers it.
type Endpoint struct {
	ID     string `json:"id"`
	Secret string `json:"secret"`
}

// Endpoint creates a webhook endpoint for url subscribed to events (every
// event type when none is given).
func (c Client) Endpoint(url string, events ...string) Endpoint {
	c.T.Helper()
	if len(events) == 0 {
		events = []string{"*"}
	}
	b, _ := json.Marshal(map[string]any{"url": url, "events": events})
	return c.createEndpoint(string(b))
}

// LimitedEndpoint creates an endpoint subscribed to contact.created with
// the given flow limits (a JSON fragment).
func (c Client) LimitedEndpoint(url, limits string) Endpoint {
	c.T.Helper()
	b, _ := json.Marshal(url)
	return c.createEndpoint(`{"url":` + string(b) + `,"events":["contact.created"],` + limits + `}`)
}

func (c Client) createEndpoint(body string) Endpoint {
	c.T.Helper()
	r := c.Post("/public/v1/webhook-endpoints", uuid.NewString(), body)
	if r.Status != http.StatusCreated {
		c.T.Fatalf("create endpoint: %d %s", r.Status, r.Body)
	}
	var ep Endpoint
	r.JSON(c.T, &ep)
	return ep
}

// DeleteEndpoint deletes a webhook endpoint, which must answer 200.
func (c Client) DeleteEndpoint(id string) {
	c.T.Helper()
	r := c.Del("/public/v1/webhook-endpoints/"+id, uuid.NewString())
	if r.Status != http.StatusOK {
		c.T.Fatalf("delete endpoint: %d %s", r.Status, r.Body)
	}
}
