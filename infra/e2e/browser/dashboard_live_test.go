package browser_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/botix/public-api/infra/testkit/apitest"
)

// views are the dashboard's views, with what each shows once it is read.
func (o *owner) views(deliveryID string) map[string]string {
	return map[string]string{
		"/":                         `document.querySelector('#health tbody tr') !== null && document.querySelector('#live').textContent.startsWith('Updated')`,
		"/deliveries":               `document.querySelector('#deliveries tbody tr') !== null`,
		"/deliveries/" + deliveryID: `document.querySelector('#attempts') !== null`,
		"/dead-letter":              `document.querySelector('#deliveries tbody tr') !== null && document.querySelector('#live').textContent.startsWith('Updated')`,
		"/endpoints":                `document.querySelector('.endpoint .health .badge') !== null && document.querySelector('#live').textContent.startsWith('Updated')`,
	}
}

// failingAndHealthy sets up the story: an endpoint whose receiver answers
// 403, then a healthy one (the newest, which the API lists first), both
// sent one contact's event; it waits for the failing one's delivery to be
// dead.
func (o *owner) failingAndHealthy(phone string) (ok, bad endpoint, okRC, badRC *apitest.Receiver, dead delivery) {
	badRC = apitest.NewReceiver(o.t, answer(http.StatusForbidden, "secret changed"))
	bad = o.endpoint(badRC.URL, map[string]any{"description": "failing one"})
	okRC = apitest.NewReceiver(o.t, nil)
	ok = o.endpoint(okRC.URL, map[string]any{"description": "healthy one"})
	o.contact(phone, "Vera")
	o.waitDelivery(ok.ID, func(d delivery) bool { return d.Status == "delivered" })
	dead = o.waitDelivery(bad.ID, func(d delivery) bool { return d.Status == "dead" })
	return
}

