package api_test

import (
	"encoding/xml"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/pagination"
)

// TestErrorCodeReferenceIsServed: GET /public/v1/error-codes (JSON) and
// GET /docs/error-codes (HTML, with the dashboard's security headers)
// answer without a key, list every code of the API's status table with its
// status, and a revalidation with their ETag costs no bytes.
func TestErrorCodeReferenceIsServed(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	t.Run("JSON lists every code with its status and advice", func(t *testing.T) {
		r := revalidated(t, rt.URL+"/public/v1/error-codes", "application/json")
		var body struct {
			Codes []struct {
				Code    apierr.Code  `json:"code"`
				Status  int          `json:"status"`
				When    string       `json:"when"`
				Action  string       `json:"action"`
				Retry   apierr.Retry `json:"retry"`
				DocsURL string       `json:"docs_url"`
			} `json:"codes"`
		}
		r.JSON(t, &body)
		served := map[apierr.Code]int{}
		for _, c := range body.Codes {
			served[c.Code] = c.Status
			if c.When == "" || c.Action == "" || c.Retry == "" || c.DocsURL != "/docs/error-codes#"+string(c.Code) {
				t.Errorf("incomplete entry %+v", c)
			}
		}
		for code, status := range httpapi.Codes() {
			if served[code] != status {
				t.Errorf("%s: served status %d, the API answers %d", code, served[code], status)
			}
		}
		if len(served) != len(httpapi.Codes()) {
			t.Errorf("%d codes served, %d in the table", len(served), len(httpapi.Codes()))
		}
	})
	t.Run("the page has an anchor per code and the strict headers", func(t *testing.T) {
		r := revalidated(t, rt.URL+"/docs/error-codes", "text/html; charset=utf-8")
		for k, v := range httpapi.PageSecurityHeaders {
			if r.Header.Get(k) != v[0] {
				t.Errorf("%s = %q, want %q", k, r.Header.Get(k), v[0])
			}
		}
		for code := range httpapi.Codes() {
			if !strings.Contains(string(r.Body), `<tr id="`+string(code)+`">`) {
				t.Errorf("no entry for %s", code)
			}
		}
		if strings.Contains(string(r.Body), "<script") {
			t.Error("the page has a script")
		}
	})
}

// TestChangelogAnnouncesTheOffsetDeprecation: GET /public/v1/changelog.atom
// is an Atom feed whose offset entry carries the deployment's dates (the
// template defaults, pagination.DefaultOffset), the same as the Deprecation
// and Sunset headers of an offset answer, whose Link names both the guide
// and this feed.
func TestChangelogAnnouncesTheOffsetDeprecation(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	r := revalidated(t, rt.URL+pagination.ChangelogPath, "application/atom+xml")
	var feed struct {
		XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
		ID      string   `xml:"id"`
		Updated string   `xml:"updated"`
		Entries []struct {
			ID        string `xml:"id"`
			Title     string `xml:"title"`
			Published string `xml:"published"`
			Link      struct {
				Href string `xml:"href,attr"`
			} `xml:"link"`
		} `xml:"entry"`
	}
	if err := xml.Unmarshal(r.Body, &feed); err != nil {
		t.Fatalf("not an Atom feed: %v", err)
	}
	o := pagination.DefaultOffset
	found := false
	for _, e := range feed.Entries {
		if e.ID != "tag:botix.pro,2026:changelog/cursor-pagination" {
			continue
		}
		found = true
		if e.Published != o.DeprecatedAt.Format(time.RFC3339) || !strings.Contains(e.Title, o.SunsetAt.Format(time.DateOnly)) || e.Link.Href != o.DocsURL {
			t.Errorf("offset entry %+v; policy %v / %v / %s", e, o.DeprecatedAt, o.SunsetAt, o.DocsURL)
		}
	}
	if !found {
		t.Fatalf("no offset deprecation entry in %s", r.Body)
	}

	_, key := localtest.Project(t, rt, "")
	list := apitest.Do(t, "GET", rt.URL+"/public/v1/contacts?pagination=offset&limit=1", nil, "Authorization", "Bearer "+key)
	if list.Status != http.StatusOK {
		t.Fatalf("%d %s", list.Status, list.Body)
	}
	if got, want := list.Header.Get("Deprecation"), "@"+strconv.FormatInt(o.DeprecatedAt.Unix(), 10); got != want {
		t.Errorf("Deprecation %q, want %q", got, want)
	}
	if got, want := list.Header.Get("Sunset"), o.SunsetAt.Format(http.TimeFormat); got != want {
		t.Errorf("Sunset %q, want %q", got, want)
	}
	link := list.Header.Get("Link")
	for _, want := range []string{
		"<" + o.DocsURL + `>; rel="deprecation"; type="text/html"`,
		"<" + rt.URL + pagination.ChangelogPath + `>; rel="deprecation"; type="application/atom+xml"`,
	} {
		if !strings.Contains(link, want) {
			t.Errorf("Link %q lacks %s", link, want)
		}
	}
}

// revalidated GETs a public document: 200 with its content type, an ETag
// and a cache lifetime; then 304 without a body for that ETag.
func revalidated(t *testing.T, url, contentType string) apitest.Reply {
	t.Helper()
	r := apitest.Do(t, "GET", url, nil)
	if r.Status != http.StatusOK || r.Header.Get("Content-Type") != contentType || r.Header.Get("Etag") == "" || r.Header.Get("Cache-Control") != "public, max-age=300" {
		t.Fatalf("GET %s: %d %v", url, r.Status, r.Header)
	}
	again := apitest.Do(t, "GET", url, nil, "If-None-Match", r.Header.Get("Etag"))
	if again.Status != http.StatusNotModified || len(again.Body) != 0 {
		t.Fatalf("revalidation of %s: %d, %d bytes", url, again.Status, len(again.Body))
	}
	return r
}
