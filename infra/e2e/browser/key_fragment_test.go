package browser_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/botix/public-api/infra/testkit/localtest"
)

// load opens the dashboard's path with fragment as a new page load in the
// owner's tab. A link that differs from the address only in its fragment
// is a jump within the page, which runs no script: the overview is opened
// as /dashboard and /dashboard/ by turns (both are the API's routes).
// sessionStorage is the tab's and survives the load.
func (o *owner) load(path, fragment string) {
	o.t.Helper()
	target := "/dashboard/" + path
	if target == o.eval(`location.pathname`) {
		target = strings.TrimSuffix(target, "/")
	}
	o.eval(`window.botixOldPage = true`)
	o.do(chromedp.Navigate(o.sys.rt.URL + target + fragment))
	if o.eval(`window.botixOldPage === undefined`) != "true" {
		o.t.Fatalf("%s%s did not load a new page", target, fragment)
	}
}

// storedKey is the key the tab is signed in with ("null" when none).
func (o *owner) storedKey() string {
	o.t.Helper()
	return o.eval(`sessionStorage.getItem('botix.dashboard.key')`)
}

// addressBarClean fails the test when the address bar still holds a
// fragment.
func (o *owner) addressBarClean() {
	o.t.Helper()
	if href := o.eval(`location.href`); strings.Contains(href, "#") || strings.Contains(href, "key") {
		o.t.Fatalf("the address bar still holds the fragment: %s", href)
	}
}

