// Package conformance_test runs the shared SDK conformance list
// (sdk/conformance/scenarios.json) with every SDK's runner against one local
// runtime, through the fault proxy, and judges what each runner reports
// against the proxy's log and the API's own state. The checks are here,
// once, for all SDKs; the runners only drive their SDK.
package conformance_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"gopkg.in/yaml.v3"

	"github.com/botix/public-api/infra/run/ddblocal"
	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/testkit/docs"
	"github.com/botix/public-api/infra/testkit/faultproxy"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/sdk"
	"github.com/botix/public-api/sdk/go/botix"
)

// TestMain gives the suite a DynamoDB Local of its own: make test shares one
// engine between the packages it runs two at a time, the engine is
// single-core bound, and the four SDKs' creates would slow the other end-to-
// end packages down instead of using the machine's second core.
func TestMain(m *testing.M) {
	inst, err := ddblocal.Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance: DynamoDB Local is required and could not start:", err)
		os.Exit(1)
	}
	os.Setenv("AWS_ENDPOINT_URL_DYNAMODB", inst.Endpoint)
	code := m.Run()
	inst.Stop()
	os.Exit(code)
}

// SDK is one SDK under test: its directory under sdk/ and the commands its
// runner needs, with the packages that provide them on Debian.
type SDK struct {
	Dir, Name string
	Needs     []string
	Install   string
}

// SDKs are the SDKs every scenario runs with, in the order of the table of
// docs/integrators.md.
var SDKs = []SDK{
	{Dir: "go", Name: "Go", Needs: []string{"go"}, Install: "Go 1.26"},
	{Dir: "node", Name: "Node", Needs: []string{"node", "npm"}, Install: "Node.js 20 or later, with npm"},
	{Dir: "python", Name: "Python", Needs: []string{"python3"}, Install: "apt-get install -y python3 python3-venv python3-build python3-setuptools python3-wheel python3-yaml"},
	{Dir: "php", Name: "PHP", Needs: []string{"php", "phpunit", "composer"}, Install: "apt-get install -y php-cli php-curl php-mbstring php-xml php-sqlite3 php-zip phpunit composer"},
}

// Scenario is one entry of scenarios.json.
type Scenario struct {
	ID     string            `json:"id"`
	Title  string            `json:"title"`
	Params map[string]any    `json:"params"`
	Faults []faultproxy.Rule `json:"faults"`
}

func root(t testing.TB) string {
	t.Helper()
	r, err := template.Root()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Scenarios reads sdk/conformance/scenarios.json.
func Scenarios(t testing.TB) []Scenario {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root(t), "sdk", "conformance", "scenarios.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Scenarios []Scenario }
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, s := range f.Scenarios {
		if check[s.ID] == nil {
			t.Fatalf("scenario %q has no check in infra/e2e/conformance", s.ID)
		}
	}
	return f.Scenarios
}

// env is what every scenario of one SDK shares.
type env struct {
	rt     *local.Runtime
	dir    string
	seeded seeded
}

// seeded is the project of iterate-resume: its key and its contacts' ids,
// newest first.
type seeded struct {
	key string
	ids []string
}

func TestConformance(t *testing.T) {
	list := Scenarios(t)
	rt := localtest.Runtime(t, local.Config{})
	seed := seedContacts(t, rt, int(list[slices.IndexFunc(list, func(s Scenario) bool { return s.ID == "iterate-resume" })].Params["expected"].(float64)))
	for _, s := range SDKs {
		t.Run(s.Dir, func(t *testing.T) {
			t.Parallel()
			for _, cmd := range s.Needs {
				if _, err := exec.LookPath(cmd); err != nil {
					t.Fatalf("the %s SDK's tests need %s: %s", s.Name, cmd, s.Install)
				}
			}
			e := &env{rt: rt, dir: filepath.Join(root(t), "sdk", s.Dir), seeded: seed}
			if _, err := os.Stat(filepath.Join(e.dir, "conformance", "run")); err != nil {
				t.Fatalf("sdk/%s has no conformance/run: %v", s.Dir, err)
			}
			if prep := filepath.Join(e.dir, "conformance", "prepare"); exists(prep) {
				if out, err := command(t, e.dir, prep, nil).CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", prep, err, out)
				}
			}
			for _, sc := range list {
				t.Run(sc.ID, func(t *testing.T) { e.run(t, sc) })
			}
			t.Run("package", func(t *testing.T) {
				_, key := localtest.Project(t, rt, "")
				cmd := command(t, e.dir, filepath.Join(e.dir, "conformance", "package-check"), []string{"BOTIX_API_URL=" + rt.URL, "BOTIX_API_KEY=" + key})
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("package-check: %v\n%s", err, out)
				}
			})
		})
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func command(t *testing.T, dir, name string, extraEnv []string, args ...string) *exec.Cmd {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), extraEnv...)
	return cmd
}

