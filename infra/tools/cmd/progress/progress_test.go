package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/infra/internal/procout"
)

// events is a go test -json transcript: a package that passes (with log
// lines of a passing test), one that fails (one test of two), one without
// test files, and one that does not build.
var events = []event{
	{Action: "start", Package: "m/a"},
	{Action: "run", Package: "m/a", Test: "TestA"},
	{Action: "output", Package: "m/a", Test: "TestA", Output: "=== RUN   TestA\n"},
	{Action: "output", Package: "m/a", Test: "TestA", Output: "    a_test.go:9: a log line of a passing test\n"},
	{Action: "output", Package: "m/a", Test: "TestA", Output: "--- PASS: TestA (0.00s)\n"},
	{Action: "pass", Package: "m/a", Test: "TestA"},
	{Action: "output", Package: "m/a", Output: "PASS\n"},
	{Action: "output", Package: "m/a", Output: "ok  \tm/a\t0.01s\n"},
	{Action: "pass", Package: "m/a"},
	{Action: "start", Package: "m/b"},
	{Action: "output", Package: "m/b", Test: "TestGood", Output: "=== RUN   TestGood\n"},
	{Action: "output", Package: "m/b", Test: "TestGood", Output: "    b_test.go:5: chatter of a passing test\n"},
	{Action: "output", Package: "m/b", Test: "TestGood", Output: "--- PASS: TestGood (0.00s)\n"},
	{Action: "pass", Package: "m/b", Test: "TestGood"},
	{Action: "output", Package: "m/b", Test: "TestBad", Output: "=== RUN   TestBad\n"},
	{Action: "output", Package: "m/b", Test: "TestBad", Output: "    b_test.go:12: got 1, want 2\n"},
	{Action: "output", Package: "m/b", Test: "TestBad", Output: "--- FAIL: TestBad (0.00s)\n"},
	{Action: "fail", Package: "m/b", Test: "TestBad"},
	{Action: "output", Package: "m/b", Output: "FAIL\n"},
	{Action: "output", Package: "m/b", Output: "FAIL\tm/b\t0.02s\n"},
	{Action: "fail", Package: "m/b"},
	{Action: "start", Package: "m/c"},
	{Action: "output", Package: "m/c", Output: "?   \tm/c\t[no test files]\n"},
	{Action: "skip", Package: "m/c"},
	{Action: "build-output", ImportPath: "m/d [m/d.test]", Output: "# m/d [m/d.test]\n"},
	{Action: "build-output", ImportPath: "m/d [m/d.test]", Output: "d/d.go:3:1: syntax error\n"},
	{Action: "build-fail", ImportPath: "m/d [m/d.test]"},
	{Action: "start", Package: "m/d"},
	{Action: "output", Package: "m/d", Output: "FAIL\tm/d [build failed]\n"},
	{Action: "fail", Package: "m/d"},
}

func TestTestRunPrintsWhatGoTestPrintsWithoutJSON(t *testing.T) {
	var in bytes.Buffer
	for _, e := range events {
		b, _ := json.Marshal(e)
		in.Write(append(b, '\n'))
	}
	in.WriteString("not JSON: passed on\n")
	tr := &testRun{running: map[string]*pkgRun{}, now: time.Now}
	var out bytes.Buffer
	tr.read(&in, &out)
	want := "ok  \tm/a\t0.01s\n" +
		"    b_test.go:12: got 1, want 2\n--- FAIL: TestBad (0.00s)\nFAIL\nFAIL\tm/b\t0.02s\n" +
		"?   \tm/c\t[no test files]\n" +
		"# m/d [m/d.test]\nd/d.go:3:1: syntax error\nFAIL\tm/d [build failed]\n" +
		"not JSON: passed on\n"
	if out.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", out.String(), want)
	}
	if tr.done != 4 || tr.failed != 2 || len(tr.running) != 0 {
		t.Errorf("done %d, failed %d, running %d; want 4, 2, 0", tr.done, tr.failed, len(tr.running))
	}
}

func TestTestRunStatusNamesTheRunningPackagesLongestFirst(t *testing.T) {
	now := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	tr := &testRun{running: map[string]*pkgRun{}, now: func() time.Time { return now }, total: 7, module: "m"}
	if _, line := tr.status(); line != "building the test binaries of 7 packages" {
		t.Errorf("before any package: %q", line)
	}
	one := &testRun{running: map[string]*pkgRun{}, now: time.Now, total: 1}
	if _, line := one.status(); line != "building the test binary" {
		t.Errorf("before the one package: %q", line)
	}
	start := func(pkg string) { tr.handle(event{Action: "start", Package: pkg}) }
	start("m/slow")
	now = now.Add(62 * time.Second)
	for _, p := range []string{"m/b", "m/c", "m/d"} {
		start(p)
	}
	start("m/done")
	tr.handle(event{Action: "fail", Package: "m/done"})
	now = now.Add(5 * time.Second)
	key, line := tr.status()
	if want := "1 of 7 packages done, 1 failed; running slow (1m07s), b (5s), c (5s), 1 more"; line != want {
		t.Errorf("status %q, want %q", line, want)
	}
	now = now.Add(20 * time.Second)
	if key2, line2 := tr.status(); key2 != key || line2 == line {
		t.Errorf("20 s later the key changed (%q → %q) or the line did not (%q)", key, key2, line2)
	}
	for _, p := range []string{"m/slow", "m/b", "m/c", "m/d"} {
		tr.handle(event{Action: "pass", Package: p})
	}
	if _, line := tr.status(); line != "5 of 7 packages done, 1 failed; building the next test binaries" {
		t.Errorf("between packages: %q", line)
	}
}

