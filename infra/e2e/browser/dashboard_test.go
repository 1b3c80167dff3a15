package browser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/botix/public-api/infra/testkit/apitest"
)

// click presses the button labelled label inside scope.
func (o *owner) click(scope, label string) {
	o.t.Helper()
	o.waitFor(fmt.Sprintf(`[...document.querySelectorAll(%s)].some(b => b.textContent === %s && !b.disabled)`, js(scope+" button"), js(label)))
	got := o.eval(fmt.Sprintf(`(() => { const b = [...document.querySelectorAll(%s)].find(b => b.textContent === %s); b.click(); return true })()`, js(scope+" button"), js(label)))
	if got != "true" {
		o.t.Fatalf("no button %q in %s", label, scope)
	}
}

func (o *owner) count(sel string) int {
	n, _ := strconv.Atoi(o.eval(fmt.Sprintf(`document.querySelectorAll(%s).length`, js(sel))))
	return n
}

// waitDelivery waits until the owner's only delivery to an endpoint
// satisfies cond (through the API).
func (o *owner) waitDelivery(endpointID string, cond func(delivery) bool) delivery {
	o.t.Helper()
	var got delivery
	apitest.Eventually(o.t, 40*time.Second, "the delivery", func() bool {
		list := o.deliveries("endpoint_id=" + endpointID)
		if len(list) != 1 {
			return false
		}
		got = o.delivery(list[0].ID)
		return cond(got)
	})
	return got
}

