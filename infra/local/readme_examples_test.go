package local_test

import (
	"context"
	"net/http"
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
		if !strings.Contains(script, "curl ") && !strings.Contains(script, "aws --endpoint-url http://127.0.0.1:8081") {
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

// expectLine is a "# expect: <text>" line of an example: what its output
// must show.
var expectLine = regexp.MustCompile(`(?m)^# expect: (.+)$`)

// TestReadmeExamples runs the README's examples against make run verbatim,
// in order, against runtimes configured as make run configures its own
// (only the ports differ, KEY holds the seeded key, and the AWS CLI gets
// the local credentials), and checks each block: the HTTP statuses it
// produces against its <!-- readme-test: expect ... --> note, and its
// output against its "# expect: <text>" lines, in order.
func TestReadmeExamples(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("the README examples need curl")
	}
	var mu sync.Mutex
	var statuses []string
	record := func(req *http.Request, _ string, status int) {
		if strings.HasPrefix(req.UserAgent(), "Botix-Webhooks/") {
			return // a webhook the examples' endpoints point at the API, not an example's own call
		}
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
	root, err := template.Root()
	if err != nil {
		t.Fatal(err)
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
		want := strings.Fields(strings.TrimPrefix(expect, "expect"))
		rt := runtimeFor(env)
		if strings.Contains(b.script, "aws ") {
			if _, err := exec.LookPath("aws"); err != nil {
				t.Logf("README line %d: the AWS CLI is not installed; TestRunbookThroughTheLocalAWSEndpoint runs the same calls with the SDK", b.line)
				continue
			}
		}
		u, _ := url.Parse(rt.URL)
		a, _ := url.Parse(rt.AWSURL)
		script := localNames(rt).Replace(strings.NewReplacer("127.0.0.1:8080", u.Host, "127.0.0.1:8081", a.Host).Replace(b.script))
		script = keyLineRe.ReplaceAllString(script, "")
		mu.Lock()
		statuses = nil
		mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", script)
		cmd.Dir = root // the README's commands run from the repository's root
		cmd.Env = append(os.Environ(), "KEY="+readmeKey, "AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local", "AWS_DEFAULT_REGION="+local.Region, "AWS_PAGER=")
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("README line %d: the example fails: %v\n%s", b.line, err, out)
			continue
		}
		if missing := missingOutput(string(out), b.script); missing != "" {
			t.Errorf("README line %d: the example does not print %q, which the README says it does\n%s", b.line, missing, out)
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

// missingOutput returns the first "# expect:" text of script that out does
// not show (after the previous one), "" when all are there.
func missingOutput(out, script string) string {
	for _, m := range expectLine.FindAllStringSubmatch(script, -1) {
		i := strings.Index(out, m[1])
		if i < 0 {
			return m[1]
		}
		out = out[i+len(m[1]):]
	}
	return ""
}

// localNames maps the names make run gives queues and tables to the names
// this runtime gave them (tests share one DynamoDB Local, so their tables
// carry a prefix).
func localNames(rt *local.Runtime) *strings.Replacer {
	var pairs []string
	for _, id := range rt.QueueIDs() {
		_, arn := rt.Queue(id)
		pairs = append(pairs, "botix-local-"+id, arn[strings.LastIndex(arn, ":")+1:])
	}
	for id, name := range rt.Tables() {
		pairs = append(pairs, "--table-name "+id, "--table-name "+name)
	}
	return strings.NewReplacer(pairs...)
}
