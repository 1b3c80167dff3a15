package api_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/localtest"
)

// TestDashboardFiles: the dashboard's routes serve the page and its files
// through API Gateway's routing, with the security headers on every
// answer — the 404 of an unknown file included — and validators that make
// a second load cost no bytes.
func TestDashboardFiles(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	page := apitest.Do(t, "GET", rt.URL+"/dashboard", nil)
	asset := regexp.MustCompile(`/dashboard/app\.js\?v=[0-9a-f]{12}`).FindString(string(page.Body))
	if asset == "" {
		t.Fatalf("the page loads no hashed app.js: %s", page.Body)
	}
	// app.js is an ES module; the modules it imports are named by hash too.
	module := regexp.MustCompile(`'\./([a-z-]+\.js\?v=[0-9a-f]{12})'`).FindStringSubmatch(string(apitest.Do(t, "GET", rt.URL+asset, nil).Body))
	if module == nil {
		t.Fatal("app.js imports no module by its hash")
	}
	cases := []struct {
		name, path string
		status     int
		body       string
	}{
		{"the page without a slash", "/dashboard", 200, `<main id="view"`},
		{"the page with a slash", "/dashboard/", 200, `<main id="view"`},
		{"a view's link", "/dashboard/deliveries?status=dead", 200, `<main id="view"`},
		{"the script by its hash", asset, 200, "import "},
		{"a module it imports", "/dashboard/" + module[1], 200, "export "},
		{"an unknown file", "/dashboard/nothing.js", 404, `"code":"NOT_FOUND"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := apitest.Do(t, "GET", rt.URL+c.path, nil)
			if r.Status != c.status || !strings.Contains(string(r.Body), c.body) {
				t.Fatalf("%d %.200s", r.Status, r.Body)
			}
			if ct := r.Header.Get("Content-Type"); strings.Contains(c.path, ".js?") && ct != "text/javascript; charset=utf-8" {
				t.Errorf("Content-Type %q: a browser runs a module only with a JavaScript type", ct)
			}
			csp := r.Header.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
				}
			}
			if strings.Contains(csp, "unsafe-") {
				t.Errorf("Content-Security-Policy %q allows unsafe sources", csp)
			}
			if r.Header.Get("Referrer-Policy") != "no-referrer" || r.Header.Get("X-Content-Type-Options") != "nosniff" || r.Header.Get("X-Request-Id") == "" {
				t.Errorf("headers %v", r.Header)
			}
			if etag := r.Header.Get("Etag"); c.status == 200 {
				if again := apitest.Do(t, "GET", rt.URL+c.path, nil, "If-None-Match", etag); again.Status != http.StatusNotModified || len(again.Body) != 0 {
					t.Errorf("revalidation with %s: %d, %d bytes", etag, again.Status, len(again.Body))
				}
			}
		})
	}
}
