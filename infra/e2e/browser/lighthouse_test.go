package browser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// lighthousePackage is the auditor the test runs with npx, which fetches
// it once into the user's npm cache (never committed).
const lighthousePackage = "lighthouse@12.8.2"

// lighthouseBars are what every view must score (Lighthouse's categories
// as 0–100, desktop preset) and the layout shift it may have at most.
var lighthouseBars = struct {
	Accessibility, BestPractices, Performance int
	LayoutShift                               float64
}{Accessibility: 100, BestPractices: 100, Performance: 90, LayoutShift: 0.1}

type lighthouseReport struct {
	Categories map[string]struct {
		Score *float64 `json:"score"`
		Refs  []struct {
			ID string `json:"id"`
		} `json:"auditRefs"`
	} `json:"categories"`
	Audits map[string]struct {
		Title        string   `json:"title"`
		Score        *float64 `json:"score"`
		NumericValue float64  `json:"numericValue"`
		ScoreMode    string   `json:"scoreDisplayMode"`
	} `json:"audits"`
}

func (r lighthouseReport) score(category string) int {
	c, ok := r.Categories[category]
	if !ok || c.Score == nil {
		return -1
	}
	return int(*c.Score*100 + 0.5)
}

// failing names the category's audits that scored below 1.
func (r lighthouseReport) failing(category string) []string {
	var out []string
	for _, ref := range r.Categories[category].Refs {
		a := r.Audits[ref.ID]
		if a.Score != nil && *a.Score < 1 && a.ScoreMode != "informative" && a.ScoreMode != "manual" && a.ScoreMode != "notApplicable" {
			out = append(out, fmt.Sprintf("%s (%.2f: %s)", ref.ID, *a.Score, a.Title))
		}
	}
	sort.Strings(out)
	return out
}

// lighthouse audits one URL on the machine's Chromium, headless, with the
// desktop preset.
func lighthouse(t *testing.T, url, out string) lighthouseReport {
	t.Helper()
	if _, err := exec.LookPath("npx"); err != nil {
		t.Fatalf("the Lighthouse test runs %s with npx, which is not on PATH: install Node.js and npm", lighthousePackage)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npx", "--yes", lighthousePackage, url,
		"--preset=desktop", "--only-categories=accessibility,best-practices,performance",
		"--chrome-flags=--headless=new --no-sandbox --disable-dev-shm-usage",
		"--output=json", "--output-path="+out, "--quiet")
	cmd.Env = append(os.Environ(), "CHROME_PATH="+chromium(t))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npx %s failed (it needs npm to fetch it once): %v\n%s", lighthousePackage, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r lighthouseReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	return r
}

// TestDashboardLighthouse: every view, with data, and the login form
// score accessibility and best practices 100 and performance at least 90
// on the desktop preset, with a cumulative layout shift below 0.1. The
// views behind the login open with the key in the URL fragment, as a
// link from the API key holder does. It prints each view's figures as a
// Markdown table. It runs only when BOTIX_LIGHTHOUSE is set: make
// lighthouse (part of make bench), as it takes minutes.
func TestDashboardLighthouse(t *testing.T) {
	if os.Getenv("BOTIX_LIGHTHOUSE") == "" {
		t.Skip("run by make lighthouse (BOTIX_LIGHTHOUSE=1)")
	}
	sys := start(t)
	o := sys.owner(t)
	views := seeded(o)
	type audited struct {
		name, url string
	}
	var runs []audited
	for _, v := range views {
		runs = append(runs, audited{v.name, sys.rt.URL + "/dashboard" + v.path + "#key=" + o.key})
	}
	runs = append(runs, audited{"login", sys.rt.URL + "/dashboard/"})
	rows := []string{"| view | accessibility | best practices | performance | layout shift | time |", "| --- | --: | --: | --: | --: | --: |"}
	for _, run := range runs {
		began := time.Now()
		r := lighthouse(t, run.url, filepath.Join(sys.out, "lighthouse-"+strings.ReplaceAll(run.name, " ", "-")+".json"))
		took := time.Since(began)
		a11y, bp, perf := r.score("accessibility"), r.score("best-practices"), r.score("performance")
		cls := r.Audits["cumulative-layout-shift"].NumericValue
		rows = append(rows, fmt.Sprintf("| %s | %d | %d | %d | %.3f | %.0f s |", run.name, a11y, bp, perf, cls, took.Seconds()))
		if a11y < lighthouseBars.Accessibility {
			t.Errorf("%s: accessibility %d: %s", run.name, a11y, strings.Join(r.failing("accessibility"), "; "))
		}
		if bp < lighthouseBars.BestPractices {
			t.Errorf("%s: best practices %d: %s", run.name, bp, strings.Join(r.failing("best-practices"), "; "))
		}
		if perf < lighthouseBars.Performance {
			t.Errorf("%s: performance %d: %s", run.name, perf, strings.Join(r.failing("performance"), "; "))
		}
		if cls >= lighthouseBars.LayoutShift {
			t.Errorf("%s: cumulative layout shift %.3f", run.name, cls)
		}
	}
	fmt.Println(strings.Join(rows, "\n"))
}