func TestReporterIsQuietFirstThenSpeaksOnNewsOrEvery30s(t *testing.T) {
	start := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	r := &reporter{out: &out, label: "go vet", every: 10 * time.Second, start: start}
	at := func(s float64, key string) {
		r.tick(start.Add(time.Duration(s*float64(time.Second))), key, "status "+key)
	}
	at(5, "a")  // within the first interval: silent
	at(10, "a") // printed
	at(20, "a") // no news
	at(30, "b") // news
	at(40, "b")
	at(50, "b")
	at(59.9, "b") // 30 s without a line, give or take a tick's delay
	at(70, "b")
	at(80, "b")
	want := "go vet: status a, 10s\ngo vet: status b, 30s\ngo vet: status b, 1m00s\n"
	if out.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", out.String(), want)
	}
}

func TestCompilingCountsThePackagesItNeedsAndPassesTheRestOn(t *testing.T) {
	c := &compiling{}
	c.setPackages(map[string]bool{"m/a": true, "m/b [m/b.test]": true, "m/b_test [m/b.test]": true, "fmt": true})
	if _, line := c.status(); line != "checking the build cache for the 4 packages it needs" {
		t.Errorf("before a package: %q", line)
	}
	var out bytes.Buffer
	c.read(strings.NewReader("fmt\nm/a\n# m/b [m/b.test]\nb/b_test.go:4:2: fmt.Printf format %d has arg x of wrong type string\nm/b\nm/b_test\ngo: downloading example.com/x v1.0.0\n"), &out)
	if want := "# m/b [m/b.test]\nb/b_test.go:4:2: fmt.Printf format %d has arg x of wrong type string\ngo: downloading example.com/x v1.0.0\n"; out.String() != want {
		t.Errorf("passed on\n%s\nwant\n%s", out.String(), want)
	}
	if _, line := c.status(); line != "compiled 4 of the 4 packages it needs (cached ones are skipped)" {
		t.Errorf("after: %q", line)
	}
}

func TestSplitGoArgs(t *testing.T) {
	for _, c := range []struct {
		args        string
		flags, pkgs []string
	}{
		{"./...", nil, []string{"./..."}},
		{"-o .cache/botix-local ./infra/run/botix-local", []string{"-o", ".cache/botix-local"}, []string{"./infra/run/botix-local"}},
		{"-count=1 -timeout 20m -v a b", []string{"-count=1", "-timeout", "20m", "-v"}, []string{"a", "b"}},
		{"-tags lambda.norpc -trimpath ./functions/... -args -x", []string{"-tags", "lambda.norpc", "-trimpath"}, []string{"./functions/..."}},
	} {
		flags, pkgs := splitGoArgs(strings.Fields(c.args))
		if !reflect.DeepEqual(flags, c.flags) || !reflect.DeepEqual(pkgs, c.pkgs) {
			t.Errorf("%q: flags %q, packages %q; want %q, %q", c.args, flags, pkgs, c.flags, c.pkgs)
		}
	}
}

func TestAnyOtherCommandIsSaidToBeStillRunningAndKeepsItsExitCode(t *testing.T) {
	var stdout bytes.Buffer
	var stderr procout.Buffer // written by the reporter and the child's copier at once
	code := run([]string{"-every", "100ms", "-label", "sleepy", "--", "sh", "-c", "echo out; sleep 0.35; exit 3"}, &stdout, &stderr)
	if code != 3 {
		t.Errorf("exit code %d, want the command's 3", code)
	}
	if stdout.String() != "out\n" {
		t.Errorf("stdout %q", stdout.String())
	}
	if !strings.HasPrefix(stderr.String(), "sleepy: still running, 0s\n") {
		t.Errorf("stderr %q, want a still-running line", stderr.String())
	}
}

// TestRunReadingGivesTheReaderThePipeAndKeepsTheExitCode: the build and
// test steps read one of the child's outputs (go build -v's stderr, go test
// -json's stdout) through runReading.
func TestRunReadingGivesTheReaderThePipeAndKeepsTheExitCode(t *testing.T) {
	var stderr bytes.Buffer
	cmd := command(context.Background(), []string{"sh", "-c", "echo one; echo two; exit 3"})
	var read []byte
	code := runReading(cmd, cmd.StdoutPipe, func(r io.Reader) { read, _ = io.ReadAll(r) }, &stderr)
	if code != 3 || string(read) != "one\ntwo\n" || stderr.Len() != 0 {
		t.Errorf("code %d, read %q, stderr %q; want 3, the child's stdout, nothing", code, read, stderr.String())
	}
}