func TestDashboardHealthAndLive(t *testing.T) {
	t.Parallel() // its own runtime and browser: nothing shared with the other tests
	sys := start(t)

	t.Run("a failing endpoint comes first, with its cause and dead count, and links to its dead letters", func(t *testing.T) {
		t.Parallel() // its own project and tab
		o := sys.owner(t)
		ok, bad, _, _, dead := o.failingAndHealthy("+79990002001")
		o.open("/")
		o.waitFor(`document.querySelectorAll('#health tbody tr').length === 2`)
		if first := o.eval(`document.querySelector('#health tbody tr').dataset.id`); first != bad.ID {
			t.Fatalf("the first row is %s; want the failing %s (healthy %s, the newest, lists first in the API)", first, bad.ID, ok.ID)
		}
		row := o.text("#health tbody tr")
		for _, want := range []string{"failing", "http_403", "failed attempts in a row", "UTC"} {
			if !strings.Contains(row, want) {
				t.Fatalf("the failing row %q lacks %q", row, want)
			}
		}
		if n := o.text("#health tbody tr .dead-count"); n != "1" {
			t.Fatalf("the failing row counts %q dead deliveries; want 1", n)
		}
		if caption := o.text("figure.chart figcaption"); !strings.Contains(caption, "Attempts per hour") || !strings.Contains(caption, "2 deliveries") {
			t.Fatalf("the hourly chart says %q: want attempts, and the 2 deliveries", caption)
		}
		o.eval(`[...document.querySelectorAll('#health tbody tr:first-child a')].find(a => a.textContent === 'Dead letters').click()`)
		o.waitFor(fmt.Sprintf(`location.pathname === '/dashboard/dead-letter' && location.search === %s && document.querySelectorAll('#deliveries tbody tr').length === 1`, js("?endpoint_id="+bad.ID)))
		if got := o.eval(`document.querySelector('#recover-endpoint').value`); got != bad.ID {
			t.Fatalf("Recover since… is for %s; want the failing endpoint %s", got, bad.ID)
		}
		if got := o.eval(`document.querySelector('#deliveries tbody tr').dataset.id`); got != dead.ID {
			t.Fatalf("the dead letter shows %s; want %s", got, dead.ID)
		}
		// Unfiltered, the picker still starts on the failing endpoint, not the newest.
		o.open("/dead-letter")
		o.waitFor(`document.querySelector('#recover-endpoint') !== null`)
		if got := o.eval(`document.querySelector('#recover-endpoint').value`); got != bad.ID {
			t.Fatalf("unfiltered, Recover since… is for %s; want the failing endpoint %s", got, bad.ID)
		}
		// The reason filter narrows what was read; one that matches nothing shows nothing.
		o.do(chromedp.SetValue(chromedp.CSS("#dl-reason"), "no such reason"))
		o.click("#dead-filters", "Apply")
		o.waitFor(`location.search.includes('reason=') && document.querySelector('#dead-status')?.textContent === 'Nothing matches.'`)
	})

	t.Run("no view prints null, undefined or NaN; on a phone no view scrolls sideways and every action is in reach", func(t *testing.T) {
		t.Parallel() // its own project and tab
		o := sys.owner(t)
		_, bad, _, _, dead := o.failingAndHealthy("+79990002002")
		o.api("POST", "/webhook-endpoints/"+bad.ID+"/recover", map[string]any{"since": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}, nil)
		for _, size := range [][2]int64{{1280, 800}, {390, 844}} {
			if size[0] == 390 {
				o.do(chromedp.EmulateViewport(size[0], size[1], chromedp.EmulateMobile))
			}
			for path, ready := range o.views(dead.ID) {
				o.open(path)
				o.waitFor(ready)
				if bad := o.eval(`(document.body.innerText.match(/\b(null|undefined|NaN)\b|\[object /g) || []).join(',')`); bad != "" {
					t.Fatalf("%s at %d px: the page prints %s", path, size[0], bad)
				}
				if size[0] != 390 {
					continue
				}
				if w := o.eval(`document.documentElement.scrollWidth`); w != "390" {
					t.Fatalf("%s at 390 px wide: the page is %s px wide", path, w)
				}
				if out := o.eval(`[...document.querySelectorAll('#view button, #view a, #view input, #view select')].filter(n => n.offsetParent !== null && n.getBoundingClientRect().right > 390.5).map(n => n.textContent || n.id).join('|')`); out != "" {
					t.Fatalf("%s at 390 px: out of reach without sideways scrolling: %s", path, out)
				}
				if wide := o.eval(`[...document.querySelectorAll('#view .table-wrap')].filter(w => w.scrollWidth > w.clientWidth + 1).length`); wide != "0" {
					t.Fatalf("%s at 390 px: %s tables scroll sideways", path, wide)
				}
				o.screenshot("phone" + strings.ReplaceAll(strings.SplitN(path, "/dlv_", 2)[0], "/", "-"))
			}
		}
	})

	t.Run("guided catch-up: recover from the dead letter, rows follow their deliveries live, a second click sends nothing twice", func(t *testing.T) {
		t.Parallel() // its own project and tab
		o := sys.owner(t)
		_, bad, _, badRC, dead := o.failingAndHealthy("+79990002003")
		o.contact("+79990002004", "Vlad")
		apitest.Eventually(t, 40*time.Second, "two dead deliveries", func() bool {
			return len(o.deliveries("status=dead&endpoint_id="+bad.ID)) == 2
		})
		sent := len(badRC.Requests())
		o.open("/dead-letter?endpoint_id=" + bad.ID)
		o.waitFor(`document.querySelectorAll('#deliveries tbody tr[data-status=dead]').length === 2`)

		// A retry while the receiver still fails: the row does not stay
		// "queued", it says the new attempt failed.
		row := fmt.Sprintf(`document.querySelector('#deliveries tbody tr[data-id=%q]')`, dead.ID)
		o.click(fmt.Sprintf(`#deliveries tbody tr[data-id=%q]`, dead.ID), "Retry")
		o.waitFor(row + `.textContent.includes('retried: failed again')`)

		badRC.SetRespond(nil)
		o.click("#recover", "Recover since…")
		o.waitFor(`document.querySelector('#recover-result .notice') !== null`)
		if msg := o.text("#recover-result"); !strings.Contains(msg, "started") || !strings.Contains(msg, "rcv_") {
			t.Fatalf("the first Recover says %q", msg)
		}
		// Its last attempts failed (the receiver's fix came after them):
		// the page says what would follow if the fix were not in.
		if warn := o.text("#recover-warning"); !strings.Contains(warn, "failed and none has succeeded since") {
			t.Fatalf("recovering a failing endpoint warns %q", warn)
		}
		// No reload: the rows turn delivered, the progress says so.
		o.waitFor(`document.querySelectorAll('#deliveries tbody tr[data-status=delivered]').length === 2`)
		o.waitFor(`document.querySelector('#recover-progress .recovery') !== null && document.querySelector('#recover-progress').textContent.includes('2 delivered, 0 failed again, 0 on their way')`)
		afterFirst := len(badRC.Requests())
		if want := sent + 1 + 2; afterFirst != want {
			t.Fatalf("the receiver got %d requests; want %d (%d before, the failed retry, the 2 recovered)", afterFirst, want, sent)
		}

		o.click("#recover", "Recover since…")
		o.waitFor(`document.querySelector('#recover-result .notice') !== null && !document.querySelector('#recover').querySelector('button').disabled`)
		msg := o.text("#recover-result")
		time.Sleep(3 * time.Second) // a second recovery's sends would have arrived
		if n := len(badRC.Requests()); n != afterFirst {
			t.Fatalf("a second Recover sent %d more requests (%q)", n-afterFirst, msg)
		}
		if !strings.Contains(msg, "already running") && !strings.Contains(msg, "0 failed or dead deliveries queued") {
			t.Fatalf("the second Recover says %q: want nothing new", msg)
		}
		if strings.Contains(msg, "2 failed or dead deliveries queued") {
			t.Fatalf("the second Recover reports a fresh count again: %q", msg)
		}
	})

	t.Run("the API goes down and comes back: the view says so, backs off, and recovers without a reload", func(t *testing.T) {
		t.Parallel() // its own project and tab
		o := sys.owner(t)
		o.endpoint(apitest.NewReceiver(t, nil).URL, nil)
		target, err := url.Parse(sys.rt.URL)
		if err != nil {
			t.Fatal(err)
		}
		var down atomic.Bool
		forward := httputil.NewSingleHostReverseProxy(target)
		direct := forward.Director
		forward.Director = func(r *http.Request) { direct(r); r.Host = target.Host } // the local API answers its own Host only
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if down.Load() {
				// The API does not answer: the connection closes unanswered.
				if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
					_ = conn.(net.Conn).Close()
				}
				return
			}
			forward.ServeHTTP(w, r)
		}))
		t.Cleanup(proxy.Close)
		o.do(chromedp.Navigate(proxy.URL + "/dashboard/#key=" + o.key))
		o.waitFor(`document.querySelectorAll('#health tbody tr').length === 1 && document.querySelector('#live').textContent.startsWith('Updated')`)
		o.eval(`window.__sameDocument = true`)

		down.Store(true)
		o.waitFor(`document.querySelector('#live.stale') !== null`)
		if line := o.text("#live"); !strings.Contains(line, "could not be read") || !(strings.Contains(line, "again in 10 s") || strings.Contains(line, "again in 9 s")) {
			t.Fatalf("during the outage the view says %q; want the failure and a 10 s back-off", line)
		}
		second := o.endpoint(apitest.NewReceiver(t, nil).URL, nil) // made while the page cannot see the API
		down.Store(false)
		o.waitFor(fmt.Sprintf(`document.querySelector('#live.stale') === null && document.querySelector('#health tbody tr[data-id=%q]') !== null`, second.ID))
		if same := o.eval(`window.__sameDocument === true`); same != "true" {
			t.Fatal("the page was reloaded")
		}
		if line := o.text("#live"); !strings.HasPrefix(line, "Updated") || strings.Contains(line, "could not") {
			t.Fatalf("after the outage the view says %q", line)
		}

		// The deliveries list follows too: a new delivery appears on top, no reload.
		o.eval(`document.querySelector('#nav a[data-view="deliveries"]').click(); true`)
		o.waitFor(`document.querySelector('#live')?.textContent.startsWith('Updated') && document.querySelector('#deliveries') !== null`)
		o.contact("+79990002101", "Lev")
		o.waitFor(`document.querySelectorAll('#deliveries tbody tr').length === 2 && window.__sameDocument === true`)
	})

	t.Run("the overview reads its slow parts every 30 s: a refresh costs 3 + n calls, and a new dead delivery still shows", func(t *testing.T) {
		t.Parallel() // its own project and tab
		o := sys.owner(t)
		bad := apitest.NewReceiver(t, answer(http.StatusForbidden, "no"))
		o.endpoint(apitest.NewReceiver(t, nil).URL, nil)
		failing := o.endpoint(bad.URL, nil)
		const n = 2 // endpoints shown
		o.open("/")
		o.waitFor(`document.querySelectorAll('#health tbody tr').length === 2 && document.querySelector('#live').textContent.startsWith('Updated')`)
		o.eval(`window.__calls = [];
			const send = window.fetch;
			window.fetch = (...a) => { window.__calls.push(String(a[0])); return send(...a); }; true`)
		time.Sleep(11 * time.Second) // two refreshes
		refreshes, _ := strconv.Atoi(o.eval(`String(window.__calls.filter(u => u.includes('/webhook-endpoints')).length)`))
		calls, _ := strconv.Atoi(o.eval(`String(window.__calls.length)`))
		if refreshes == 0 {
			t.Fatal("no refresh in 11 s")
		}
		t.Logf("%d calls in %d refreshes with %d endpoints: %.1f a refresh (7 + 2n = %d before)", calls, refreshes, n, float64(calls)/float64(refreshes), 7+2*n)
		if calls > refreshes*(3+n) {
			t.Fatalf("%d calls in %d refreshes; want at most %d a refresh", calls, refreshes, 3+n)
		}
		// A delivery that dies now is counted within the slow parts' period.
		o.contact("+79990002201", "Ilya")
		o.waitDelivery(failing.ID, func(d delivery) bool { return d.Status == "dead" })
		o.waitWithin(time.Minute, fmt.Sprintf(`document.querySelector('#health tbody tr[data-id=%q] .dead-count')?.textContent === '1'`, failing.ID))
	})

	t.Run("the overview shows each endpoint's backlog: how many wait, since when, and that they do not drain", func(t *testing.T) {
		t.Parallel() // its own project and tab
		o := sys.owner(t)
		release := make(chan struct{})
		var once sync.Once
		free := func() { once.Do(func() { close(release) }) }
		t.Cleanup(free)
		// Until the test lets it go, the receiver asks to slow down: a
		// throttled attempt keeps its delivery waiting however long the
		// machine takes (a held request would time out, and the delivery
		// would use up its schedule and die, leaving the backlog early).
		rc := apitest.NewReceiver(t, func(_ int, _ *http.Request, w http.ResponseWriter) {
			select {
			case <-release:
				w.WriteHeader(http.StatusOK)
			default:
				w.Header().Set("Retry-After", "2")
				w.WriteHeader(http.StatusTooManyRequests)
			}
		})
		ep := o.endpoint(rc.URL, map[string]any{"max_concurrency": 1})
		const n = 5
		for i := range n {
			o.contact(fmt.Sprintf("+799900023%02d", i), "Wait")
		}
		apitest.Eventually(t, time.Minute, "the deliveries", func() bool { return len(o.deliveries("endpoint_id="+ep.ID)) == n })
		o.open("/")
		cell := fmt.Sprintf(`document.querySelector('#health tbody tr[data-id=%q] td.backlog')`, ep.ID)
		o.waitWithin(time.Minute, fmt.Sprintf(`%s?.textContent.startsWith('%d waiting')`, cell, n))
		if text := o.eval(cell + `.textContent`); !strings.Contains(text, "oldest from") || !strings.Contains(text, "not draining") {
			t.Fatalf("the backlog says %q: want since when, and that nothing drains it", text)
		}
		free()
		o.waitWithin(90*time.Second, cell+`?.textContent === 'none'`)
	})

	t.Run("the overview says how fast each receiver answers: one that takes 600 ms is not shown as fast", func(t *testing.T) {
		t.Parallel() // its own project and tab
		o := sys.owner(t)
		fast := o.endpoint(apitest.NewReceiver(t, nil).URL, nil)
		slow := o.endpoint(apitest.NewReceiver(t, func(_ int, _ *http.Request, w http.ResponseWriter) {
			time.Sleep(600 * time.Millisecond)
			w.WriteHeader(http.StatusOK)
		}).URL, nil)
		o.contact("+79990002401", "Vera")
		o.open("/")
		cell := func(ep endpoint) string {
			return fmt.Sprintf(`document.querySelector('#health tbody tr[data-id=%q] td.latency')?.textContent`, ep.ID)
		}
		// The counters keep a histogram: 600 ms counts under the 1 s bound,
		// or a later one on a loaded machine, never under one in ms.
		o.waitWithin(time.Minute, fmt.Sprintf(`/^p50 ≤ [0-9.]+ sp95 ≤ [0-9.]+ s1 answer$/.test(%s)`, cell(slow)))
		o.waitWithin(time.Minute, fmt.Sprintf(`/^p50 ≤ .*1 answer$/.test(%s)`, cell(fast)))
	})

	t.Run("a hidden tab does not refresh, and refreshes at once when shown again", func(t *testing.T) {
		t.Parallel() // its own project and tab
		o := sys.owner(t)
		o.endpoint(apitest.NewReceiver(t, nil).URL, nil)
		o.open("/")
		o.waitFor(`document.querySelectorAll('#health tbody tr').length === 1 && document.querySelector('#live').textContent.startsWith('Updated')`)
		// The browser tells a page it is hidden through document.hidden and
		// a visibilitychange event; the test says the same.
		o.eval(`window.__calls = 0;
			const send = window.fetch;
			window.fetch = (...a) => { window.__calls++; return send(...a); };
			window.__hidden = true;
			Object.defineProperty(document, 'hidden', { configurable: true, get: () => window.__hidden });
			Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => window.__hidden ? 'hidden' : 'visible' });
			document.dispatchEvent(new Event('visibilitychange')); true`)
		time.Sleep(12 * time.Second) // two refresh periods and more
		if calls := o.eval(`String(window.__calls)`); calls != "0" {
			t.Fatalf("a hidden tab made %s API calls in 12 s; want none", calls)
		}
		o.eval(`window.__hidden = false; document.dispatchEvent(new Event('visibilitychange')); true`)
		o.waitFor(`window.__calls > 0 && /^Updated [0-4] s ago/.test(document.querySelector('#live').textContent)`)
	})

	t.Run("small defects: a spaced URL refused at its field, delete asks with Cancel, no test event to a disabled endpoint, a clamped Recover said, the 409 in the page's words", func(t *testing.T) {
		t.Parallel() // its own project and tab
		o := sys.owner(t)
		rc := apitest.NewReceiver(t, nil)
		ep := o.endpoint(rc.URL, nil)
		spaced := rc.URL + "/a b"
		if r := apitest.Do(t, "POST", sys.rt.URL+"/public/v1/webhook-endpoints", []byte(fmt.Sprintf(`{"url":%s,"events":["*"]}`, js(spaced))),
			"Authorization", "Bearer "+o.key, "Content-Type", "application/json", "Idempotency-Key", fmt.Sprint(time.Now().UnixNano())); r.Status != http.StatusBadRequest {
			t.Fatalf("the API answers a URL with a space inside with %d: %s", r.Status, r.Body)
		}
		o.open("/endpoints")
		card := fmt.Sprintf(`.endpoint[data-id=%q]`, ep.ID)
		o.waitFor(fmt.Sprintf(`document.querySelector(%s) !== null`, js(card+" .health .badge")))
		o.do(chromedp.SetValue(chromedp.CSS("#new-url"), spaced))
		o.click("#create-endpoint", "Create endpoint")
		o.waitFor(`document.querySelector('#new-url').getAttribute('aria-invalid') === 'true'`)
		if msg := o.text("#new-url-error"); !strings.Contains(msg, "no spaces") {
			t.Fatalf("the URL field says %q", msg)
		}
		var page struct {
			Data []json.RawMessage `json:"data"`
		}
		o.api("GET", "/webhook-endpoints", nil, &page)
		if len(page.Data) != 1 {
			t.Fatalf("%d endpoints after a spaced URL; want it refused before sending", len(page.Data))
		}

		o.click(card, "Disable")
		o.waitFor(fmt.Sprintf(`document.querySelector(%s).textContent.startsWith('disabled')`, js(card+" .health .badge")))
		o.click(card, "Send test event")
		o.waitFor(fmt.Sprintf(`document.querySelector(%s) !== null`, js(card+" .warning")))
		if msg := o.text(card + " .warning"); !strings.Contains(msg, "disabled") || strings.Contains(msg, "on its way") {
			t.Fatalf("a test event to a disabled endpoint says %q", msg)
		}

		o.open("/dead-letter")
		o.waitFor(`document.querySelector('#recover') !== null`)
		o.click("#recover", "Recover since…")
		o.waitFor(`document.querySelector('#recover-result .error') !== null`)
		if msg := o.text("#recover-result .error"); !strings.Contains(msg, "ENDPOINT_DISABLED") || strings.Contains(msg, "PATCH") || !strings.Contains(msg, "Enable") {
			t.Fatalf("the 409 says %q: want its code and the page's button, not a PATCH", msg)
		}
		o.api("PATCH", "/webhook-endpoints/"+ep.ID, map[string]any{"enabled": true}, nil)
		o.open("/dead-letter")
		o.waitFor(`document.querySelector('#recover') !== null`)
		old := time.Now().Add(-20 * 24 * time.Hour).Format("2006-01-02T15:04")
		o.eval(fmt.Sprintf(`document.querySelector('#recover-since').value = %s; true`, js(old)))
		o.click("#recover", "Recover since…")
		o.waitFor(`document.querySelector('#recover-result .notice') !== null`)
		if msg := o.text("#recover-result"); !strings.Contains(msg, "reaches back only so far") {
			t.Fatalf("a Recover 20 days back says %q: want the clamp said", msg)
		}

		o.open("/endpoints")
		o.click(card, "Delete")
		o.click("dialog.confirm", "Cancel")
		o.waitFor(`document.querySelector('dialog.confirm') === null`)
		o.api("GET", "/webhook-endpoints", nil, &page)
		if len(page.Data) != 1 {
			t.Fatal("Cancel deleted the endpoint")
		}
		o.click(card, "Delete")
		o.click("dialog.confirm", "Delete endpoint")
		o.waitFor(`document.querySelectorAll('.endpoint').length === 0`)
		o.api("GET", "/webhook-endpoints", nil, &page)
		if len(page.Data) != 0 {
			t.Fatalf("%d endpoints after Delete endpoint", len(page.Data))
		}
	})

	t.Run("Recover waits while a recovery runs, a reload shows the recovery again, and each delivery is sent once", func(t *testing.T) {
		t.Parallel() // its own project and tab
		o := sys.owner(t)
		rc := apitest.NewReceiver(t, answer(http.StatusForbidden, "secret changed"))
		ep := o.endpoint(rc.URL, nil)
		const n = 101 // one more than a recovery's step: the recovery runs on to a second step
		o.contacts(n, "+7999300%04d", "bulk")
		apitest.Eventually(t, manyDeliveries, "the dead deliveries", func() bool {
			return len(o.deliveries("status=dead&cursor_limit=200&endpoint_id="+ep.ID)) == n
		})
		if got := len(rc.Requests()); got != n {
			t.Fatalf("the receiver got %d requests before the recovery; want %d", got, n)
		}
		rc.SetRespond(nil)
		o.open("/dead-letter?endpoint_id=" + ep.ID)
		o.waitFor(`document.querySelector('#recover') !== null`)
		if o.count("#recover-progress .recovery") != 0 {
			t.Fatal("a recovery is shown before any was started")
		}
		o.click("#recover", "Recover since…")
		o.waitFor(`document.querySelector('#recover-result .notice') !== null`)
		first := o.text("#recover-result")
		if !strings.Contains(first, "started") || !strings.Contains(first, "More remain") {
			t.Fatalf("the first Recover says %q; want a started recovery with more to come", first)
		}
		o.waitFor(`document.querySelector('#recover-progress .recovery') !== null`)
		id := o.eval(`document.querySelector('#recover-progress .recovery').dataset.id`)
		// While it runs on its own, Recover is held back and the form says why.
		held := `(() => { const r = document.querySelector('#recover-progress .recovery'); const b = document.querySelector('#recover button[type=submit]');
			return r !== null && (r.dataset.status === 'running' ? b.disabled && !document.querySelector('#recover-running').hidden : !b.disabled) })()`
		if o.eval(`document.querySelector('#recover-progress .recovery').dataset.status`) == "running" {
			if o.eval(held) != "true" {
				t.Fatalf("Recover can be pressed while the recovery runs (%q)", o.text("#recover"))
			}
		}
		o.load("dead-letter?endpoint_id="+ep.ID, "")
		o.waitFor(fmt.Sprintf(`document.querySelector('#recover-progress .recovery')?.dataset.id === %s`, js(id)))
		if o.eval(held) != "true" {
			t.Fatalf("after a reload Recover's state does not follow the recovery's (%q)", o.text("#recover"))
		}
		o.waitWithin(manyDeliveries, fmt.Sprintf(`document.querySelector('#recover-progress .recovery')?.dataset.status === 'completed' && document.querySelector('#recover-progress').textContent.includes(%s)`,
			js(fmt.Sprintf("%d queued: %d delivered, 0 failed again, 0 on their way", n, n))))
		o.waitFor(held + ` && document.querySelector('#recover-running').hidden`)
		time.Sleep(2 * time.Second) // a delivery sent twice would have arrived
		if got := len(rc.Requests()); got != 2*n {
			t.Fatalf("the receiver got %d requests; want %d: each dead delivery and its one recovery", got, 2*n)
		}
	})
}
