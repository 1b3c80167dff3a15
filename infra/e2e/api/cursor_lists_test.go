package api_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/localtest"
)

func TestListsEndToEnd(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	_, key := localtest.Project(t, rt, "")
	c := localtest.Client{T: t, Base: rt.URL, Key: key}
	for _, phone := range []string{"+79990002001", "+79990002002", "+79990002003"} {
		c.Contact(phone)
	}
	t.Run("count is routed before {id} and answers the total", func(t *testing.T) {
		r := c.Get("/public/v1/contacts/count")
		if r.Status != 200 || string(r.Body) != `{"total":3}` {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("a walk with cursor_limit=2 returns 2 then 1", func(t *testing.T) {
		r := c.Get("/public/v1/contacts?cursor_limit=2")
		var p struct {
			Data       []struct{ ID string }
			NextCursor *string `json:"next_cursor"`
			HasMore    bool    `json:"has_more"`
		}
		r.JSON(t, &p)
		if len(p.Data) != 2 || !p.HasMore || p.NextCursor == nil {
			t.Fatalf("%s", r.Body)
		}
		r = c.Get("/public/v1/contacts?cursor_limit=2&cursor=" + url.QueryEscape(*p.NextCursor))
		r.JSON(t, &p)
		if len(p.Data) != 1 || p.HasMore || p.NextCursor != nil || !strings.Contains(string(r.Body), `"next_cursor":null`) {
			t.Fatalf("%s", r.Body)
		}
	})
	t.Run("offset mode carries the deprecation headers", func(t *testing.T) {
		r := c.Get("/public/v1/contacts?pagination=offset&offset=1&limit=1")
		if r.Status != 200 || r.Header.Get("Deprecation") == "" || r.Header.Get("Sunset") == "" || !strings.HasPrefix(r.Header.Get("X-API-Notice"), "pagination=offset deprecated, migrate by ") {
			t.Fatalf("%d %v", r.Status, r.Header)
		}
	})
	t.Run("messages list is reachable", func(t *testing.T) {
		if r := c.Get("/public/v1/messages?status=queued"); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}