// seedContacts makes n contacts in a project of their own and returns its
// key and their ids as a walk sees them, newest first.
func seedContacts(t *testing.T, rt *local.Runtime, n int) seeded {
	t.Helper()
	_, key := localtest.Project(t, rt, "")
	c := botix.NewClient(key, botix.WithBaseURL(rt.URL))
	ctx := context.Background()
	work := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if _, err := c.Contacts.Create(ctx, botix.ContactCreate{Phone: fmt.Sprintf("+7999300%04d", i), Name: fmt.Sprintf("s%d", i)}); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var ids []string
	for ct, err := range c.Contacts.All(ctx, botix.ContactListParams{ListParams: botix.ListParams{Limit: 100}}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ct.ID)
	}
	return seeded{key: key, ids: ids}
}

// run is one scenario with one SDK: a fresh project and proxy, the runner,
// then the scenario's check.
func (e *env) run(t *testing.T, sc Scenario) {
	key := e.seeded.key
	if sc.ID != "iterate-resume" {
		_, key = localtest.Project(t, e.rt, "")
	}
	proxy, err := faultproxy.Start(e.rt.URL, sc.Faults, 22)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	params := maps.Clone(sc.Params)
	if fill := fills[sc.ID]; fill != nil {
		fill(params)
	}
	line, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	cmd := command(t, e.dir, filepath.Join(e.dir, "conformance", "run"), []string{"BOTIX_API_URL=" + proxy.URL, "BOTIX_API_KEY=" + key}, sc.ID)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := stdin.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 16<<20)
	r := &run{t: t, e: e, key: key, params: params, proxy: proxy, stdin: stdin, lines: lines}
	defer func() {
		if t.Failed() && stderr.Len() > 0 {
			t.Logf("runner's stderr:\n%s", tail(stderr.String(), 4000))
		}
	}()
	check[sc.ID](r)
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("runner: %v", err)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// run is one runner process of one scenario.
type run struct {
	t      *testing.T
	e      *env
	key    string
	params map[string]any
	proxy  *faultproxy.Proxy
	stdin  io.WriteCloser
	lines  *bufio.Scanner
}

// report closes the runner's input and decodes the last line it printed.
func (r *run) report(into any) {
	r.t.Helper()
	_ = r.stdin.Close()
	last := ""
	for r.lines.Scan() {
		if l := strings.TrimSpace(r.lines.Text()); l != "" {
			last = l
		}
	}
	if err := json.Unmarshal([]byte(last), into); err != nil {
		r.t.Fatalf("the runner's report %q: %v", tail(last, 500), err)
	}
}

// next reads the next line the runner prints (webhook-receive's
// announcement).
func (r *run) next(into any) {
	r.t.Helper()
	if !r.lines.Scan() {
		r.t.Fatalf("the runner printed nothing: %v", r.lines.Err())
	}
	if err := json.Unmarshal(r.lines.Bytes(), into); err != nil {
		r.t.Fatalf("the runner's line %q: %v", r.lines.Text(), err)
	}
}

// client talks to the runtime directly (not through the proxy), as the
// scenario's project.
func (r *run) client() *botix.Client {
	return botix.NewClient(r.key, botix.WithBaseURL(r.e.rt.URL))
}

