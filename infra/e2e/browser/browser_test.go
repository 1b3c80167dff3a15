// Package browser_test drives the dashboard in a real, headless Chromium
// against the local runtime: what a project owner sees and clicks.
package browser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/infra/testkit/localtest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// chromium finds the browser: $CHROME_PATH, else Debian's chromium.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROME_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("the dashboard tests need a Chromium browser: apt-get install -y chromium (or set CHROME_PATH)")
	return ""
}

// system is one local runtime and one browser shared by the scenarios.
type system struct {
	rt      *local.Runtime
	browser context.Context
	out     string
}

func start(t *testing.T) *system {
	t.Helper()
	rt := localtest.Runtime(t, local.Config{
		Env: map[string]string{"WEBHOOK_ALLOW_LOOPBACK": "true"},
		Parameters: map[string]string{
			"WebhookRetrySchedule": "1s,1s,1s,1s", "WebhookConnectTimeout": "1s", "WebhookReadTimeout": "2s",
		},
		// Far below the template's (60 s) for a crashed worker's message to
		// come back soon, but far above what an attempt takes: make test
		// runs other suites beside this one, and a batch that outlived a
		// 5 s deadline was cut short and sent again, batch after batch,
		// until no delivery got through (CI, 2026-12-07).
		VisibilityTimeout: map[string]time.Duration{"DeliveryQueue": 30 * time.Second, "BulkDeliveryQueue": 30 * time.Second},
		Timeouts:          map[string]time.Duration{"DeliverFunction": 25 * time.Second},
	})
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.WindowSize(1280, 800),
		chromedp.Flag("disable-dev-shm-usage", true))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	out := os.Getenv("BOTIX_TEST_OUTPUT")
	if out == "" {
		out = filepath.Join(repoRoot(t), ".cache", "test-output", "browser")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	return &system{rt: rt, browser: browser, out: out}
}

func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

// owner is a project owner: an API key for setting things up through the
// API, and a browser tab on the dashboard.
type owner struct {
	t   *testing.T
	sys *system
	key string
	tab context.Context
}

func (s *system) owner(t *testing.T) *owner {
	t.Helper()
	_, key := localtest.Project(t, s.rt, "")
	tab, cancel := chromedp.NewContext(s.browser)
	t.Cleanup(cancel)
	// The first run opens the tab; it must not carry a deadline, which
	// would close the tab with it.
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	o := &owner{t: t, sys: s, key: key, tab: tab}
	failUncaught(t, tab)
	return o
}

// failUncaught fails the test at its end when a script of the tab threw
// an exception that nothing caught (a promise rejection no code handled
// included): an error in a module the steps did not look at.
func failUncaught(t *testing.T, tab context.Context) {
	var uncaught []string // read once the reader is done
	ctx, stop := context.WithCancel(tab)
	done := make(chan struct{})
	messages := chromedp.Console(ctx)
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() {
				uncaught = append(uncaught, m.String())
			}
		}
	}()
	t.Cleanup(func() {
		stop()
		<-done
		for _, m := range uncaught {
			t.Errorf("the dashboard threw, uncaught: %s", m)
		}
	})
}

// do runs browser steps, failing the test with a screenshot on error.
func (o *owner) do(steps ...chromedp.Action[chromedp.Void]) {
	o.t.Helper()
	o.doWithin(45*time.Second, steps...)
}

// manyDeliveries is how long a scenario waits for a hundred or more
// deliveries to settle: seconds alone, minutes when make test runs other
// suites on the same two cores and DynamoDB Local.
const manyDeliveries = 4 * time.Minute

func (o *owner) doWithin(d time.Duration, steps ...chromedp.Action[chromedp.Void]) {
	o.t.Helper()
	ctx, cancel := context.WithTimeout(o.tab, d)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		o.screenshot("failed-" + strings.ReplaceAll(o.t.Name(), "/", "-"))
		o.t.Fatalf("browser: %v (page text: %q)", err, o.text("body"))
	}
}

func (o *owner) eval(js string) string {
	o.t.Helper()
	ctx, cancel := context.WithTimeout(o.tab, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[any](js))
	if err != nil {
		o.t.Fatalf("evaluate %s: %v", js, err)
	}
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

func (o *owner) text(sel string) string {
	ctx, cancel := context.WithTimeout(o.tab, 5*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel)))
	return s
}

// waitFor polls a JavaScript condition in the page.
func (o *owner) waitFor(cond string) {
	o.t.Helper()
	o.waitWithin(40*time.Second, cond)
}

