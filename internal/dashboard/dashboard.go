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
	"maps"
	"mime"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/webhook"
)

// Prefix is the path the dashboard is served under.
const Prefix = "/dashboard/"

//go:embed static
var static embed.FS

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

// Vocabulary is the API's words the page shows, filters by and acts on.
// New puts each into the page as a <meta name="botix-..."> (a list as
// words separated by spaces), where vocabulary.js reads them: the scripts
// hold no copy of the API's lists, so a value the API adds is one the
// filters offer, and a renamed one cannot be left behind in a script.
type Vocabulary struct {
	// EventTypes are the event types an endpoint may subscribe to.
	EventTypes []string
	// HealthEventTypes are the event types that tell an endpoint's health.
	HealthEventTypes []string
	// DeliveryStatuses are every status of a delivery (the list filter's).
	DeliveryStatuses []string
	// AttemptOutcomes are what the stats count attempts as, in the order
	// the charts stack them; each is also the stats' field of its count.
	AttemptOutcomes []string
	// StatusDelivered is the status of a delivery a receiver took (the
	// success rate's numerator); StatusDead the dead-letter view's.
	StatusDelivered, StatusDead string
	// RecoveryRunning is a recovery's status while it continues by itself.
	RecoveryRunning string
	// HealthStates are an endpoint's health states, worst first: the
	// order the page lists endpoints in.
	HealthStates []string
	// RetentionDays is how many days deliveries and their attempts are
	// kept (what a search can still find).
	RetentionDays string
	// RecoveryStallSeconds is how long past its next step's time a running
	// recovery counts as stalled, when a second Recover resumes it.
	RecoveryStallSeconds string
}

// APIVocabulary is the API's vocabulary: the domain's event types and the
// webhook pillar's statuses, by name.
func APIVocabulary() Vocabulary {
	words := func(ss []webhook.Status) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = string(s)
		}
		return out
	}
	return Vocabulary{
		EventTypes:           domain.EventTypes,
		HealthEventTypes:     domain.HealthEventTypes,
		DeliveryStatuses:     words(webhook.Statuses),
		AttemptOutcomes:      words(webhook.Outcomes),
		StatusDelivered:      string(webhook.StatusDelivered),
		StatusDead:           string(webhook.StatusDead),
		RecoveryRunning:      string(webhook.RecoveryRunning),
		HealthStates:         webhook.HealthStates,
		RetentionDays:        strconv.Itoa(int(webhook.DeliveryRetention / (24 * time.Hour))),
		RecoveryStallSeconds: strconv.Itoa(int(webhook.RecoveryStall / time.Second)),
	}
}

// placeholders are the page's {{name}} for each entry of v, with the
// words it stands for.
func (v Vocabulary) placeholders() map[string][]string {
	return map[string][]string{
		"event_types":            v.EventTypes,
		"health_event_types":     v.HealthEventTypes,
		"delivery_statuses":      v.DeliveryStatuses,
		"attempt_outcomes":       v.AttemptOutcomes,
		"status_delivered":       {v.StatusDelivered},
		"status_dead":            {v.StatusDead},
		"recovery_running":       {v.RecoveryRunning},
		"health_states":          v.HealthStates,
		"retention_days":         {v.RetentionDays},
		"recovery_stall_seconds": {v.RecoveryStallSeconds},
	}
}