// TestDashboardKeyFragment: a "#key=" link signs in a tab that has no
// key; one with the tab's own key changes nothing; one with another key
// asks first; anything but exactly "#key=<a key>" is cleared unread.
func TestDashboardKeyFragment(t *testing.T) {
	t.Parallel() // its own runtime and browser: nothing shared with the other tests
	sys := start(t)
	_, other := localtest.Project(t, sys.rt, "")
	overview := `document.querySelector('#view h1') !== null && document.querySelector('#view h1').textContent === 'Overview'`
	question := `document.querySelector('#key-switch') !== null`

	t.Run("the tab's own key again: no question, the session goes on", func(t *testing.T) {
		o := sys.owner(t)
		o.open("/")
		o.load("endpoints", "#key="+o.key)
		o.waitFor(`document.querySelector('#view h1') !== null && document.querySelector('#view h1').textContent === 'Endpoints'`)
		if o.count("#key-switch") != 0 {
			t.Fatal("the dashboard asked about the key it is signed in with")
		}
		o.addressBarClean()
		if got := o.storedKey(); got != o.key {
			t.Fatalf("sessionStorage holds %q", got)
		}
	})

	t.Run("another key: asked first; keeping the current key keeps the session", func(t *testing.T) {
		o := sys.owner(t)
		o.open("/")
		o.load("", "#key="+other)
		o.waitFor(question)
		o.addressBarClean()
		if got := o.storedKey(); got != o.key {
			t.Fatalf("while asking, sessionStorage holds %q; want the signed-in key", got)
		}
		text := o.text("#key-switch")
		if !strings.Contains(text, "…"+other[len(other)-4:]) || !strings.Contains(text, "…"+o.key[len(o.key)-4:]) {
			t.Fatalf("the question %q names neither key's end", text)
		}
		if focused := o.eval(`document.activeElement.id`); focused != "key-keep" {
			t.Fatalf("focus on %q; the safe answer (keep) must have it", focused)
		}
		o.screenshot("key-switch")
		o.click("#key-switch", "Keep key …"+o.key[len(o.key)-4:])
		o.waitFor(overview)
		if got := o.storedKey(); got != o.key {
			t.Fatalf("declined, yet sessionStorage holds %q", got)
		}
		if who := o.text("#who-key"); who != "key …"+o.key[len(o.key)-4:] {
			t.Fatalf("signed in as %q after declining", who)
		}
		if o.count("#key-switch") != 0 {
			t.Fatal("the question stays after the answer")
		}
	})

	t.Run("another key: accepting switches to it", func(t *testing.T) {
		o := sys.owner(t)
		o.open("/")
		o.eval(`sessionStorage.setItem('botix.dashboard.inspector', '{"id":"insp_of_the_first_project"}')`)
		o.load("", "#key="+other)
		o.waitFor(question)
		o.click("#key-switch", "Switch to key …"+other[len(other)-4:])
		o.waitFor(overview)
		if got := o.storedKey(); got != other {
			t.Fatalf("accepted, yet sessionStorage holds %q", got)
		}
		if got := o.eval(`sessionStorage.getItem('botix.dashboard.inspector')`); got != "null" {
			t.Fatalf("the first project's inspector stays with the new key: %s", got)
		}
		if who := o.text("#who-key"); who != "key …"+other[len(other)-4:] {
			t.Fatalf("signed in as %q after switching", who)
		}
		o.addressBarClean()
	})

	// Pasting a link into the address bar of a tab already on the
	// dashboard's page changes only the fragment: no page load, a
	// hashchange. The dashboard takes the key then as it does at load.
	paste := func(o *owner, fragment string) {
		o.t.Helper()
		o.eval(`window.botixOldPage = true; location.hash = '` + fragment + `'; true`)
	}
	samePage := func(o *owner) {
		o.t.Helper()
		if o.eval(`window.botixOldPage === true`) != "true" {
			o.t.Fatal("the page was loaded again: the test pasted no fragment-only link")
		}
	}
	for _, c := range []struct {
		name   string
		start  func(o *owner)
		key    string
		answer string // what the page shows once it took the key
	}{
		{"a link pasted into a tab on the login form signs in without a reload", func(o *owner) {
			o.load("", "")
			o.waitFor(`document.querySelector('#api-key') !== null`)
		}, "", overview},
		{"another key pasted into a signed-in tab: asked first", func(o *owner) { o.open("/") }, other, question},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := sys.owner(t)
			c.start(o)
			key := c.key
			if key == "" {
				key = o.key
			}
			paste(o, "#key="+key)
			o.waitFor(c.answer)
			samePage(o)
			o.addressBarClean()
			// Signed in with the tab's own key, or still with it while asking.
			if got := o.storedKey(); got != o.key {
				t.Fatalf("sessionStorage holds %q", got)
			}
		})
	}
	t.Run("an in-page anchor is not a key: left alone", func(t *testing.T) {
		o := sys.owner(t)
		o.open("/")
		paste(o, "#view")
		time.Sleep(300 * time.Millisecond) // the hashchange event has run by now
		if got := o.eval(`location.hash`); got != "#view" {
			t.Fatalf("the anchor became %q", got)
		}
		if o.count("#key-switch") != 0 || o.storedKey() != o.key {
			t.Fatal("an anchor changed the session")
		}
	})

	malformed := []struct{ name, fragment string }{
		{"a key cut short", "#key=" + other[:12]},
		{"a key with a second parameter", "#key=" + other + "&utm=mail"},
		{"a key after another parameter", "#x=1&key=" + other},
		{"a percent-encoded key", "#key=" + strings.Replace(other, "_", "%5F", 1)},
		{"a space before the key", "#key=%20" + other},
		{"another name", "#token=" + other},
		{"an empty key", "#key="},
		{"a bare hash", "#"},
	}
	t.Run("a malformed fragment is cleared unread", func(t *testing.T) {
		for _, c := range malformed {
			t.Run(c.name+" in a tab without a key: the login form, nothing stored", func(t *testing.T) {
				o := sys.owner(t)
				o.load("", c.fragment)
				o.waitFor(`document.querySelector('#api-key') !== null`)
				o.addressBarClean()
				if got := o.storedKey(); got != "null" {
					t.Fatalf("sessionStorage holds %q", got)
				}
				if o.count(".login .error") != 0 {
					t.Fatalf("the fragment was tried on the API: %q", o.text(".login .error"))
				}
			})
		}
		t.Run("in a signed-in tab: no question, the session unchanged", func(t *testing.T) {
			o := sys.owner(t)
			o.open("/")
			for _, c := range malformed {
				o.load("", c.fragment)
				o.waitFor(overview)
				if o.count("#key-switch") != 0 {
					t.Fatalf("%s: the dashboard asked to switch to a malformed key", c.name)
				}
				o.addressBarClean()
				if got := o.storedKey(); got != o.key {
					t.Fatalf("%s: sessionStorage holds %q", c.name, got)
				}
			}
		})
	})
}
