package makerun_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/botix/public-api/infra/internal/freeport"
	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/docs"
	"github.com/botix/public-api/infra/testkit/localtest"
)

// docBlock is a fenced shell or Go block of the documentation and the
// <!-- readme-test: ... --> note on the line before it, which says what
// the test does with it:
//
//	expect <statuses>   run it; these are the HTTP statuses it produces, in
//	                    order; a status ending in ? may be absent (an answer
//	                    that depends on the clock, such as the manual-retry
//	                    cooldown's 429 the SDK then waits out)
//	make run            its "[VAR=value ...] make run" lines start a runtime
//	                    each, fresh, as the reader's would be (a restart
//	                    discards the data)
//	not run: <why>      it cannot run here (a deploy, a real AWS account);
//	                    the rest of the note is the reason
//	given <names>       (Go) what the block uses but does not define
//
// joined by "; ". A Go block marked <!-- sdk-example: Name --> instead is
// TestReadmeSDKExamples's: the example function it shows runs in go test.
type docBlock struct {
	file   string
	line   int
	lang   string
	note   string
	script string
}

func (b docBlock) String() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

var (
	noteRe      = regexp.MustCompile(`^\s*<!-- (readme-test|sdk-example): (.*?) -->\s*$`)
	makeRunRe   = regexp.MustCompile(`^((?:[A-Z_]+=\S+\s+)*)make run\s*(?:#.*)?$`)
	expectLine  = regexp.MustCompile(`(?m)^(?://|#) expect: (.+)$`)
	runnableSet = map[string]string{"sh": "sh", "bash": "sh", "shell": "sh", "go": "go"}
)

// docBlocks returns the shell and Go blocks of the documentation in the
// order a reader meets them: the README, then each guide of
// docs.ReadingOrder.
func docBlocks(t *testing.T) []docBlock {
	t.Helper()
	var out []docBlock
	for _, file := range docs.ReadingOrder {
		lines := strings.Split(docs.Read(t, file), "\n")
		for i := 0; i < len(lines); i++ {
			trimmed := strings.TrimLeft(lines[i], " ")
			if !strings.HasPrefix(trimmed, "```") {
				continue
			}
			indent := len(lines[i]) - len(trimmed)
			lang := strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))
			start := i
			var body []string
			for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
				l := lines[i]
				if len(l) >= indent && strings.TrimSpace(l[:indent]) == "" {
					l = l[indent:]
				}
				body = append(body, l)
			}
			kind, ok := runnableSet[lang]
			if !ok {
				continue // output, JSON, a query: nothing to run
			}
			b := docBlock{file: file, line: start + 1, lang: kind, script: strings.Join(body, "\n") + "\n"}
			if start > 0 {
				if m := noteRe.FindStringSubmatch(lines[start-1]); m != nil {
					b.note = m[2]
					if m[1] == "sdk-example" {
						b.note = "sdk-example " + m[2]
					}
				}
			}
			out = append(out, b)
		}
	}
	return out
}

// blockPlan is what a note asks for.
type blockPlan struct {
	expect  []string
	run     bool
	makeRun bool
	notRun  string
	given   []string
	example string
}

func parseNote(note string) (blockPlan, error) {
	var p blockPlan
	if note == "" {
		return p, fmt.Errorf("no <!-- readme-test: ... --> note: every shell and Go block is run or says why not")
	}
	if i := strings.Index(note, "not run:"); i >= 0 { // the reason is the rest of the note
		if p.notRun = strings.TrimSpace(note[i+len("not run:"):]); p.notRun == "" {
			return p, fmt.Errorf("%q: say why it is not run", note[i:])
		}
		note = strings.TrimSuffix(strings.TrimSpace(note[:i]), ";")
	}
	if note == "" {
		return p, nil
	}
	for _, f := range strings.Split(note, "; ") {
		switch {
		case f == "expect" || strings.HasPrefix(f, "expect "):
			p.run, p.expect = true, strings.Fields(strings.TrimPrefix(f, "expect"))
		case f == "make run":
			p.makeRun = true
		case strings.HasPrefix(f, "given "):
			p.given = strings.Fields(strings.TrimPrefix(f, "given "))
		case strings.HasPrefix(f, "sdk-example "):
			p.example = strings.TrimPrefix(f, "sdk-example ")
		default:
			return p, fmt.Errorf("%q is not a readme-test instruction", f)
		}
	}
	if p.run && p.notRun != "" {
		return p, fmt.Errorf("run and not run at once")
	}
	return p, nil
}

