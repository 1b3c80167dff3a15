package browser_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/botix/public-api/infra/testkit/apitest"
)

// session makes a dashboard session with the owner's key.
func (o *owner) session(scope string, ttl int) (id, token string) {
	o.t.Helper()
	var s struct {
		ID    string `json:"id"`
		Token string `json:"token"`
	}
	o.api("POST", "/dashboard-sessions", map[string]any{"scope": scope, "ttl_seconds": ttl}, &s)
	return s.ID, s.Token
}

// holder is a teammate's tab signed in with a session token of the
// owner's project.
func (o *owner) holder(t *testing.T, token string) *owner {
	t.Helper()
	h := o.sys.owner(t) // a tab of its own (its project is not used)
	h.key = token
	return h
}

// fetchFromPage calls the API from the page's context, with the token the
// tab holds, and returns "<status> <error code>".
func (o *owner) fetchFromPage(method, path string) string {
	o.t.Helper()
	o.eval(fmt.Sprintf(`window.__answer = undefined; fetch('/public/v1' + %s, { method: %s, headers: {
		Authorization: 'Bearer ' + sessionStorage.getItem('botix.dashboard.key'), 'Idempotency-Key': crypto.randomUUID() } })
		.then(async r => { const b = await r.json().catch(() => ({})); window.__answer = r.status + ' ' + ((b.error && b.error.code) || ''); },
		      e => { window.__answer = 'failed ' + e.message; }); true`, js(path), js(method)))
	o.waitFor(`window.__answer !== undefined`)
	return o.eval(`window.__answer`)
}

// buttons is the labels of the buttons under sel.
func (o *owner) buttons(sel string) string {
	return o.eval(fmt.Sprintf(`[...document.querySelectorAll(%s)].map(b => b.textContent).join('|')`, js(sel+" button")))
}

