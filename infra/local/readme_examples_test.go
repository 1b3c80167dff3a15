package local_test

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botix/public-api/infra/local"
	"github.com/botix/public-api/infra/localtest"
	"github.com/botix/public-api/infra/template"
)

// readmeBlock is a shell example of the README and what it must do.
type readmeBlock struct {
	line   int
	note   string
	script string
}

var (
	readmeBlockRe = regexp.MustCompile("(?s)(?:<!-- readme-test: ([^>]*?) -->\\n)?```sh\\n(.*?)```")
	keyLineRe     = regexp.MustCompile(`(?m)^KEY=bx_live_\.\.\..*\n`)
)

func readmeBlocks(t *testing.T) []readmeBlock {
	t.Helper()
	root, _ := template.Root()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []readmeBlock
	for _, m := range readmeBlockRe.FindAllStringSubmatchIndex(string(b), -1) {
		script := string(b[m[4]:m[5]])
		if !strings.Contains(script, "curl") || !strings.Contains(script, "127.0.0.1:8080") {
			continue // not an example against make run
		}
		note := ""
		if m[2] >= 0 {
			note = string(b[m[2]:m[3]])
		}
		out = append(out, readmeBlock{line: strings.Count(string(b[:m[0]]), "\n") + 1, note: note, script: script})
	}
	return out
}

// TestReadmeExamples runs the README's curl examples verbatim, in order,
// against runtimes configured as make run configures its own (only the
// port differs, and KEY holds the seeded key), and checks the HTTP statuses
// each block produces against its <!-- readme-test: expect ... --> note.
func TestReadmeExamples(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("the README examples need curl")
	}
	var mu sync.Mutex
	var statuses []string
	record := func(_ string, status int) {
		mu.Lock()
		statuses = append(statuses, strconv.Itoa(status))
		mu.Unlock()
	}
	runtimes := map[string]*local.Runtime{}
	runtimeFor := func(env string) *local.Runtime {
		if rt, ok := runtimes[env]; ok {
			return rt
		}
		vars := map[string]string{}
		if k, v, ok := strings.Cut(env, "="); ok {
			vars[k] = v
		}
		cfg, err := local.MakeRunConfig(func(k string) string { return vars[k] })
		if err != nil {
			t.Fatal(err)
		}
		cfg.OnResponse = record
		rt := localtest.Runtime(t, cfg)
		localtest.Project(t, rt, readmeKey)
		runtimes[env] = rt
		return rt
	}
	for _, b := range readmeBlocks(t) {
		if b.note == "" {
			t.Errorf("README line %d: an example against make run without a <!-- readme-test: ... --> note", b.line)
			continue
		}
		if strings.HasPrefix(b.note, "skip:") {
			continue
		}
		env, expect := "", b.note
		if e, rest, ok := strings.Cut(b.note, "; "); ok && strings.HasPrefix(e, "env ") {
			env, expect = strings.TrimPrefix(e, "env "), rest
		}
		want := strings.Fields(strings.TrimPrefix(expect, "expect "))
		rt := runtimeFor(env)
		u, _ := url.Parse(rt.URL)
		script := keyLineRe.ReplaceAllString(strings.ReplaceAll(b.script, "127.0.0.1:8080", u.Host), "")
		mu.Lock()
		statuses = nil
		mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", script)
		cmd.Env = append(os.Environ(), "KEY="+readmeKey)
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("README line %d: the example fails: %v\n%s", b.line, err, out)
			continue
		}
		mu.Lock()
		got := append([]string(nil), statuses...)
		mu.Unlock()
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("README line %d: statuses %v, the README says %v\n%s", b.line, got, want, out)
		}
	}
}

const readmeKey = "bx_readme_example_key_0123456789"