// readerRuntimes are the runtimes the reader has running, by the port they
// asked for: `make run` on 8080 unless PORT says otherwise.
type readerRuntimes struct {
	t      *testing.T
	record func(*http.Request, string, int)
	byPort map[string]*local.Runtime
	aws    map[string]string // the AWS port asked for beside each port
	// keyFile is where make run keeps the demo key (it prints the path).
	keyFile string
}

// start is a reader's `[VAR=value ...] make run`: a fresh runtime
// configured as make run configures it from those variables.
func (r *readerRuntimes) start(assignments string) {
	vars := map[string]string{"PORT": "8080", "AWS_PORT": "8081"}
	for _, a := range strings.Fields(assignments) {
		k, v, _ := strings.Cut(a, "=")
		vars[k] = v
	}
	cfg, err := local.MakeRunConfig(func(k string) string { return vars[k] })
	if err != nil {
		r.t.Fatal(err)
	}
	cfg.OnResponse = r.record
	rt := localtest.Runtime(r.t, cfg)
	localtest.Project(r.t, rt, readmeKey)
	if err := os.MkdirAll(filepath.Dir(r.keyFile), 0o700); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(r.keyFile, []byte(readmeKey+"\n"), 0o600); err != nil {
		r.t.Fatal(err)
	}
	r.byPort[vars["PORT"]], r.aws[vars["PORT"]] = rt, vars["AWS_PORT"]
}

// replacer maps the addresses the documentation names to the runtimes'
// and the receivers' free ports; the names of queues and tables to those
// of the runtime whose AWS endpoint the block names (the first one's when
// it names none).
func (r *readerRuntimes) replacer(script string, receivers map[string]string) *strings.Replacer {
	var pairs []string
	names := r.byPort["8080"]
	for port, rt := range r.byPort {
		u, _ := url.Parse(rt.URL)
		a, _ := url.Parse(rt.AWSURL)
		pairs = append(pairs, "127.0.0.1:"+port, u.Host, "127.0.0.1:"+r.aws[port], a.Host)
		if strings.Contains(script, "127.0.0.1:"+r.aws[port]) {
			names = rt
		}
	}
	for port, free := range receivers {
		pairs = append(pairs, "127.0.0.1:"+port, "127.0.0.1:"+free)
	}
	if names != nil {
		for _, id := range names.QueueIDs() {
			_, arn := names.Queue(id)
			pairs = append(pairs, "botix-local-"+id, arn[strings.LastIndex(arn, ":")+1:])
		}
		for id, name := range names.Tables() {
			pairs = append(pairs, "--table-name "+id, "--table-name "+name)
		}
	}
	return strings.NewReplacer(pairs...)
}

// receiverPorts are the ports the examples' webhook receivers listen on
// (or, for 9000, where nothing listens): each is given a free port, so
// that the test needs none of them free.
var receiverPorts = []string{"9000", "9100"}