// TestDashboardSessions: a dashboard session opens the page without the
// key and shows only what its scope allows (the API refusing the rest from
// the page itself); expiry and revocation end it with a message; the key
// holder creates and revokes sessions from the page; the header's search
// box finds a delivery by event, delivery and request id.
func TestDashboardSessions(t *testing.T) {
	t.Parallel() // its own runtime and browser: nothing shared with the other tests
	sys := start(t)
	o := sys.owner(t)
	rc := apitest.NewReceiver(t, answer(http.StatusUnauthorized, "who are you?"))
	ep := o.endpoint(rc.URL, nil)
	o.contact("+79990002001", "Nina")
	dead := o.waitDelivery(ep.ID, func(d delivery) bool { return d.Status == "dead" && len(d.Attempts) > 0 })
	deadRow := fmt.Sprintf(`document.querySelector('#deliveries tbody') && document.querySelector('#deliveries tbody').textContent.includes(%s)`, js(dead.ID))

	// The shortest session the API makes: opened now, checked at the end.
	_, shortToken := o.session("read", 60)
	short := o.holder(t, shortToken)
	short.open("/")
	shortOpened := time.Now()

	t.Run("a read-only session: no Retry, Recover, Rotate or edits, and the API refuses them from the page", func(t *testing.T) {
		_, token := o.session("read", 600)
		h := o.holder(t, token)
		h.open("/dead-letter")
		h.waitFor(deadRow)
		if who := h.text("#who-key"); !strings.HasPrefix(who, "read-only session, expires ") || !strings.Contains(who, "(") {
			t.Fatalf("the header says %q", who)
		}
		if b := h.buttons("#view"); strings.Contains(b, "Retry") || h.count("#recover") != 0 {
			t.Fatalf("dead letter buttons %q, recover form %d", b, h.count("#recover"))
		}
		h.load("deliveries/"+dead.ID, "")
		h.waitFor(`document.querySelector('#attempts') !== null`)
		if b := h.buttons("#view"); strings.Contains(b, "Retry now") || strings.Contains(b, "Redirect") {
			t.Fatalf("delivery buttons %q", b)
		}
		h.load("endpoints", "")
		h.waitFor(fmt.Sprintf(`document.querySelector('.endpoint[data-id=%s]') !== null`, js(ep.ID)))
		if b := h.buttons("#view"); b != "" || h.count("#create-endpoint") != 0 {
			t.Fatalf("endpoint buttons %q, create form %d", b, h.count("#create-endpoint"))
		}
		if h.eval(`document.getElementById('nav-sessions').hidden`) != "true" {
			t.Fatal("a session is offered the Sessions view")
		}
		for _, call := range [][2]string{{"POST", "/webhook-deliveries/" + dead.ID + "/retry"}, {"POST", "/webhook-endpoints/" + ep.ID + "/rotate-secret"}} {
			if got := h.fetchFromPage(call[0], call[1]); got != "403 INSUFFICIENT_SCOPE" {
				t.Errorf("%s %s from the page: %s", call[0], call[1], got)
			}
		}
		h.screenshot("session-read-only")
	})

	t.Run("a read_retry session retries but cannot rotate", func(t *testing.T) {
		_, token := o.session("read_retry", 600)
		h := o.holder(t, token)
		h.open("/dead-letter")
		h.waitFor(deadRow)
		if who := h.text("#who-key"); !strings.HasPrefix(who, "read + retry session, expires ") {
			t.Fatalf("the header says %q", who)
		}
		if h.count("#recover") != 1 {
			t.Fatal("no Recover form for a read_retry session")
		}
		h.click("#deliveries", "Retry")
		// The row tells what became of the retry: queued, then delivered
		// or failed again.
		h.waitFor(fmt.Sprintf(`document.querySelector('#deliveries tr[data-id=%s] td.retry').textContent.startsWith('retr')`, js(dead.ID)))
		apitest.Eventually(t, 30*time.Second, "the manual attempt", func() bool {
			for _, a := range o.delivery(dead.ID).Attempts {
				if a.Kind == "manual" {
					return true
				}
			}
			return false
		})
		h.load("endpoints", "")
		h.waitFor(fmt.Sprintf(`document.querySelector('.endpoint[data-id=%s]') !== null`, js(ep.ID)))
		if b := h.buttons("#view"); b != "" {
			t.Fatalf("endpoint buttons %q", b)
		}
		if got := h.fetchFromPage("POST", "/webhook-endpoints/"+ep.ID+"/rotate-secret"); got != "403 INSUFFICIENT_SCOPE" {
			t.Errorf("rotate from the page: %s", got)
		}
	})

	t.Run("a revoked session: the next step shows why and returns to the login form", func(t *testing.T) {
		id, token := o.session("read", 600)
		h := o.holder(t, token)
		h.open("/")
		// The overview read in full: no call of it is still on its way.
		h.waitFor(`document.getElementById('who-key').textContent.startsWith('read-only session') && document.querySelector('#health tbody tr') !== null`)
		o.api("DELETE", "/dashboard-sessions/"+id, nil, nil)
		if h.storedKey() != token {
			t.Fatal("the session ended before the next step")
		}
		h.do(chromedp.Click(`#nav a[data-view=deliveries]`))
		h.waitFor(`document.querySelector('#api-key') !== null`)
		if msg := h.text("#view .error"); !strings.Contains(msg, "dashboard session (expired or revoked)") {
			t.Fatalf("login message %q", msg)
		}
		if h.storedKey() != "null" || h.eval(`document.getElementById('nav').hidden`) != "true" {
			t.Fatal("the revoked token is still held, or the frame still shown")
		}
	})

	t.Run("the key holder creates a session on the page, sees its token once, and revokes it", func(t *testing.T) {
		o.open("/sessions")
		o.waitFor(`document.querySelector('#create-session') !== null`)
		o.eval(`document.getElementById('session-scope').value = 'read_retry'; document.getElementById('session-ttl').value = '900'; true`)
		o.click("#create-session", "Create session")
		o.waitFor(`document.querySelector('#session-token') !== null`)
		token := o.text("#session-token")
		if !strings.HasPrefix(token, "bxs_") || !strings.Contains(o.text("#session-link"), "/dashboard/#key="+token) {
			t.Fatalf("token %q, link %q", token, o.text("#session-link"))
		}
		r := apitest.Do(t, "GET", sys.rt.URL+"/public/v1/dashboard-sessions/current", nil, "Authorization", "Bearer "+token)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"scope":"read_retry"`) {
			t.Fatalf("the new session: %d %s", r.Status, r.Body)
		}
		var made struct {
			ID string `json:"id"`
		}
		r.JSON(t, &made)
		row := fmt.Sprintf("#session-list li[data-id=%s]", made.ID)
		o.waitFor(fmt.Sprintf(`document.querySelector(%s) !== null && document.querySelector(%s).textContent.includes('(this tab)')`, js(row), js(row)))
		o.click(row, "Revoke")
		o.waitFor(fmt.Sprintf(`document.querySelector('#view .notice') !== null && document.querySelector(%s) === null`, js(row)))
		if r := apitest.Do(t, "GET", sys.rt.URL+"/public/v1/webhook-deliveries", nil, "Authorization", "Bearer "+token); r.Status != 401 {
			t.Fatalf("the revoked token: %d %s", r.Status, r.Body)
		}
	})

	t.Run("the Sessions view lists every live session of the project, made anywhere, with its key; Revoke ends it", func(t *testing.T) {
		id, token := o.session("read", 600)
		var listed struct {
			Data []struct {
				ID    string `json:"id"`
				KeyID string `json:"key_id"`
			} `json:"data"`
		}
		apitest.Do(t, "GET", sys.rt.URL+"/public/v1/dashboard-sessions", nil, "Authorization", "Bearer "+o.key).JSON(t, &listed)
		keyID := ""
		for _, s := range listed.Data {
			if s.ID == id {
				keyID = s.KeyID
			}
		}
		if !strings.HasPrefix(keyID, "key_") {
			t.Fatalf("the API lists %+v", listed.Data)
		}
		o.open("/sessions")
		row := fmt.Sprintf("#session-list li[data-id=%s]", id)
		o.waitFor(fmt.Sprintf(`document.querySelector(%s) !== null`, js(row)))
		if text := o.text(row); !strings.Contains(text, keyID) || !strings.Contains(text, "read") || strings.Contains(text, token) || strings.Contains(text, "(this tab)") {
			t.Fatalf("the row says %q", text)
		}
		o.click(row, "Revoke")
		o.waitFor(fmt.Sprintf(`document.querySelector(%s) === null`, js(row)))
		if r := apitest.Do(t, "GET", sys.rt.URL+"/public/v1/webhook-deliveries", nil, "Authorization", "Bearer "+token); r.Status != 401 {
			t.Fatalf("the revoked token: %d %s", r.Status, r.Body)
		}
	})

	t.Run("search by event id, delivery id and request id lands on the delivery", func(t *testing.T) {
		rid := dead.Attempts[0].RequestID
		// Two deliveries more, of another event, so that a search that did
		// not filter would show three rows.
		o.endpoint(apitest.NewReceiver(t, nil).URL, nil)
		o.contact("+79990002002", "Oleg")
		apitest.Eventually(t, 30*time.Second, "three deliveries", func() bool { return len(o.deliveries("")) == 3 })
		o.open("/")
		search := func(id string) {
			o.eval(fmt.Sprintf(`document.getElementById('search-id').value = %s; document.getElementById('search').requestSubmit(); true`, js(id)))
		}
		// As a ticket pastes them: the id, with blanks, in lower case, or
		// with the header line it came in.
		for _, id := range []string{dead.EventID, " " + rid + " ", strings.ToLower(dead.EventID), "webhook-id: " + dead.EventID, "X-Botix-Request-Id: " + rid} {
			o.open("/")
			search(id)
			o.waitFor(deadRow + ` && document.querySelectorAll('#deliveries tbody tr').length === 1`)
		}
		if !strings.Contains(o.eval(`location.search`), "request_id="+rid) || !strings.Contains(o.text("#request-filter"), rid) {
			t.Fatalf("the request id search shows %s: %q", o.eval(`location.search`), o.text("#request-filter"))
		}
		search(dead.ID)
		o.waitFor(fmt.Sprintf(`location.pathname === %s && document.querySelector('#attempts') !== null`, js("/dashboard/deliveries/"+dead.ID)))
		search("webhook-123")
		o.waitFor(`document.querySelector('#flash .error') !== null`)
		if o.eval(`document.getElementById('search-id').getAttribute('aria-invalid')`) != "true" {
			t.Fatal("a text that is no id is not marked at the field")
		}
		if msg := o.text("#flash .error"); !strings.Contains(msg, "kept 14 days") {
			t.Fatalf("the refusal says %q: it should say how long deliveries are kept", msg)
		}
	})

	t.Run("an expired session returns to the login form by itself, saying when it expired", func(t *testing.T) {
		if wait := time.Until(shortOpened.Add(62 * time.Second)); wait > 0 {
			time.Sleep(wait)
		}
		short.waitFor(`document.querySelector('#api-key') !== null`)
		if msg := short.text("#view .error"); !strings.Contains(msg, "The dashboard session expired at ") {
			t.Fatalf("login message %q", msg)
		}
	})
}
