// Package dashboard serves the webhook dashboard: a static web app embedded
// in the binary that is a client of the public API and nothing else. It
// reads and fixes deliveries with the project's API key like any
// integrator; the server side only serves files, with a strict
// Content-Security-Policy and validators for caching.
package dashboard

import (
	"context"
	"embed"
	"fmt"
	"html"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/httpapi"
)

// Prefix is the path the dashboard is served under.
const Prefix = "/dashboard/"

//go:embed static
var static embed.FS

// SecurityHeaders go on every response of the dashboard function, errors
// included: scripts and styles only from the dashboard's own files (no
// inline script, no eval), requests only to the same origin (the API),
// never framed, no referrer leaving the page.
var SecurityHeaders = http.Header{
	"Content-Security-Policy": {"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
		"object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"},
	"Referrer-Policy":        {"no-referrer"},
	"X-Content-Type-Options": {"nosniff"},
	"X-Frame-Options":        {"DENY"},
}

// asset is one file as served: its bytes, media type and content version
// (its URL's ?v= and, quoted, its ETag).
type asset struct {
	body        []byte
	contentType string
	version     string
}

// Site is the dashboard's files, read once at init.
type Site struct {
	assets map[string]asset
	index  asset
}

// New reads the embedded files. The page gets the event types the API
// accepts (so its filters and forms offer exactly those) and the
// content-hashed URL of every asset, which makes them cacheable for good.
func New(eventTypes []string) (*Site, error) {
	s := &Site{assets: map[string]asset{}}
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := static.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "static/")
		if name != "index.html" {
			s.assets[name] = newAsset(b, name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	page, err := static.ReadFile("static/index.html")
	if err != nil {
		return nil, err
	}
	text := strings.ReplaceAll(string(page), "{{event_types}}", html.EscapeString(strings.Join(eventTypes, " ")))
	for name, a := range s.assets {
		text = strings.ReplaceAll(text, "{{"+name+"}}", Prefix+name+"?v="+a.version)
	}
	if i := strings.Index(text, "{{"); i >= 0 {
		return nil, fmt.Errorf("dashboard: index.html names an unknown asset near %q", text[i:min(len(text), i+40)])
	}
	s.index = newAsset([]byte(text), "index.html")
	return s, nil
}

func newAsset(b []byte, name string) asset {
	ct := mime.TypeByExtension(path.Ext(name))
	if strings.HasPrefix(ct, "text/") && !strings.Contains(ct, "charset") {
		ct += "; charset=utf-8"
	}
	return asset{body: b, contentType: ct, version: httpapi.ContentVersion(b)}
}

// Serve is GET /dashboard and GET /dashboard/{proxy+}. A path with a file
// extension is an asset (404 NOT_FOUND when there is none); any other path
// is a view of the app, which renders it in the browser. Assets requested
// with their content hash (?v=) may be cached for a year; the page itself
// is revalidated every time (ETag), so a deploy is seen at once.
func (s *Site) Serve(_ context.Context, r *httpapi.Request) (*httpapi.Response, error) {
	name := r.PathParams["proxy"]
	a, cache := s.index, "no-cache"
	if path.Ext(name) != "" && name != "index.html" {
		var ok bool
		if a, ok = s.assets[name]; !ok {
			return nil, apierr.New(apierr.NotFound, "the dashboard has no file %q", name)
		}
		if r.Query.Get("v") == a.version {
			cache = "public, max-age=31536000, immutable"
		}
	}
	return httpapi.Revalidated(r, a.contentType, a.body, `"`+a.version+`"`, cache), nil
}