// New reads the embedded files. The page gets the API's vocabulary (so its
// filters and forms offer exactly what the API accepts) and the
// content-hashed URL of every asset, which makes them cacheable for good;
// the scripts' imports of one another are given those URLs too (see
// versionImports).
func New(v Vocabulary) (*Site, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := static.ReadFile(p)
		if err != nil {
			return err
		}
		if name := strings.TrimPrefix(p, "static/"); name != "index.html" {
			files[name] = b
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if files, err = versionImports(files); err != nil {
		return nil, err
	}
	s := &Site{assets: map[string]asset{}}
	for name, b := range files {
		s.assets[name] = newAsset(b, name)
	}
	page, err := static.ReadFile("static/index.html")
	if err != nil {
		return nil, err
	}
	text, err := s.fill(string(page), v)
	if err != nil {
		return nil, err
	}
	s.index = newAsset([]byte(text), "index.html")
	return s, nil
}

// fill replaces the page's placeholders: {{event_types}} and the other
// words of v, {{module_preloads}}, and {{file}} with the file's hashed URL.
func (s *Site) fill(text string, v Vocabulary) (string, error) {
	for name, words := range v.placeholders() {
		if len(words) == 0 || slices.ContainsFunc(words, func(w string) bool { return w == "" || strings.ContainsFunc(w, unicode.IsSpace) }) {
			return "", fmt.Errorf("dashboard: the vocabulary's %s is %q: it needs words without blanks", name, words)
		}
		if strings.Count(text, "{{"+name+"}}") != 1 {
			return "", fmt.Errorf("dashboard: index.html must hold {{%s}} once", name)
		}
		text = strings.ReplaceAll(text, "{{"+name+"}}", html.EscapeString(strings.Join(words, " ")))
	}
	// The browser learns of a module's imports only once it has the
	// module: the page names every module at once, so that the first load
	// fetches them in one round rather than one round per level of imports.
	var preloads []string
	for _, name := range slices.Sorted(maps.Keys(s.assets)) {
		if path.Ext(name) == ".js" && name != "app.js" {
			preloads = append(preloads, `<link rel="modulepreload" href="`+Prefix+name+"?v="+s.assets[name].version+`">`)
		}
	}
	text = strings.Replace(text, "{{module_preloads}}", strings.Join(preloads, "\n"), 1)
	for name, a := range s.assets {
		text = strings.ReplaceAll(text, "{{"+name+"}}", Prefix+name+"?v="+a.version)
	}
	if i := strings.Index(text, "{{"); i >= 0 {
		return "", fmt.Errorf("dashboard: index.html names an unknown asset near %q", text[i:min(len(text), i+40)])
	}
	return text, nil
}

// importSpec is a static import or re-export of a script by another:
// `from './name.js'` or a bare `import './name.js'`. The scripts name one
// another only this way (relative, in single quotes), which TestModules
// holds them to.
var importSpec = regexp.MustCompile(`(\bfrom\s*|\bimport\s*)'\./([a-z0-9-]+\.js)'`)

// versionImports gives every import of one script by another its content
// hash, './api.js' becoming './api.js?v=...', hashed after its own imports
// were: a module changes URL whenever anything it runs changes, so the
// browser may cache every module for good, and each module has one URL
// (a module imported under two URLs would run twice, with two states).
// Imports must not form a cycle.
func versionImports(files map[string][]byte) (map[string][]byte, error) {
	out := map[string][]byte{}
	for name, b := range files {
		if path.Ext(name) != ".js" {
			out[name] = b
		}
	}
	visiting := map[string]bool{}
	var visit func(name string) error
	visit = func(name string) error {
		if _, done := out[name]; done {
			return nil
		}
		src, ok := files[name]
		if !ok {
			return fmt.Errorf("dashboard: a script imports %s, which is not among the files", name)
		}
		if visiting[name] {
			return fmt.Errorf("dashboard: %s is part of an import cycle", name)
		}
		visiting[name] = true
		var failed error
		b := importSpec.ReplaceAllFunc(src, func(m []byte) []byte {
			sub := importSpec.FindSubmatch(m)
			dep := string(sub[2])
			if err := visit(dep); err != nil {
				failed = err
				return m
			}
			return []byte(string(sub[1]) + "'./" + dep + "?v=" + httpapi.ContentVersion(out[dep]) + "'")
		})
		if failed != nil {
			return failed
		}
		out[name] = b
		return nil
	}
	for name := range files {
		if err := visit(name); err != nil {
			return nil, err
		}
	}
	return out, nil
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
