package botix_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/botix/public-api/sdk/go/botix"
)

// listServer is a contact list served the way the API pages it: newest
// first by id, a cursor being the id after which the next page starts, so
// that deleting an item moves no page boundary. Requests numbered in
// failAt answer 500 once.
type listServer struct {
	mu       sync.Mutex
	ids      []string // newest first
	limit    int
	requests int
	cursors  []string
	failAt   map[int]bool
	url      string
}

func newListServer(t *testing.T, n, limit int) *listServer {
	s := &listServer{limit: limit, failAt: map[int]bool{}}
	for i := n; i >= 1; i-- {
		s.ids = append(s.ids, fmt.Sprintf("ct_01M8RJ%020d", i))
	}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

func (s *listServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	cursor := r.URL.Query().Get("cursor")
	s.cursors = append(s.cursors, cursor)
	if s.failAt[s.requests] {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(500)
		fmt.Fprint(w, `{"error":{"code":"INTERNAL","message":"internal error","request_id":"req_1"}}`)
		return
	}
	var page []map[string]string
	for _, id := range s.ids {
		if cursor == "" || id < cursor {
			page = append(page, map[string]string{"id": id, "phone": "+79990000000", "name": "n"})
		}
	}
	more := len(page) > s.limit
	body := map[string]any{"data": page[:min(len(page), s.limit)], "has_more": more, "next_cursor": nil}
	if more {
		body["next_cursor"] = page[s.limit-1]["id"]
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

func (s *listServer) delete(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids = slices.DeleteFunc(s.ids, func(x string) bool { return x == id })
}

func (s *listServer) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ids)
}

func (s *listServer) client() *botix.Client {
	return botix.NewClient("bx_test", botix.WithBaseURL(s.url), botix.WithRetryPolicy(botix.RetryPolicy{MaxAttempts: 1}))
}

// walk runs w until it has yielded stopAfter items (0: to the end or the
// first error), returning the ids and the error.
func walk(w *botix.Walker[botix.Contact], stopAfter int) ([]string, error) {
	var got []string
	for c, err := range w.All(context.Background()) {
		if err != nil {
			return got, err
		}
		got = append(got, c.ID)
		if len(got) == stopAfter {
			break
		}
	}
	return got, nil
}

// resume starts a new walker at the text form of w's position, as a
// program that saved it and restarted would.
func resume(t *testing.T, c *botix.Client, w *botix.Walker[botix.Contact]) *botix.Walker[botix.Contact] {
	t.Helper()
	pos, err := botix.ParsePosition(w.Position().String())
	if err != nil {
		t.Fatal(err)
	}
	return c.Contacts.Walk(botix.ContactListParams{ListParams: botix.ListParams{Limit: 5}}, pos)
}

func TestWalkerResumes(t *testing.T) {
	t.Run("stopped after item 12 (mid-page), resumed from its text form → the rest exactly once", func(t *testing.T) {
		s := newListServer(t, 23, 5)
		c := s.client()
		w := c.Contacts.Walk(botix.ContactListParams{ListParams: botix.ListParams{Limit: 5}}, botix.Position{})
		first, err := walk(w, 12)
		if err != nil || len(first) != 12 {
			t.Fatalf("%d items, %v", len(first), err)
		}
		rest, err := walk(resume(t, c, w), 0)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := append(first, rest...), s.all(); !slices.Equal(got, want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
	})
	t.Run("an error on page 3 → All again continues after the last item yielded", func(t *testing.T) {
		s := newListServer(t, 23, 5)
		s.failAt[3] = true
		w := s.client().Contacts.Walk(botix.ContactListParams{ListParams: botix.ListParams{Limit: 5}}, botix.Position{})
		first, err := walk(w, 0)
		var apiErr *botix.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 || len(first) != 10 {
			t.Fatalf("%d items, %v", len(first), err)
		}
		rest, err := walk(w, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := append(first, rest...), s.all(); !slices.Equal(got, want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
		// The failed page is fetched again with the cursor it failed with,
		// not the page before it.
		if s.cursors[2] == "" || s.cursors[3] != s.cursors[2] {
			t.Fatalf("cursors %q", s.cursors)
		}
	})
	t.Run("the item at the position deleted before resuming → no loss, no repeat", func(t *testing.T) {
		s := newListServer(t, 23, 5)
		c := s.client()
		w := c.Contacts.Walk(botix.ContactListParams{ListParams: botix.ListParams{Limit: 5}}, botix.Position{})
		first, err := walk(w, 7)
		if err != nil {
			t.Fatal(err)
		}
		s.delete(first[6])
		rest, err := walk(resume(t, c, w), 0)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := append(first[:6], rest...), s.all(); !slices.Equal(got, want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
	})
	t.Run("stopped at the last item of a page → the resumed walk does not fetch that page again", func(t *testing.T) {
		s := newListServer(t, 23, 5)
		c := s.client()
		w := c.Contacts.Walk(botix.ContactListParams{ListParams: botix.ListParams{Limit: 5}}, botix.Position{})
		first, _ := walk(w, 5)
		before := s.requests
		rest, err := walk(resume(t, c, w), 0)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := append(first, rest...), s.all(); !slices.Equal(got, want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
		// 23 items by 5: pages 2 to 5.
		if n := s.requests - before; n != 4 {
			t.Fatalf("%d requests after resuming, want 4", n)
		}
	})
	t.Run("a finished walk resumed → nothing", func(t *testing.T) {
		s := newListServer(t, 7, 5)
		c := s.client()
		w := c.Contacts.Walk(botix.ContactListParams{ListParams: botix.ListParams{Limit: 5}}, botix.Position{})
		if got, _ := walk(w, 0); len(got) != 7 {
			t.Fatalf("%d items", len(got))
		}
		if got, err := walk(resume(t, c, w), 0); len(got) != 0 || err != nil {
			t.Fatalf("%v %v", got, err)
		}
	})
	t.Run("All (no walker) still starts at p.Cursor", func(t *testing.T) {
		s := newListServer(t, 23, 5)
		c := s.client()
		var got []string
		for ct, err := range c.Contacts.All(context.Background(), botix.ContactListParams{ListParams: botix.ListParams{Limit: 5, Cursor: s.all()[9]}}) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ct.ID)
		}
		if want := s.all()[10:]; !slices.Equal(got, want) {
			t.Fatalf("got %v\nwant %v", got, want)
		}
	})
}

func TestParsePosition(t *testing.T) {
	const id = "ct_01M8RJABT443FMA008ER6SWH69"
	for _, tc := range []struct {
		name, in string
		ok       bool
	}{
		{"empty → the start", "", true},
		{"first page, nothing handled", "p1..", true},
		{"first page, an item handled", "p1." + id + ".", true},
		{"a page cursor, an item handled", "p1." + id + ".AQJrMbq-_x", true},
		{"a page cursor, nothing of it handled", "p1..AQJrMbq", true},
		{"another version → ErrInvalidPosition", "p2." + id + ".AQ", false},
		{"no separator → ErrInvalidPosition", "p1." + id, false},
		{"not an id → ErrInvalidPosition", "p1.ct_nope.AQ", false},
		{"a bare cursor → ErrInvalidPosition", "AQJrMbq", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := botix.ParsePosition(tc.in)
			if tc.ok != (err == nil) {
				t.Fatalf("err = %v", err)
			}
			if !tc.ok {
				if !errors.Is(err, botix.ErrInvalidPosition) {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if tc.in != "" && p.String() != tc.in {
				t.Fatalf("String() = %q", p.String())
			}
		})
	}
	if s := (botix.Position{}).String(); s != "p1.." {
		t.Fatalf("zero position: %q", s)
	}
}
