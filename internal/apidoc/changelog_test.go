package apidoc

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/internal/pagination"
)

// parsedFeed is the feed as a reader sees it: every element RFC 4287
// requires or this API promises, read back independently of the structs
// that wrote it.
type parsedFeed struct {
	XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string   `xml:"http://www.w3.org/2005/Atom id"`
	Title   string   `xml:"http://www.w3.org/2005/Atom title"`
	Updated string   `xml:"http://www.w3.org/2005/Atom updated"`
	Author  []struct {
		Name string `xml:"http://www.w3.org/2005/Atom name"`
	} `xml:"http://www.w3.org/2005/Atom author"`
	Links   []parsedLink `xml:"http://www.w3.org/2005/Atom link"`
	Entries []struct {
		ID        string       `xml:"http://www.w3.org/2005/Atom id"`
		Title     string       `xml:"http://www.w3.org/2005/Atom title"`
		Updated   string       `xml:"http://www.w3.org/2005/Atom updated"`
		Published string       `xml:"http://www.w3.org/2005/Atom published"`
		Links     []parsedLink `xml:"http://www.w3.org/2005/Atom link"`
		Summary   string       `xml:"http://www.w3.org/2005/Atom summary"`
		Content   string       `xml:"http://www.w3.org/2005/Atom content"`
	} `xml:"http://www.w3.org/2005/Atom entry"`
}

type parsedLink struct {
	Rel  string `xml:"rel,attr"`
	Href string `xml:"href,attr"`
}

// wellFormed reads every token of an XML document: a syntax error, an
// unclosed element or a stray end tag fails it.
func wellFormed(t *testing.T, b []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	roots := 0
	depth := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if roots != 1 || depth != 0 {
		t.Fatalf("%d root elements, depth %d at the end", roots, depth)
	}
}

func parseFeed(t *testing.T, o pagination.Offset) parsedFeed {
	t.Helper()
	doc, err := Feed(o)
	if err != nil {
		t.Fatal(err)
	}
	wellFormed(t, doc.Body)
	var f parsedFeed
	if err := xml.Unmarshal(doc.Body, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func rfc3339(t *testing.T, what, s string) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Errorf("%s %q is not an RFC 3339 date-time", what, s)
	}
	return ts
}

// TestFeedIsAtom checks the elements RFC 4287 requires: the feed's id,
// title, updated and author, a self link; each entry's id (unique), title,
// updated, and a link (an entry without content must have an alternate
// one); entries newest first, the feed updated as its newest entry.
func TestFeedIsAtom(t *testing.T) {
	f := parseFeed(t, pagination.DefaultOffset)
	if f.ID == "" || f.Title == "" || len(f.Author) == 0 || f.Author[0].Name == "" {
		t.Errorf("feed id %q, title %q, author %v", f.ID, f.Title, f.Author)
	}
	updated := rfc3339(t, "feed updated", f.Updated)
	if !hasLink(f.Links, "self", ChangelogPath) {
		t.Errorf("no self link: %v", f.Links)
	}
	if len(f.Entries) < 2 {
		t.Fatalf("%d entries", len(f.Entries))
	}
	ids := map[string]bool{}
	var prev time.Time
	for i, e := range f.Entries {
		if e.ID == "" || e.Title == "" || ids[e.ID] {
			t.Errorf("entry %d: id %q (seen: %v), title %q", i, e.ID, ids[e.ID], e.Title)
		}
		ids[e.ID] = true
		if !strings.HasPrefix(e.ID, "tag:") {
			t.Errorf("entry id %s is not a tag URI", e.ID)
		}
		u := rfc3339(t, "entry updated", e.Updated)
		rfc3339(t, "entry published", e.Published)
		if e.Content == "" && !hasLink(e.Links, "alternate", "") {
			t.Errorf("entry %s has neither content nor an alternate link", e.ID)
		}
		if e.Summary == "" {
			t.Errorf("entry %s has no summary", e.ID)
		}
		if i == 0 && !u.Equal(updated) {
			t.Errorf("feed updated %s; its newest entry %s", updated, u)
		}
		if i > 0 && u.After(prev) {
			t.Errorf("entry %s (%s) comes after an older one (%s)", e.ID, u, prev)
		}
		prev = u
	}
}

// TestFeedAnnouncesTheOffsetDeprecation: the offset entry has the
// deployment's dates and guide, the same the offset answers' headers
// carry: the defaults, and a deployment's own.
func TestFeedAnnouncesTheOffsetDeprecation(t *testing.T) {
	custom := pagination.DefaultOffset
	custom.DeprecatedAt = time.Date(2026, 12, 24, 0, 0, 0, 0, time.UTC)
	custom.SunsetAt = time.Date(2028, 1, 31, 0, 0, 0, 0, time.UTC)
	custom.DocsURL = "https://docs.example.com/migrate"
	for name, o := range map[string]pagination.Offset{"the defaults": pagination.DefaultOffset, "a deployment's policy": custom} {
		t.Run(name, func(t *testing.T) {
			f := parseFeed(t, o)
			found := false
			for _, e := range f.Entries {
				if e.ID != EntryID(OffsetSlug) {
					continue
				}
				found = true
				if !rfc3339(t, "published", e.Published).Equal(o.DeprecatedAt) || !rfc3339(t, "updated", e.Updated).Equal(o.DeprecatedAt) {
					t.Errorf("published %s, updated %s; deprecated at %s", e.Published, e.Updated, o.DeprecatedAt)
				}
				sunset := o.SunsetAt.Format(time.DateOnly)
				if !strings.Contains(e.Title, sunset) || !strings.Contains(e.Summary, sunset) || !strings.Contains(e.Summary, o.DeprecatedAt.Format(time.DateOnly)) {
					t.Errorf("title %q, summary %q: the dates %s, %s", e.Title, e.Summary, o.DeprecatedAt, o.SunsetAt)
				}
				if !hasLink(e.Links, "alternate", o.DocsURL) {
					t.Errorf("links %v; the guide is %s", e.Links, o.DocsURL)
				}
			}
			if !found {
				t.Fatalf("no entry %s", EntryID(OffsetSlug))
			}
		})
	}
}

// TestFeedIsStable: the same policy renders the same bytes, so the ETag
// changes only with an entry.
func TestFeedIsStable(t *testing.T) {
	a, err := Feed(pagination.DefaultOffset)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Feed(pagination.DefaultOffset)
	if !bytes.Equal(a.Body, b.Body) || a.ETag != b.ETag {
		t.Fatal("two renderings differ")
	}
	later := pagination.DefaultOffset
	later.SunsetAt = later.SunsetAt.AddDate(0, 1, 0)
	c, _ := Feed(later)
	if c.ETag == a.ETag {
		t.Fatal("a moved sunset kept the ETag")
	}
}

func hasLink(links []parsedLink, rel, href string) bool {
	for _, l := range links {
		if l.Rel == rel && l.Href != "" && (href == "" || l.Href == href) {
			return true
		}
	}
	return false
}
