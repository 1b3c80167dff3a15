package dashboard

import (
	"context"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/httpapi"
)

func get(t *testing.T, s *Site, proxy, rawQuery string, header http.Header) (*httpapi.Response, error) {
	t.Helper()
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		t.Fatal(err)
	}
	if header == nil {
		header = http.Header{}
	}
	return s.Serve(context.Background(), &httpapi.Request{PathParams: map[string]string{"proxy": proxy}, Query: q, Header: header})
}

func TestServe(t *testing.T) {
	s, err := New(APIVocabulary())
	if err != nil {
		t.Fatal(err)
	}
	js := s.assets["app.js"]
	cases := []struct {
		name, proxy, query string
		header             http.Header
		status             int
		contentType, cache string
		code               apierr.Code
	}{
		{name: "the page at /dashboard", proxy: "", status: 200, contentType: "text/html; charset=utf-8", cache: "no-cache"},
		{name: "a view's path is the page", proxy: "deliveries/dlv_01J0000000000000000000000", query: "status=dead", status: 200, contentType: "text/html; charset=utf-8", cache: "no-cache"},
		{name: "an asset with its content hash is cached for good", proxy: "app.js", query: "v=" + js.version, status: 200, contentType: "text/javascript; charset=utf-8", cache: "public, max-age=31536000, immutable"},
		{name: "an asset with another hash is revalidated", proxy: "app.js", query: "v=000000000000", status: 200, contentType: "text/javascript; charset=utf-8", cache: "no-cache"},
		{name: "a matching ETag is 304 without a body", proxy: "app.js", header: http.Header{"If-None-Match": {`W/"x", "` + js.version + `"`}}, status: 304, cache: "no-cache"},
		{name: "a stale ETag gets the file", proxy: "app.css", header: http.Header{"If-None-Match": {`"old"`}}, status: 200, contentType: "text/css; charset=utf-8", cache: "no-cache"},
		{name: "an unknown file is 404 NOT_FOUND", proxy: "secrets.json", code: apierr.NotFound},
		{name: "no path escapes the embedded files", proxy: "../dashboard.go", code: apierr.NotFound},
		{name: "index.html is served only as the page", proxy: "index.html", status: 200, contentType: "text/html; charset=utf-8", cache: "no-cache"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := get(t, s, c.proxy, c.query, c.header)
			if c.code != "" {
				if !apierr.Is(err, c.code) {
					t.Fatalf("got %v, want %s", err, c.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != c.status || r.Header.Get("Content-Type") != c.contentType || r.Header.Get("Cache-Control") != c.cache || r.Header.Get("Etag") == "" {
				t.Fatalf("%d %v", r.Status, r.Header)
			}
			if (r.Status == 304) != (len(r.Body) == 0) {
				t.Fatalf("status %d with %d bytes", r.Status, len(r.Body))
			}
		})
	}
}

// TestPage: the page names its assets by content hash, carries the event
// types, and holds nothing the CSP would have to allow: no inline script or
// style, no inline event handler.
func TestPage(t *testing.T) {
	s, err := New(APIVocabulary())
	if err != nil {
		t.Fatal(err)
	}
	page := string(s.index.body)
	for _, name := range []string{"app.js", "app.css", "favicon.svg"} {
		if want := Prefix + name + "?v=" + s.assets[name].version; !strings.Contains(page, want) {
			t.Errorf("the page does not load %s", want)
		}
	}
	for _, tag := range regexp.MustCompile(`<script[^>]*>[^<]*`).FindAllString(page, -1) {
		if !strings.Contains(tag, " src=") || !strings.HasSuffix(tag, ">") {
			t.Errorf("the page has an inline script: %q", tag)
		}
	}
	for what, re := range map[string]*regexp.Regexp{
		"an inline style":         regexp.MustCompile(`<style|\sstyle=`),
		"an inline event handler": regexp.MustCompile(`\son[a-z]+=`),
	} {
		if loc := re.FindStringIndex(page); loc != nil {
			t.Errorf("the page has %s: %q", what, page[loc[0]:loc[1]])
		}
	}
}

// TestWeight: everything the browser downloads for the dashboard stays
// under 150 KB uncompressed.
func TestWeight(t *testing.T) {
	total := 0
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := static.ReadFile(p)
		total += len(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("dashboard files: %d bytes", total)
	if total >= 150_000 {
		t.Fatalf("the dashboard weighs %d bytes; the budget is 150 KB", total)
	}
}

// scripts are the dashboard's scripts as they are in the tree, by name.
func scripts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := static.ReadDir("static")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if path.Ext(e.Name()) == ".js" {
			b, err := static.ReadFile("static/" + e.Name())
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = string(b)
		}
	}
	if len(out) < 2 {
		t.Fatalf("scripts: %v", out)
	}
	return out
}

// TestScriptsUseNoHTMLSinks: the app puts text on the page only as text;
// none of the DOM's HTML parsers or eval is called anywhere.
func TestScriptsUseNoHTMLSinks(t *testing.T) {
	sinks := regexp.MustCompile(`\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setTimeout\(['"]`)
	for name, src := range scripts(t) {
		if m := sinks.FindAllString(src, -1); len(m) > 0 {
			t.Errorf("%s uses %v", name, m)
		}
	}
}