func TestDashboard(t *testing.T) {
	t.Parallel() // its own runtime and browser: nothing shared with the other tests
	sys := start(t)

	t.Run("the key arrives in the fragment, stays in the tab and leaves the address bar", func(t *testing.T) {
		o := sys.owner(t)
		rc := apitest.NewReceiver(t, nil)
		ep := o.endpoint(rc.URL, map[string]any{"description": "orders service"})
		o.contact("+79990001001", "Ivan")
		o.waitDelivery(ep.ID, func(d delivery) bool { return d.Status == "delivered" })
		o.open("/")
		o.waitFor(`document.querySelectorAll('#health tbody tr').length === 1`)
		if href := o.eval(`location.href`); strings.Contains(href, "key") || strings.Contains(href, "#") {
			t.Fatalf("the key is still in the address bar: %s", href)
		}
		if got := o.eval(`sessionStorage.getItem('botix.dashboard.key')`); got != o.key {
			t.Fatalf("sessionStorage holds %q", got)
		}
		if got := o.eval(`localStorage.length`); got != "0" {
			t.Fatalf("localStorage has %s items; the key belongs in sessionStorage only", got)
		}
		o.waitFor(`document.querySelector('figure.chart figcaption').textContent.includes('1 delivered')`)
		health := o.text("#health tbody tr")
		for _, want := range []string{rc.URL, "orders service", "healthy", "100.0 % of 1 attempt"} {
			if !strings.Contains(health, want) {
				t.Fatalf("endpoint health %q lacks %q", health, want)
			}
		}
		o.screenshot("overview")
	})

	t.Run("the overview shows an endpoint's latest health event, as text", func(t *testing.T) {
		o := sys.owner(t)
		gone := apitest.NewReceiver(t, func(_ int, _ *http.Request, w http.ResponseWriter) { w.WriteHeader(http.StatusGone) })
		ep := o.endpoint(gone.URL, nil)
		o.endpoint(apitest.NewReceiver(t, nil).URL, map[string]any{"events": []string{"webhook_endpoint.disabled"}})
		o.contact("+79990001002", "Olga")
		apitest.Eventually(t, 40*time.Second, "the disabled event", func() bool {
			var page struct {
				Data []json.RawMessage `json:"data"`
			}
			o.api("GET", "/events?type=webhook_endpoint.disabled", nil, &page)
			return len(page.Data) == 1
		})
		o.open("/")
		row := fmt.Sprintf(`[...document.querySelectorAll('#health tbody tr')].find(r => r.textContent.includes(%s))`, js(ep.ID))
		o.waitFor(row + `?.querySelector('.health-event') != null`)
		if got := o.eval(row + `.querySelector('.health-event').textContent`); !strings.HasPrefix(got, "disabled ") || !strings.Contains(got, "the endpoint answered 410 Gone") {
			t.Fatalf("latest health event %q", got)
		}
	})
	t.Run("chart labels: hours in the owner's time zone, days as the UTC days they count", func(t *testing.T) {
		// St. John's is UTC-3:30: an hour labelled without its minutes, or
		// a UTC day labelled with the local date, shows here.
		const zone = "America/St_Johns"
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		o := sys.owner(t)
		o.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: zone})
			return err
		}))
		o.open("/")
		o.waitFor(`document.querySelectorAll('figure.chart svg text[text-anchor=middle]').length > 0`)
		var charts []struct {
			Starts, Labels []string
		}
		if err := json.Unmarshal([]byte(o.eval(`[...document.querySelectorAll('figure.chart svg')].map(s => ({
			Starts: [...s.querySelectorAll('g > title')].map(t => t.textContent.split(': ')[0]),
			Labels: [...s.querySelectorAll('text[text-anchor=middle]')].map(t => t.textContent)}))`)), &charts); err != nil || len(charts) != 2 {
			t.Fatalf("charts %+v %v", charts, err)
		}
		for i, c := range charts {
			every, format, in := 6, "15:04", loc // the hourly chart, then the daily one
			if i == 1 {
				every, format, in = 3, "01-02", time.UTC
			}
			var want []string
			for k, start := range c.Starts {
				ts, err := time.Parse(time.RFC3339, start)
				if err != nil {
					t.Fatalf("bucket start %q: %v", start, err)
				}
				if k%every == 0 {
					want = append(want, ts.In(in).Format(format))
				}
			}
			if strings.Join(c.Labels, " ") != strings.Join(want, " ") {
				t.Errorf("chart %d labels %v, want %v (buckets %v)", i, c.Labels, want, c.Starts)
			}
		}
	})

	t.Run("a wrong key shows the API's message and the login form; the keyboard signs in", func(t *testing.T) {
		o := sys.owner(t)
		o.do(chromedp.Navigate(sys.rt.URL + "/dashboard/deliveries#key=bx_live_thiskeydoesnotexist0000000000000000000000"))
		o.waitFor(`document.querySelector('#api-key') !== null && document.querySelector('.login .error') !== null`)
		msg := o.text(".login .error")
		if !strings.Contains(msg, "refused the key") || !strings.Contains(msg, "req_") {
			t.Fatalf("login message %q: want the API's message and request id", msg)
		}
		if got := o.eval(`sessionStorage.getItem('botix.dashboard.key')`); got != "null" {
			t.Fatalf("a refused key stays stored: %s", got)
		}
		o.screenshot("login-refused")
		o.do(chromedp.SendKeys(chromedp.CSS("#api-key"), o.key+"\r"))
		o.waitFor(`document.querySelector('#view h1').textContent === 'Overview'`)
		o.eval(`document.querySelector('#nav a[data-view="endpoints"]').focus()`)
		o.do(chromedp.KeyEvent("\r"))
		o.waitFor(`document.querySelector('#view h1').textContent === 'Endpoints' && location.pathname === '/dashboard/endpoints'`)
	})

	t.Run("a receiver that fails twice shows three attempts; Retry adds a manual one; Redirect shows the capture", func(t *testing.T) {
		o := sys.owner(t)
		rc := apitest.NewReceiver(t, func(n int, r *http.Request, w http.ResponseWriter) {
			if n < 2 {
				answer(http.StatusServiceUnavailable, "busy")(n, r, w)
				return
			}
			w.WriteHeader(http.StatusOK)
		})
		ep := o.endpoint(rc.URL, nil)
		o.contact("+79990001002", "Olga")
		d := o.waitDelivery(ep.ID, func(d delivery) bool { return d.Status == "delivered" })
		if len(d.Attempts) != 3 {
			t.Fatalf("%d attempts through the API", len(d.Attempts))
		}
		o.open("/deliveries/" + d.ID)
		o.waitFor(`document.querySelectorAll('#attempts > li').length === 3`)
		if timeline := o.text("#attempts"); strings.Count(timeline, "HTTP 503") != 2 || !strings.Contains(timeline, "HTTP 200") {
			t.Fatalf("timeline %q", timeline)
		}
		if payload := o.text("#payload"); !strings.Contains(payload, `"phone": "+79990001002"`) {
			t.Fatalf("payload is not pretty-printed JSON: %q", payload)
		}
		o.screenshot("delivery-detail")

		// The delivery was delivered: Retry asks first, and Cancel sends nothing.
		o.click("#view .actions", "Retry now")
		o.click("dialog.confirm", "Cancel")
		o.waitFor(`document.querySelector('dialog.confirm') === null`)
		time.Sleep(1500 * time.Millisecond)
		if n := len(rc.Requests()); n != 3 {
			t.Fatalf("a cancelled retry of a delivered delivery reached the receiver: %d requests", n)
		}
		o.click("#view .actions", "Retry now")
		o.click("dialog.confirm", "Send it again")
		o.waitFor(`document.querySelectorAll('#attempts > li').length === 4`)
		o.waitFor(`document.querySelector('#action-result').textContent.includes('was delivered (HTTP 200)')`)
		d = o.delivery(d.ID)
		last := d.Attempts[len(d.Attempts)-1]
		if last.Kind != "manual" || last.RequestID == d.Attempts[2].RequestID {
			t.Fatalf("after Retry now: %+v", d.Attempts)
		}
		if got := o.eval(`document.querySelector('#attempts > li:last-child').dataset.kind`); got != "manual" {
			t.Fatalf("the page shows a %q attempt last", got)
		}

		o.click("#view .actions", "Redirect to inspector")
		o.waitFor(`document.querySelector('#captured .captured-body') !== null`)
		if body := o.text("#captured .captured-body"); !strings.Contains(body, "+79990001002") {
			t.Fatalf("the inspector captured %q", body)
		}
		insp := o.eval(`JSON.parse(sessionStorage.getItem('botix.dashboard.inspector')).id`)
		o.click("#view .actions", "Redirect to inspector")
		o.waitFor(`document.querySelectorAll('#captured .captured-body').length === 2`)
		if again := o.eval(`JSON.parse(sessionStorage.getItem('botix.dashboard.inspector')).id`); again != insp {
			t.Fatalf("a second redirect made inspector %s; want %s reused", again, insp)
		}
	})

	t.Run("a dead delivery is recovered from the dead letter once the receiver is fixed; a 409 shows its message", func(t *testing.T) {
		o := sys.owner(t)
		rc := apitest.NewReceiver(t, answer(http.StatusUnauthorized, "who are you?"))
		ep := o.endpoint(rc.URL, nil)
		o.contact("+79990001003", "Pyotr")
		d := o.waitDelivery(ep.ID, func(d delivery) bool { return d.Status == "dead" })
		o.open("/dead-letter")
		o.waitFor(fmt.Sprintf(`document.querySelector('#deliveries tbody') && document.querySelector('#deliveries tbody').textContent.includes(%s)`, js(d.ID)))
		if row := o.text("#deliveries tbody tr"); !strings.Contains(row, "401") {
			t.Fatalf("dead row %q lacks the reason", row)
		}
		o.screenshot("dead-letter")

		rc.SetRespond(nil)
		o.click("#recover", "Recover since…")
		o.waitFor(`document.querySelector('#recover-result .notice') !== null`)
		if msg := o.text("#recover-result"); !strings.Contains(msg, "rcv_") || !strings.Contains(msg, "1 failed or dead") {
			t.Fatalf("recovery message %q", msg)
		}
		o.waitDelivery(ep.ID, func(d delivery) bool { return d.Status == "delivered" })
		if n := len(rc.Requests()); n != 2 {
			t.Fatalf("the receiver got %d requests; want the dead one and its recovery", n)
		}
		o.open("/endpoints")
		recovery := fmt.Sprintf(`.endpoint[data-id=%q] .recovery`, ep.ID)
		o.waitFor(fmt.Sprintf(`document.querySelector(%s) && document.querySelector(%s).textContent !== ''`, js(recovery), js(recovery)))
		if line := o.text(recovery); !strings.Contains(line, "completed") || !strings.Contains(line, "1 queued") || !strings.Contains(line, "rcv_") {
			t.Fatalf("the endpoint's card tells its recovery as %q", line)
		}
		o.open("/dead-letter")
		o.waitFor(`document.querySelector('#recover') !== null`)

		o.api("PATCH", "/webhook-endpoints/"+ep.ID, map[string]any{"enabled": false}, nil)
		o.click("#recover", "Recover since…")
		o.waitFor(`document.querySelector('#recover-result .error') !== null`)
		if msg := o.text("#recover-result .error"); !strings.Contains(msg, "ENDPOINT_DISABLED") || !strings.Contains(msg, "req_") {
			t.Fatalf("a 409 shows %q; want its code, message and request id", msg)
		}
	})

	t.Run("an endpoint created or rotated shows its secret once", func(t *testing.T) {
		o := sys.owner(t)
		rc := apitest.NewReceiver(t, nil)
		ep := o.endpoint(rc.URL, nil)
		o.open("/endpoints")
		card := fmt.Sprintf(`.endpoint[data-id=%q]`, ep.ID)
		o.click(card, "Rotate secret")
		o.waitFor(`document.querySelector('#secret-value') !== null`)
		if s := o.text("#secret-value"); !strings.HasPrefix(s, "whsec_") || s == ep.Secret {
			t.Fatalf("rotation shows %q (old %q)", s, ep.Secret)
		}
		o.screenshot("endpoints")

		o.do(chromedp.SetValue(chromedp.CSS("#new-url"), rc.URL+"/second"), chromedp.SetValue(chromedp.CSS("#new-description"), "made in the browser"))
		o.eval(`document.getElementById('new-ev-*').click(); document.getElementById('new-ev-message.sent').click(); true`)
		o.click("#create-endpoint", "Create endpoint")
		o.waitFor(`document.querySelector('#secret').textContent.includes('Signing secret of we_') && document.querySelectorAll('.endpoint').length === 2`)
		var page struct {
			Data []struct {
				URL    string   `json:"url"`
				Events []string `json:"events"`
			} `json:"data"`
		}
		o.api("GET", "/webhook-endpoints", nil, &page)
		if len(page.Data) != 2 || page.Data[0].URL != rc.URL+"/second" || strings.Join(page.Data[0].Events, ",") != "message.sent" {
			t.Fatalf("endpoints after the form: %+v", page.Data)
		}

		o.click(card, "Send test event")
		apitest.Eventually(t, 30*time.Second, "the test event", func() bool {
			for _, r := range rc.Requests() {
				if strings.Contains(string(r.Body), `"type":"webhook.test"`) {
					return true
				}
			}
			return false
		})
		o.click(card, "Disable")
		o.waitFor(fmt.Sprintf(`document.querySelector(%s).textContent.includes('disabled')`, js(card)))
	})

	t.Run("receiver and payload text is rendered as text, never as HTML", func(t *testing.T) {
		o := sys.owner(t)
		xss := `<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>`
		rc := apitest.NewReceiver(t, answer(http.StatusUnauthorized, xss))
		ep := o.endpoint(rc.URL, map[string]any{"description": xss})
		o.contact("+79990001004", xss)
		d := o.waitDelivery(ep.ID, func(d delivery) bool { return d.Status == "dead" })
		for path, shown := range map[string]string{"/deliveries/" + d.ID: "#payload", "/": "#health", "/endpoints": ".endpoint"} {
			o.open(path)
			o.waitFor(fmt.Sprintf(`document.querySelector(%s) !== null`, js(shown)))
			o.eval(`document.querySelectorAll('details').forEach(d => d.open = true); true`)
			time.Sleep(300 * time.Millisecond) // an injected onerror would have run by now
			if got := o.eval(`typeof window.__pwned`); got != "undefined" {
				t.Fatalf("%s: receiver text ran as HTML (window.__pwned is %s)", path, got)
			}
			if n := o.count("#view img, #view script"); n != 0 {
				t.Fatalf("%s: %d elements parsed from receiver or payload text", path, n)
			}
			if !strings.Contains(o.text("#view"), xss) {
				t.Fatalf("%s: the text %q is not shown as text", path, xss)
			}
		}
	})

	t.Run("filters live in the page URL and survive a reload", func(t *testing.T) {
		o := sys.owner(t)
		ok := o.endpoint(apitest.NewReceiver(t, nil).URL, nil)
		bad := o.endpoint(apitest.NewReceiver(t, answer(http.StatusUnauthorized, "no")).URL, nil)
		o.contact("+79990001005", "Anna")
		o.waitDelivery(ok.ID, func(d delivery) bool { return d.Status == "delivered" })
		o.waitDelivery(bad.ID, func(d delivery) bool { return d.Status == "dead" })
		o.open("/deliveries")
		o.waitFor(`document.querySelectorAll('#deliveries tbody tr').length === 2`)
		// Two search landmarks (the header's id search, the filters), each
		// named apart, and a description for the page.
		if names := o.eval(`[...document.querySelectorAll('[role=search]')].map(f => f.getAttribute('aria-label') || '').join('|')`); names != "Find an id|Filter deliveries" {
			t.Fatalf("search landmarks named %q", names)
		}
		if d := o.eval(`document.querySelector('meta[name=description]')?.content || ''`); d == "" {
			t.Fatal("the page has no description")
		}
		o.do(chromedp.SetValue(chromedp.CSS("#status"), "dead"), chromedp.SetValue(chromedp.CSS("#event_type"), "contact.created"))
		o.click("#filters", "Apply")
		o.waitFor(`location.search.includes('status=dead') && document.querySelectorAll('#deliveries tbody tr').length === 1`)
		o.do(chromedp.Reload())
		o.waitFor(`document.querySelector('#status') && document.querySelectorAll('#deliveries tbody tr').length === 1`)
		for sel, want := range map[string]string{"#status": "dead", "#event_type": "contact.created"} {
			if got := o.eval(fmt.Sprintf(`document.querySelector(%s).value`, js(sel))); got != want {
				t.Fatalf("after a reload %s is %q; want %q", sel, got, want)
			}
		}
		if row := o.text("#deliveries tbody tr"); !strings.Contains(row, "dead") {
			t.Fatalf("filtered row %q", row)
		}
		o.do(chromedp.NavigateBack())
		o.waitFor(`location.search === '' && document.querySelectorAll('#deliveries tbody tr').length === 2`)
	})

	t.Run("time fields take ISO times whatever the browser's locale; a time that does not exist is refused at its field", func(t *testing.T) {
		o := sys.owner(t)
		o.open("/deliveries?since=2026-12-01T06:00:00Z")
		o.waitFor(`document.querySelector('#since') !== null`)
		if kind := o.eval(`document.querySelector('#since').type`); kind != "text" {
			t.Fatalf("the since field is a %q field: its picker would speak the browser's locale", kind)
		}
		want := o.eval(`(() => { const d = new Date('2026-12-01T06:00:00Z'); const p = n => String(n).padStart(2, '0');
			return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + ' ' + p(d.getHours()) + ':' + p(d.getMinutes()) })()`)
		if got := o.eval(`document.querySelector('#since').value`); got != want {
			t.Fatalf("since=2026-12-01T06:00:00Z shows as %q; want %q", got, want)
		}
		typeIn := func(sel, text string) {
			o.eval(fmt.Sprintf(`(() => { const f = document.querySelector(%s); f.value = %s; f.dispatchEvent(new Event('input')); return true })()`, js(sel), js(text)))
		}
		for _, bad := range []string{"2026-02-30 10:00", "12/01/2026, 09:00 AM", "2026-12-01 25:00"} {
			typeIn("#since", bad)
			o.click("#filters", "Apply")
			if v := o.eval(`document.querySelector('#since').validity.valid`); v != "false" {
				t.Fatalf("%q: the field is valid", bad)
			}
			if q := o.eval(`new URLSearchParams(location.search).get('since')`); q != "2026-12-01T06:00:00Z" {
				t.Fatalf("%q: the filter was applied anyway (since=%s)", bad, q)
			}
		}
		typeIn("#since", "2026-11-30 09:30")
		o.click("#filters", "Apply")
		o.waitFor(`new URLSearchParams(location.search).get('since') === new Date(2026, 10, 30, 9, 30).toISOString().replace('.000Z', 'Z')`)

		o.open("/dead-letter")
		o.waitFor(`document.querySelector('#dl-since') !== null`)
		for _, sel := range []string{"#dl-since", "#dl-until"} {
			if kind := o.eval(fmt.Sprintf(`document.querySelector(%s).type`, js(sel))); kind != "text" {
				t.Fatalf("%s is a %q field", sel, kind)
			}
		}
	})

	t.Run("the event id filter finds one event's deliveries, lives in the page URL, refuses a malformed id", func(t *testing.T) {
		o := sys.owner(t)
		ep := o.endpoint(apitest.NewReceiver(t, nil).URL, nil)
		o.contact("+79990001006", "Olga")
		o.contact("+79990001007", "Oleg")
		var all []delivery
		apitest.Eventually(t, 40*time.Second, "two deliveries", func() bool {
			all = o.deliveries("endpoint_id=" + ep.ID)
			return len(all) == 2
		})
		want := all[1] // the older event's delivery: not the first row unfiltered
		o.open("/deliveries")
		o.waitFor(`document.querySelectorAll('#deliveries tbody tr').length === 2`)
		o.do(chromedp.SetValue(chromedp.CSS("#event_id"), "evt_typo"))
		if got := o.eval(`document.querySelector('#event_id').validity.patternMismatch`); got != "true" {
			t.Fatalf("a malformed event id passes the field's check: %s", got)
		}
		o.click("#filters", "Apply")
		if got := o.eval(`location.search`); got != "" {
			t.Fatalf("a malformed event id was applied: %s", got)
		}
		o.do(chromedp.SetValue(chromedp.CSS("#event_id"), " "+want.EventID+" "))
		o.click("#filters", "Apply")
		o.waitFor(fmt.Sprintf(`location.search === %s && document.querySelectorAll('#deliveries tbody tr').length === 1`, js("?event_id="+want.EventID)))
		o.do(chromedp.Reload())
		o.waitFor(`document.querySelector('#event_id') && document.querySelectorAll('#deliveries tbody tr').length === 1`)
		if got := o.eval(`document.querySelector('#event_id').value`); got != want.EventID {
			t.Fatalf("after a reload the event id field holds %q", got)
		}
		if row := o.text("#deliveries tbody tr"); !strings.Contains(row, want.ID) {
			t.Fatalf("filtered row %q lacks %s", row, want.ID)
		}
		o.open("/deliveries/" + all[0].ID)
		o.waitFor(`[...document.querySelectorAll('#view a')].some(a => a.textContent === 'All its deliveries')`)
		o.eval(`[...document.querySelectorAll('#view a')].find(a => a.textContent === 'All its deliveries').click()`)
		o.waitFor(fmt.Sprintf(`location.search === %s && document.querySelectorAll('#deliveries tbody tr').length === 1`, js("?event_id="+all[0].EventID)))
		if row := o.text("#deliveries tbody tr"); !strings.Contains(row, all[0].ID) {
			t.Fatalf("the event's deliveries %q lack %s", row, all[0].ID)
		}
	})

	t.Run("200 deliveries render as one page; a phone needs no sideways scrolling; every field has a label", func(t *testing.T) {
		o := sys.owner(t)
		ep := o.endpoint(apitest.NewReceiver(t, nil).URL, nil)
		o.contacts(200, "+7999100%04d", "bulk")
		apitest.Eventually(t, manyDeliveries, "200 deliveries", func() bool {
			return len(o.deliveries("status=delivered&cursor_limit=200&endpoint_id="+ep.ID)) == 200
		})
		o.open("/deliveries?limit=200")
		o.waitFor(`document.body.dataset.rows === '200'`)
		t.Logf("the deliveries view rendered 200 rows in %s ms (Chromium, headless)", o.eval(`document.body.dataset.renderMs`))
		if n := o.count("#deliveries tbody tr"); n != 200 {
			t.Fatalf("%d rows", n)
		}
		o.screenshot("deliveries")
		for _, path := range []string{"/deliveries", "/endpoints", "/dead-letter"} {
			o.open(path)
			o.waitFor(`document.querySelector('#view form') !== null`)
			if unlabelled := o.eval(`[...document.querySelectorAll('#view input, #view select')].filter(i => i.labels.length === 0).map(i => i.id || i.name).join(',')`); unlabelled != "" {
				t.Fatalf("%s: fields without a label: %s", path, unlabelled)
			}
		}
		o.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
		for _, path := range []string{"/", "/deliveries", "/endpoints"} {
			o.open(path)
			o.waitFor(`document.querySelector('#view form, #view .table-wrap') !== null`)
			if w := o.eval(`document.documentElement.scrollWidth`); w != "390" {
				t.Fatalf("%s at 390 px wide: the page is %s px wide", path, w)
			}
		}
		o.screenshot("deliveries-phone")
		// A card per row, each cell's name beside its value: 200 rows make
		// a list a phone can scroll, and each card stays within a screen.
		o.open("/deliveries?limit=200")
		o.waitFor(`document.body.dataset.rows === '200'`)
		perRow := o.eval(`Math.round(document.querySelector('#deliveries').getBoundingClientRect().height / 200)`)
		t.Logf("the deliveries list on a phone: %s px per row", perRow)
		o.screenshot("deliveries-phone-cards")
		if n, _ := strconv.Atoi(perRow); n == 0 || n > 240 {
			t.Fatalf("a delivery's card on a phone is %s px tall; want at most 240 (316 with each name above its value)", perRow)
		}
		// The overview leads with the endpoints' health: its first row is on
		// the first screen, the charts below it.
		o.open("/")
		o.waitFor(`document.querySelector('#health tbody tr') !== null`)
		top := o.eval(`Math.round(document.querySelector('#health tbody tr').getBoundingClientRect().top + window.scrollY)`)
		t.Logf("the overview on a phone: the first endpoint row at %s px of 844", top)
		if n, _ := strconv.Atoi(top); n == 0 || n > 600 {
			t.Fatalf("on a phone the first endpoint row is at %s px; want it on the first screen, above 600 px", top)
		}
	})
}
