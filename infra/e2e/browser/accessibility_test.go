package browser_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/botix/public-api/infra/run/ddblocal"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/docs"
)

// axePackage is the accessibility engine the test injects into each view,
// fetched once with `npm pack` into the user's cache (as DynamoDB Local
// is) and never committed.
const axePackage = "axe-core@4.10.3"

// axeFailing are the impacts of a violation that fail the test; the others
// are logged.
var axeFailing = []string{"serious", "critical"}

// axeSource returns axe.min.js of axePackage, fetching it when missing.
func axeSource(t *testing.T) string {
	t.Helper()
	cache, err := ddblocal.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, strings.ReplaceAll(axePackage, "@", "-"))
	file := filepath.Join(dir, "axe.min.js")
	if b, err := os.ReadFile(file); err == nil {
		return string(b)
	}
	fail := func(why string) {
		t.Fatalf("the accessibility test needs %s (npm pack %s, into %s): %s; install Node.js and npm", axePackage, axePackage, dir, why)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		fail("npm is not on PATH")
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		fail(err.Error())
	}
	tmp, err := os.MkdirTemp(cache, "fetch-axe-")
	if err != nil {
		fail(err.Error())
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "pack", axePackage, "--pack-destination", tmp, "--silent")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		fail(fmt.Sprintf("npm pack failed: %v: %s", err, lines[len(lines)-1]))
	}
	tgz, _ := filepath.Glob(filepath.Join(tmp, "*.tgz"))
	if len(tgz) != 1 {
		fail("npm pack produced no tarball")
	}
	src, err := tarFile(tgz[0], "package/axe.min.js")
	if err != nil {
		fail(err.Error())
	}
	// Written beside, then renamed: a parallel run never reads half a file.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err.Error())
	}
	part := filepath.Join(tmp, "axe.min.js")
	if err := os.WriteFile(part, src, 0o644); err != nil {
		fail(err.Error())
	}
	if err := os.Rename(part, file); err != nil {
		fail(err.Error())
	}
	return string(src)
}

// tarFile reads one file of a gzipped tarball.
func tarFile(tgz, name string) ([]byte, error) {
	f, err := os.Open(tgz)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s has no %s", filepath.Base(tgz), name)
		}
		if err != nil {
			return nil, err
		}
		if h.Name == name && h.Typeflag == tar.TypeReg {
			return io.ReadAll(tr)
		}
	}
}

// dashboardView is one view of the dashboard: its path and the condition
// that says its data is on the page.
type dashboardView struct {
	name, path, loaded string
}

// seeded gives the owner what every view shows filled: a healthy endpoint
// with a delivered delivery, a failing one with a dead delivery whose
// attempts carry a response body. It returns the views, the delivery
// detail being the dead delivery's.
func seeded(o *owner) []dashboardView {
	o.t.Helper()
	ok := o.endpoint(apitest.NewReceiver(o.t, nil).URL, map[string]any{"description": "orders service"})
	failing := o.endpoint(apitest.NewReceiver(o.t, answer(http.StatusServiceUnavailable, strings.Repeat("upstream busy, try again later\n", 40))).URL, nil)
	o.contact("+79990002001", "Ivan")
	o.waitDelivery(ok.ID, func(d delivery) bool { return d.Status == "delivered" })
	dead := o.waitDelivery(failing.ID, func(d delivery) bool { return d.Status == "dead" })
	rows := `document.querySelectorAll('#view tbody tr').length`
	return []dashboardView{
		{"overview", "/", rows + ` >= 2 && document.querySelector('figure.chart svg') !== null`},
		{"deliveries", "/deliveries", rows + ` === 2`},
		{"delivery detail", "/deliveries/" + dead.ID, `document.querySelectorAll('#attempts > li').length >= 1`},
		{"dead letter", "/dead-letter", rows + ` === 1 && document.querySelector('#recover') !== null`},
		{"endpoints", "/endpoints", `document.querySelectorAll('.endpoint').length === 2`},
	}
}

type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target  []any  `json:"target"`
		Summary string `json:"failureSummary"`
	} `json:"nodes"`
}

// axe runs axe-core on the tab's page as it is and returns its
// violations (every impact).
func (o *owner) axe(src string) []axeViolation {
	o.t.Helper()
	ctx, cancel := context.WithTimeout(o.tab, 60*time.Second)
	defer cancel()
	// Evaluated over the DevTools protocol, which the page's CSP does not
	// govern: the page itself loads no script but its own.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](src+"\n;true")); err != nil {
		o.t.Fatalf("inject axe-core: %v", err)
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ['violations']}).then(r => JSON.stringify(r.violations))`, chromedp.EvalAwaitPromise))
	if err != nil {
		o.t.Fatalf("axe.run: %v", err)
	}
	var vs []axeViolation
	if err := json.Unmarshal([]byte(raw), &vs); err != nil {
		o.t.Fatalf("axe's answer: %v", err)
	}
	return vs
}

// TestDashboardAccessibility: axe-core finds no serious or critical
// violation on any view, each with its data loaded (and every <details>
// open, so that what it hides is judged too), nor on the login form.
func TestDashboardAccessibility(t *testing.T) {
	src := axeSource(t)
	t.Parallel() // its own runtime and browser: nothing shared with the other tests
	sys := start(t)
	o := sys.owner(t)
	check := func(o *owner, name string) {
		t.Helper()
		for _, v := range o.axe(src) {
			if !slices.Contains(axeFailing, v.Impact) {
				t.Logf("%s: %s (%s): %s, on %d nodes", name, v.ID, v.Impact, v.Help, len(v.Nodes))
				continue
			}
			for _, n := range v.Nodes {
				t.Errorf("%s: %s (%s) at %v: %s", name, v.ID, v.Impact, n.Target, v.Help)
			}
		}
	}
	views := seeded(o)
	for _, v := range views {
		o.open(v.path)
		o.waitFor(v.loaded)
		o.eval(`document.querySelectorAll('#view details').forEach(d => d.open = true); true`)
		check(o, v.name)
	}
	login := sys.owner(t)
	login.do(chromedp.Navigate(sys.rt.URL + "/dashboard/"))
	login.waitFor(`document.querySelector('#api-key') !== null`)
	check(login, "login")
}

// TestDashboardAuditsAsDocumented: the guide states the tools' versions
// and the bars the audits hold the views to, as the tests have them.
func TestDashboardAuditsAsDocumented(t *testing.T) {
	guide := docs.Read(t, docs.Contributors)
	b := lighthouseBars
	for _, want := range []string{
		strings.ReplaceAll(axePackage, "@", " "),
		"botix-public-api/" + strings.ReplaceAll(axePackage, "@", "-") + "/",
		"impact `" + strings.Join(axeFailing, "` or `") + "`",
		"Lighthouse " + strings.TrimPrefix(lighthousePackage, "lighthouse@"),
		fmt.Sprintf("accessibility %d, best practices %d, performance at least %d, with a cumulative layout shift below %g", b.Accessibility, b.BestPractices, b.Performance, b.LayoutShift),
	} {
		if !strings.Contains(guide, want) {
			t.Errorf("%s does not state %q", docs.Contributors, want)
		}
	}
}
