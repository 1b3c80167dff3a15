package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"
)

// testStep runs go test with -json, prints what go test prints without it,
// and counts the packages done against the packages it tests.
func testStep(ctx context.Context, args []string) *step {
	t := &testRun{running: map[string]*pkgRun{}, now: time.Now}
	s := &step{label: "go test", status: t.status}
	s.run = func(ctx context.Context, stdout, stderr io.Writer) int {
		t.listPackages(ctx, args, stderr)
		cmd := command(ctx, withFlag(args, "-json"))
		cmd.Stderr = stderr
		return runReading(cmd, cmd.StdoutPipe, func(r io.Reader) { t.read(r, stdout) }, stderr)
	}
	return s
}

// event is a line of go test -json (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string // of build-output and build-fail
	Test       string
	Output     string
}

// pkgRun is a package whose tests run: its output, kept until it ends.
type pkgRun struct {
	started time.Time
	lines   []testLine
	failed  map[string]bool // the tests that failed
}

type testLine struct{ test, text string }

// testRun follows the packages of one go test run.
type testRun struct {
	now     func() time.Time
	mu      sync.Mutex
	total   int    // packages to test; 0 if go list failed
	module  string // their module's path, trimmed in the status
	done    int
	failed  int
	running map[string]*pkgRun
}

// listPackages counts the packages args test.
func (t *testRun) listPackages(ctx context.Context, args []string, stderr io.Writer) {
	_, pkgs := splitGoArgs(args[2:])
	ls := exec.CommandContext(ctx, args[0], append([]string{"list", "-e", "-f", "{{with .Module}}{{.Path}}{{end}}"}, pkgs...)...)
	ls.Stderr = stderr
	out, err := ls.Output()
	if err != nil {
		return
	}
	mods := strings.Split(strings.TrimSpace(string(out)), "\n")
	t.mu.Lock()
	t.total, t.module = len(mods), mods[0]
	t.mu.Unlock()
}

// read renders the events of r on w as go test without -json would have
// printed them: the ok (or ?) line of a package that passes, all the
// output of a failing package but its passing tests', and build errors.
func (t *testRun) read(r io.Reader, w io.Writer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(w, sc.Text())
			continue
		}
		if out := t.handle(e); out != "" {
			fmt.Fprint(w, out)
		}
	}
}

// handle takes one event and returns what to print now.
func (t *testRun) handle(e event) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch e.Action {
	case "build-output":
		return e.Output
	case "build-fail":
		return ""
	}
	p := t.running[e.Package]
	if p == nil {
		p = &pkgRun{started: t.now(), failed: map[string]bool{}}
		t.running[e.Package] = p
	}
	switch {
	case e.Action == "output":
		p.lines = append(p.lines, testLine{e.Test, e.Output})
	case e.Test != "":
		if e.Action == "fail" {
			p.failed[e.Test] = true
		}
	case e.Action == "pass" || e.Action == "skip" || e.Action == "fail":
		delete(t.running, e.Package)
		t.done++
		if e.Action == "fail" {
			t.failed++
		}
		return p.render(e.Action == "fail")
	}
	return ""
}

// render is a package's output as go test prints it in package list mode.
func (p *pkgRun) render(failed bool) string {
	var b strings.Builder
	for _, l := range p.lines {
		switch {
		case strings.HasPrefix(l.text, "=== "): // -json runs the tests verbosely
		case !failed:
			if l.test == "" && (strings.HasPrefix(l.text, "ok ") || strings.HasPrefix(l.text, "?   ")) {
				b.WriteString(l.text)
			}
		case l.test == "" || p.failed[l.test]:
			b.WriteString(l.text)
		}
	}
	return b.String()
}

// status says how far the run is; key leaves out the running times, so
// that a line comes when a package starts or ends, else every 30 s.
func (t *testRun) status() (key, line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	of := ""
	if t.total > 0 {
		of = fmt.Sprintf(" of %d", t.total)
	}
	if t.done == 0 && len(t.running) == 0 {
		s := "building the test binaries"
		if t.total == 1 {
			s = "building the test binary"
		} else if t.total > 1 {
			s += fmt.Sprintf(" of %d packages", t.total)
		}
		return s, s
	}
	s := fmt.Sprintf("%d%s packages done", t.done, of)
	if t.total == 1 {
		s = fmt.Sprintf("%d of 1 package done", t.done)
	}
	if t.failed > 0 {
		s += fmt.Sprintf(", %d failed", t.failed)
	}
	if len(t.running) == 0 {
		s += "; building the next test binaries"
		return s, s
	}
	names := make([]string, 0, len(t.running))
	for n := range t.running {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := t.running[names[i]].started, t.running[names[j]].started
		return a.Before(b) || a.Equal(b) && names[i] < names[j]
	})
	now := t.now()
	var run []string
	for _, n := range names {
		short := strings.TrimPrefix(n, t.module+"/")
		run = append(run, fmt.Sprintf("%s (%s)", short, duration(now.Sub(t.running[n].started))))
	}
	if len(run) > 3 {
		run = append(run[:3], fmt.Sprintf("%d more", len(run)-3))
	}
	return s + "; running " + strings.Join(names, ","), s + "; running " + strings.Join(run, ", ")
}