// TestReadmeExamples runs every shell and Go block of the README and the
// guides, in the order a reader runs them, as pasted into one terminal,
// against runtimes configured as make run configures its own (only the
// ports differ): a `make run` block starts a fresh runtime on its port, as
// the reader's restart would, and keeps the demo key where make run keeps
// it; a block marked "not run" says why. The shell blocks share one
// terminal's state (a variable a block sets is there in the next ones) and
// get nothing else: no KEY, no AWS credentials, no BOTIX_ variable the
// reader's fresh terminal would not have. Each block's HTTP statuses are
// checked against its note and its output against its "# expect: <text>"
// lines, in order.
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
	rts := &readerRuntimes{t: t, record: record, byPort: map[string]*local.Runtime{}, aws: map[string]string{}}
	free, err := freeport.Pick(len(receiverPorts))
	if err != nil {
		t.Fatal(err)
	}
	receivers := map[string]string{}
	for i, p := range receiverPorts {
		receivers[p] = strconv.Itoa(free[i])
	}
	root, err := docs.Root()
	if err != nil {
		t.Fatal(err)
	}
	term := newTerminal(t)
	rts.keyFile = term.keyFile
	blocks := docBlocks(t)
	ran := 0
	for _, b := range blocks {
		plan, err := parseNote(b.note)
		if err != nil {
			t.Errorf("%s: %v", b, err)
			continue
		}
		if plan.makeRun {
			starts := 0
			for _, l := range strings.Split(strings.TrimSpace(b.script), "\n") {
				if m := makeRunRe.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
					rts.start(m[1])
					starts++
				} else if plan.notRun == "" {
					t.Errorf("%s: %q is not a make run line; say why it is not run (not run: ...)", b, l)
				}
			}
			if starts == 0 {
				t.Errorf("%s: marked make run without a make run line", b)
			}
			continue
		}
		if plan.example != "" {
			if b.lang != "go" {
				t.Errorf("%s: an sdk-example block must be Go", b)
			}
			continue // TestReadmeSDKExamples holds it to the example that go test runs
		}
		if plan.notRun != "" {
			continue
		}
		if len(rts.byPort) == 0 {
			t.Fatalf("%s: an example before any make run block", b)
		}
		if b.lang == "sh" && strings.Contains(b.script, "aws ") {
			if _, err := exec.LookPath("aws"); err != nil {
				t.Logf("%s: the AWS CLI is not installed; TestRunbookThroughTheLocalAWSEndpoint runs the same calls with the SDK", b)
				continue
			}
		}
		mu.Lock()
		statuses = nil
		mu.Unlock()
		var out []byte
		if b.lang == "go" {
			out, err = runGoBlock(t, root, b, plan.given, rts.byPort["8080"].URL)
		} else {
			cmd := term.command(rts.replacer(b.script, receivers).Replace(b.script))
			cmd.Dir = root // the documentation's commands run from the repository's root
			out, err = runGroup(cmd, 3*time.Minute)
		}
		ran++
		if err != nil {
			t.Errorf("%s: the example fails: %v\n%s", b, err, out)
			continue
		}
		if missing := missingOutput(string(out), b.script); missing != "" {
			t.Errorf("%s: the example does not print %q, which the guide says it does\n%s", b, missing, out)
		}
		mu.Lock()
		got := append([]string(nil), statuses...)
		mu.Unlock()
		if !statusesMatch(got, plan.expect) {
			t.Errorf("%s: statuses %v, the guide says %v\n%s", b, got, plan.expect, out)
		}
	}
	t.Logf("%d blocks, %d run", len(blocks), ran)
}

// terminal is the reader's one terminal: the shell blocks run in it one
// after another, each starting with the variables the ones before it left
// (as pasting them in order does), in an environment with none of the
// test's own AWS, KEY or BOTIX_ variables and a cache directory of its own
// (XDG_CACHE_HOME), where make run keeps the demo key.
type terminal struct {
	env     []string
	state   string
	keyFile string
}

func newTerminal(t *testing.T) *terminal {
	t.Helper()
	dir := t.TempDir()
	term := &terminal{state: filepath.Join(dir, "shell-state"), keyFile: filepath.Join(dir, "cache", "botix-public-api", "demo-api-key")}
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "AWS_") || strings.HasPrefix(name, "BOTIX_") || name == "KEY" || name == "XDG_CACHE_HOME" {
			continue
		}
		term.env = append(term.env, kv)
	}
	// The Go build cache stays the test's (a reader's is warm too).
	term.env = append(term.env, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "GOCACHE="+strings.TrimSpace(string(gocache)))
	return term
}

// saveState writes the shell's variables (not bash's own, nor read-only
// ones) as declarations the next block sources.
const saveState = `
for __v in $(compgen -v); do
  case "$__v" in BASH*|SHELLOPTS|EUID|PPID|UID|GROUPS|FUNCNAME|PIPESTATUS|SHLVL|RANDOM|SRANDOM|LINENO|SECONDS|EPOCH*|OLDPWD|PWD|_|HIST*|DIRSTACK|COMP_WORDBREAKS|IFS|OPT*|PS?|MAILCHECK|HOSTNAME|HOSTTYPE|MACHTYPE|OSTYPE|COLUMNS|LINES|__*) continue;; esac
  __d=$(declare -p "$__v" 2>/dev/null) || continue
  __f=${__d#declare -}; __f=${__f%% *}
  case "$__f" in *r*) continue;; esac
  printf '%s\n' "$__d"
done > "$BOTIX_README_STATE"
`

// command is one block pasted into the terminal.
func (term *terminal) command(script string) *exec.Cmd {
	full := "if [ -f \"$BOTIX_README_STATE\" ]; then . \"$BOTIX_README_STATE\"; fi\n" + script + "\n" + saveState
	cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", full)
	cmd.Env = append(append([]string(nil), term.env...), "BOTIX_README_STATE="+term.state)
	return cmd
}