// waitWithin polls a JavaScript condition in the page for up to d: for
// what waits on many deliveries, which a busy machine (make test runs
// other suites beside this one) slows by an order of magnitude.
func (o *owner) waitWithin(d time.Duration, cond string) {
	o.t.Helper()
	o.doWithin(d+5*time.Second, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(d)))
}

// readmeScreenshots are the screenshots docs/integrators.md shows.
var readmeScreenshots = map[string]bool{"overview": true, "delivery-detail": true, "dead-letter": true}

// screenshot saves the visible page as PNG into the test output folder
// and, under `make screenshots`, into the folder the guide shows them from.
func (o *owner) screenshot(name string) {
	ctx, cancel := context.WithTimeout(o.tab, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		o.t.Logf("screenshot %s: %v", name, err)
		return
	}
	_ = os.WriteFile(filepath.Join(o.sys.out, name+".png"), png, 0o644)
	if dir := os.Getenv("BOTIX_SCREENSHOTS"); dir != "" && readmeScreenshots[name] {
		_ = os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
	}
}

// open logs in through the URL fragment and shows path.
func (o *owner) open(path string) {
	o.t.Helper()
	o.do(chromedp.Navigate(o.sys.rt.URL + "/dashboard" + path + "#key=" + o.key))
	o.waitFor(`document.querySelector('#view h1') !== null`)
}

// api calls the public API with the owner's key.
func (o *owner) api(method, path string, body any, out any) apitest.Reply {
	o.t.Helper()
	var b []byte
	if body != nil {
		b, _ = json.Marshal(body)
	}
	r := apitest.Do(o.t, method, o.sys.rt.URL+"/public/v1"+path, b,
		"Authorization", "Bearer "+o.key, "Content-Type", "application/json", "Idempotency-Key", uuid.NewString())
	if r.Status >= 300 {
		o.t.Fatalf("%s %s: %d %s", method, path, r.Status, r.Body)
	}
	if out != nil {
		r.JSON(o.t, out)
	}
	return r
}

type endpoint struct {
	ID     string `json:"id"`
	Secret string `json:"secret"`
}

func (o *owner) endpoint(url string, extra map[string]any) endpoint {
	body := map[string]any{"url": url, "events": []string{"*"}}
	for k, v := range extra {
		body[k] = v
	}
	var ep endpoint
	o.api("POST", "/webhook-endpoints", body, &ep)
	return ep
}

func (o *owner) contact(phone, name string) {
	o.api("POST", "/contacts", map[string]any{"phone": phone, "name": name}, nil)
}

// contacts creates n contacts named name, with phones made from the
// format and 0..n-1, four requests at a time: a flood arrives as an
// integrator's batch job sends it, and a busy machine does not spend the
// scenario's time on one request after another.
func (o *owner) contacts(n int, phoneFormat, name string) {
	o.t.Helper()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed []string
		next   = make(chan int)
	)
	for range 4 {
		wg.Go(func() {
			for i := range next {
				b, _ := json.Marshal(map[string]any{"phone": fmt.Sprintf(phoneFormat, i), "name": name})
				req, _ := http.NewRequest("POST", o.sys.rt.URL+"/public/v1/contacts", bytes.NewReader(b))
				req.Header.Set("Authorization", "Bearer "+o.key)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Idempotency-Key", uuid.NewString())
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
					if resp.StatusCode != http.StatusCreated {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				if err != nil {
					mu.Lock()
					failed = append(failed, fmt.Sprintf("contact %d: %v", i, err))
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if len(failed) > 0 {
		o.t.Fatalf("%d of %d contacts not created: %s", len(failed), n, strings.Join(failed, "; "))
	}
}

type delivery struct {
	ID       string `json:"id"`
	EventID  string `json:"event_id"`
	Status   string `json:"status"`
	Attempts []struct {
		Kind      string `json:"kind"`
		RequestID string `json:"request_id"`
	} `json:"attempts"`
}

// deliveries lists the owner's deliveries with a query.
func (o *owner) deliveries(query string) []delivery {
	var page struct {
		Data []delivery `json:"data"`
	}
	o.api("GET", "/webhook-deliveries?"+query, nil, &page)
	return page.Data
}

func (o *owner) delivery(id string) delivery {
	var d delivery
	o.api("GET", "/webhook-deliveries/"+id, nil, &d)
	return d
}

func answer(status int, body string) func(int, *http.Request, http.ResponseWriter) {
	return func(_ int, _ *http.Request, w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
}

// js quotes a Go string as a JavaScript string literal.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