func (r *run) contacts() int64 {
	r.t.Helper()
	n, err := r.client().Contacts.Count(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	return n.Total
}

// wire is the proxy's log of the requests of one method and path.
func (r *run) wire(method, path string) []faultproxy.Entry {
	var out []faultproxy.Entry
	for _, e := range r.proxy.Log() {
		if e.Method == method && e.Path == path {
			out = append(out, e)
		}
	}
	return out
}

// Result and Error are the report shapes of sdk/conformance/README.md.
type Result struct {
	ID             string `json:"id"`
	Replayed       bool   `json:"replayed"`
	Attempts       int    `json:"attempts"`
	IdempotencyKey string `json:"idempotency_key"`
	RequestID      string `json:"request_id"`
}

type Error struct {
	Type           string            `json:"type"`
	Kind           string            `json:"kind"`
	Status         int               `json:"status"`
	Code           string            `json:"code"`
	Message        string            `json:"message"`
	Field          string            `json:"field"`
	Details        map[string]string `json:"details"`
	RequestID      string            `json:"request_id"`
	RetryAfterS    float64           `json:"retry_after_s"`
	IdempotencyKey string            `json:"idempotency_key"`
	Attempts       int               `json:"attempts"`
	Reissuable     bool              `json:"reissuable"`
}

var requestID = regexp.MustCompile(`^req_[0-9A-HJKMNP-TV-Z]{26}$`)

// fills put the harness's values into a scenario's params.
var fills = map[string]func(map[string]any){
	"reuse-conflict": func(p map[string]any) { p["idempotency_key"] = uuid.NewString() },
	"webhook-receive": func(p map[string]any) {
		var receivers []any
		for _, name := range []string{"old", "new", "legacy"} {
			receivers = append(receivers, map[string]any{"name": name, "secrets": []string{secrets[name]}, "allow_legacy": name == "legacy"})
		}
		p["receivers"] = receivers
		p["fail_once"] = []string{events.failOnce}
		p["slow"] = map[string]int{events.slow: slowMS}
	},
}

// check holds each scenario's judgement.
var check = map[string]func(*run){
	"routes":             checkRoutes,
	"codes":              checkCodes,
	"schemas":            checkSchemas,
	"list-params":        checkListParams,
	"lossy-creates":      checkLossyCreates,
	"in-progress":        checkInProgress,
	"reuse-conflict":     checkReuseConflict,
	"validation":         checkValidation,
	"bad-key":            checkBadKey,
	"retry-after":        checkRetryAfter(time.Second, time.Minute),
	"retry-after-capped": checkRetryAfter(time.Second, 30*time.Second),
	"retry-quota":        checkRetryQuota,
	"iterate-resume":     checkIterateResume,
	"webhook-receive":    checkWebhookReceive,
}

var pathParam = regexp.MustCompile(`\{[^}]*\}`)

func checkRoutes(r *run) {
	var rep struct{ Routes [][2]string }
	r.report(&rep)
	tpl, err := template.LoadRepo()
	if err != nil {
		r.t.Fatal(err)
	}
	norm := func(method, path string) string { return method + " " + pathParam.ReplaceAllString(path, "{}") }
	want, got := map[string]bool{}, map[string]bool{}
	for _, rt := range tpl.Routes() {
		if strings.HasPrefix(rt.Path, "/public/v1/") {
			want[norm(rt.Method, rt.Path)] = true
		}
	}
	for _, rt := range rep.Routes {
		got[norm(rt[0], rt[1])] = true
	}
	for k := range want {
		if !got[k] {
			r.t.Errorf("route %s has no method", k)
		}
	}
	for k := range got {
		if !want[k] {
			r.t.Errorf("the SDK calls %s, which template.yaml does not serve", k)
		}
	}
}

func checkCodes(r *run) {
	var rep struct{ Codes []string }
	r.report(&rep)
	var want []string
	for c := range httpapi.Codes() {
		want = append(want, string(c))
	}
	slices.Sort(want)
	got := slices.Sorted(slices.Values(rep.Codes))
	if !slices.Equal(slices.Compact(got), want) || len(got) != len(want) {
		r.t.Errorf("the SDK's codes %v; the server's %v", got, want)
	}
}

func checkSchemas(r *run) {
	var rep struct {
		Schemas       map[string][]string
		GeneratedFrom string `json:"generated_from"`
	}
	r.report(&rep)
	if rep.GeneratedFrom == "sdk/openapi.yaml" && rep.Schemas == nil {
		return // the SDK's own test regenerates its types and fails on a diff
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]any `yaml:"properties"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(sdk.OpenAPI, &doc); err != nil {
		r.t.Fatal(err)
	}
	for _, name := range r.params["required"].([]any) {
		if _, ok := rep.Schemas[name.(string)]; !ok {
			r.t.Errorf("no type for schema %s", name)
		}
	}
	for name, fields := range rep.Schemas {
		s, ok := doc.Components.Schemas[name]
		if !ok {
			r.t.Errorf("a type for %s, which the document does not define", name)
			continue
		}
		want := slices.Sorted(maps.Keys(s.Properties))
		got := slices.Sorted(slices.Values(fields))
		if !slices.Equal(got, want) {
			r.t.Errorf("the type for %s has fields %v; the schema %v", name, got, want)
		}
	}
}

// TestReadmeTable: the integrators' guide's table of SDKs and scenarios is
// this list, in its order, with every SDK a column: what TestConformance
// runs.
func TestReadmeTable(t *testing.T) {
	if want := ReadmeTable(Scenarios(t)); !strings.Contains(docs.Read(t, docs.Integrators), want) {
		t.Errorf("%s lacks the conformance table; put this in its SDKs section:\n%s", docs.Integrators, want)
	}
}

// packageTitle is what each SDK's package-check shows.
const packageTitle = "built as its ecosystem builds packages, installed from that artifact into a fresh project, the README example run there"

// ReadmeTable renders the scenarios × SDKs table.
func ReadmeTable(list []Scenario) string {
	var b strings.Builder
	b.WriteString("| scenario |")
	for _, s := range SDKs {
		b.WriteString(" " + s.Name + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(SDKs)) + "\n")
	for _, sc := range list {
		fmt.Fprintf(&b, "| `%s`: %s |%s\n", sc.ID, sc.Title, strings.Repeat(" ✓ |", len(SDKs)))
	}
	fmt.Fprintf(&b, "| `package`: %s |%s\n", packageTitle, strings.Repeat(" ✓ |", len(SDKs)))
	return b.String()
}