// givens are what a Go block may use without defining it (its note names
// them): the localtest.Client, and stand-ins for the integrator's own code.
var givens = map[string]string{
	"client":     `client := botix.NewClient(os.Getenv("BOTIX_API_KEY"))`,
	"pos":        `var pos botix.Position`,
	"handle":     `handle := func(c botix.Contact) { fmt.Println("handled", c.ID) }`,
	"checkpoint": `checkpoint := func(pos string) { fmt.Println("checkpoint", pos != "") }`,
}

// runGoBlock runs a Go block as the body of a function returning error, in
// a program of a module of its own that requires the SDK (replaced by
// sdk/go, as an integrator's go get would bring it), against apiURL.
func runGoBlock(t *testing.T, root string, b docBlock, given []string, apiURL string) ([]byte, error) {
	t.Helper()
	dir := t.TempDir()
	var prelude []string
	for _, g := range given {
		src, ok := givens[g]
		if !ok {
			t.Fatalf("%s: no given %q", b, g)
		}
		prelude = append(prelude, src)
	}
	program := `package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/botix/public-api/sdk/go/botix"
)

var _, _, _ = errors.As, fmt.Sprint, os.Getenv

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
` + strings.Join(prelude, "\n") + "\n" + b.script + `	return nil
}
`
	sdk := filepath.Join(root, "sdk", "go")
	sum, err := os.ReadFile(filepath.Join(sdk, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	uuid := regexp.MustCompile(`github.com/google/uuid v\S+`).FindString(readFile(t, filepath.Join(sdk, "go.mod")))
	mod := "module example.com/guideexample\n\ngo 1.23\n\nrequire (\n\tgithub.com/botix/public-api/sdk/go v0.0.0\n\t" + uuid + "\n)\n\nreplace github.com/botix/public-api/sdk/go => " + sdk + "\n"
	for name, data := range map[string]string{"main.go": program, "go.mod": mod, "go.sum": string(sum)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "BOTIX_API_URL="+apiURL, "BOTIX_API_KEY="+readmeKey)
	return runGroup(cmd, 3*time.Minute)
}

// runGroup runs cmd in a process group of its own for at most timeout and
// then ends whatever the group left behind: a block that fails halfway
// (or a Go program's binary under go run) must not leave a receiver
// running that holds the output open and the port taken.
func runGroup(cmd *exec.Cmd, timeout time.Duration) ([]byte, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second // output held open by a leftover child
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	kill := func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	timer := time.AfterFunc(timeout, kill)
	err := cmd.Wait()
	timer.Stop()
	kill()
	return out.Bytes(), err
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const readmeKey = "bx_readme_example_key_0123456789"

// missingOutput returns the first "# expect:" (in Go "// expect:") text of
// script that out does not show (after the previous one), "" when all are
// there.
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

// statusesMatch reports whether got is the note's statuses, in order, a
// status written with a trailing ? present or not.
func statusesMatch(got, expect []string) bool {
	var pattern strings.Builder
	pattern.WriteString("^")
	for _, e := range expect {
		if status, optional := strings.CutSuffix(e, "?"); optional {
			pattern.WriteString("(?:" + regexp.QuoteMeta(status) + " )?")
		} else {
			pattern.WriteString(regexp.QuoteMeta(e) + " ")
		}
	}
	pattern.WriteString("$")
	joined := strings.Join(got, " ")
	if joined != "" {
		joined += " "
	}
	return regexp.MustCompile(pattern.String()).MatchString(joined)
}

func TestStatusesMatch(t *testing.T) {
	for _, c := range []struct {
		name        string
		got, expect string
		want        bool
	}{
		{"the same statuses", "409 200 202", "409 200 202", true},
		{"an optional status absent", "409 200 202", "409 200 429? 202", true},
		{"an optional status present", "409 200 429 202", "409 200 429? 202", true},
		{"a status the note does not allow", "409 200 429 202", "409 200 202", false},
		{"a required status missing", "409 202", "409 200 202", false},
		{"out of order", "200 409 202", "409 200 202", false},
		{"nothing sent, nothing expected", "", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := statusesMatch(strings.Fields(c.got), strings.Fields(c.expect)); got != c.want {
				t.Errorf("statusesMatch(%q, %q) = %v", c.got, c.expect, got)
			}
		})
	}
}
