package integrator_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/sdk/go/botix"
)

// TestWalkerResumesAtAnItem: a walk of 1,000 contacts by 37 stopped at
// item 500, in the middle of page 14, and resumed from the text form of
// its position by another client yields every contact exactly once.
func TestWalkerResumesAtAnItem(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	pc := &pageCounter{}
	project, key := localtest.Project(t, rt, "")
	ctx := context.Background()
	seedContacts(t, rt, project, "+7999400", 1000)
	params := botix.ContactListParams{ListParams: botix.ListParams{Limit: 37}}

	seen := map[string]int{}
	c := botix.NewClient(key, botix.WithBaseURL(rt.URL), botix.WithHTTPClient(&http.Client{Transport: pc}))
	w := c.Contacts.Walk(params, botix.Position{})
	for ct, err := range w.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if seen[ct.ID]++; len(seen) == 500 {
			break
		}
	}
	saved := w.Position().String()
	if got := pc.pages.Load(); got != 14 { // item 500 is the 19th of page 14
		t.Fatalf("%d pages fetched for 500 items of 37", got)
	}

	pc.pages.Store(0)
	pos, err := botix.ParsePosition(saved)
	if err != nil {
		t.Fatal(err)
	}
	again := botix.NewClient(key, botix.WithBaseURL(rt.URL), botix.WithHTTPClient(&http.Client{Transport: pc}))
	for ct, err := range again.Contacts.Walk(params, pos).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		seen[ct.ID]++
	}
	if len(seen) != 1000 {
		t.Fatalf("%d contacts walked", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s yielded %d times", id, n)
		}
	}
	if got := pc.pages.Load(); got != 15 { // page 14 again, then 15..28
		t.Fatalf("the resumed walk fetched %d pages, want 15", got)
	}
}
