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

// flowState is an endpoint's flow control as the API shows it.
type flowState struct {
	RateLimit      int `json:"rate_limit"`
	MaxConcurrency int `json:"max_concurrency"`
	Throttle       *struct {
		EffectiveRate float64 `json:"effective_rate"`
		PausedUntil   string  `json:"paused_until"`
		ThrottledBy   string  `json:"throttled_by"`
	} `json:"throttle"`
}

func (o *owner) flow(id string) flowState {
	var f flowState
	o.api("GET", "/webhook-endpoints/"+id, nil, &f)
	return f
}

// waitText waits until the element sel's text contains want.
func (o *owner) waitText(sel, want string) {
	o.t.Helper()
	o.waitFor(fmt.Sprintf(`(document.querySelector(%s) || {}).textContent?.includes(%s)`, js(sel), js(want)))
}

func TestDashboardEndpointLimits(t *testing.T) {
	t.Parallel() // its own runtime and browser: nothing shared with the other tests
	sys := start(t)

	t.Run("the edit form sets both limits, the card shows them, an empty field clears one; an out-of-range value is refused at its field", func(t *testing.T) {
		o := sys.owner(t)
		ep := o.endpoint(apitest.NewReceiver(t, nil).URL, nil)
		card := fmt.Sprintf(`.endpoint[data-id=%q]`, ep.ID)
		rate, inFlight := "#"+ep.ID+"-rate_limit", "#"+ep.ID+"-max_concurrency"
		o.open("/endpoints")
		o.waitText(card+" .limits", "Limits: no limits")
		if text := o.text(card); strings.Contains(text, "null") {
			t.Fatalf("an absent description shows on the card: %q", text)
		}

		o.click(card, "Edit")
		o.do(chromedp.SetValue(chromedp.CSS(rate), "5000"))
		o.click(card, "Save")
		o.waitFor(fmt.Sprintf(`document.querySelector(%s).textContent !== ''`, js(rate+"-error")))
		if got := o.eval(fmt.Sprintf(`document.querySelector(%s).getAttribute('aria-invalid')`, js(rate))); got != "true" {
			t.Fatalf("the refused field is not marked invalid: %s", got)
		}
		if msg := o.text(inFlight + "-error"); msg != "" {
			t.Fatalf("the other field shows %q", msg)
		}
		if f := o.flow(ep.ID); f.RateLimit != 0 {
			t.Fatalf("a refused value was stored: %+v", f)
		}

		o.do(chromedp.SetValue(chromedp.CSS(rate), "20"), chromedp.SetValue(chromedp.CSS(inFlight), "4"))
		o.click(card, "Save")
		o.waitText(card+" .limits", "Limits: rate limit 20/s, max 4 in flight")
		if f := o.flow(ep.ID); f.RateLimit != 20 || f.MaxConcurrency != 4 {
			t.Fatalf("the API has %+v", f)
		}
		o.screenshot("endpoint-limits")

		o.click(card, "Edit")
		if got := o.eval(fmt.Sprintf(`[document.querySelector(%s).value, document.querySelector(%s).value].join(' ')`, js(rate), js(inFlight))); got != "20 4" {
			t.Fatalf("the edit form shows the limits %q", got)
		}
		o.do(chromedp.SetValue(chromedp.CSS(rate), ""))
		o.click(card, "Save")
		o.waitText(card+" .limits", "Limits: max 4 in flight")
		if f := o.flow(ep.ID); f.RateLimit != 0 || f.MaxConcurrency != 4 {
			t.Fatalf("after clearing the rate limit the API has %+v", f)
		}
	})

	t.Run("the create form sets a limit", func(t *testing.T) {
		o := sys.owner(t)
		rc := apitest.NewReceiver(t, nil)
		o.open("/endpoints")
		o.do(chromedp.SetValue(chromedp.CSS("#new-url"), rc.URL), chromedp.SetValue(chromedp.CSS("#new-max_concurrency"), "2"))
		o.click("#create-endpoint", "Create endpoint")
		o.waitText("#endpoint-list .endpoint .limits", "Limits: max 2 in flight")
		var page struct {
			Data []flowState `json:"data"`
		}
		o.api("GET", "/webhook-endpoints", nil, &page)
		if len(page.Data) != 1 || page.Data[0].MaxConcurrency != 2 || page.Data[0].RateLimit != 0 {
			t.Fatalf("endpoints after the form: %+v", page.Data)
		}
	})

	t.Run("a receiver's 429 with Retry-After shows on the card as a pause until then", func(t *testing.T) {
		o := sys.owner(t)
		rc := apitest.NewReceiver(t, func(_ int, _ *http.Request, w http.ResponseWriter) {
			w.Header().Set("Retry-After", "300")
			w.WriteHeader(http.StatusTooManyRequests)
		})
		ep := o.endpoint(rc.URL, nil)
		o.contact("+79990002001", "Ivan")
		var f flowState
		apitest.Eventually(t, 40*time.Second, "the receiver's pause on the endpoint", func() bool {
			f = o.flow(ep.ID)
			return f.Throttle != nil && f.Throttle.PausedUntil != ""
		})
		o.open("/endpoints")
		card := fmt.Sprintf(`.endpoint[data-id=%q]`, ep.ID)
		o.waitText(card, "paused by the receiver until ")
		text := o.text(card + " .flow")
		if !strings.Contains(text, "("+f.Throttle.ThrottledBy+")") || f.Throttle.ThrottledBy != "http_429" {
			t.Fatalf("the card says %q; the API %+v", text, *f.Throttle)
		}
		if got := o.eval(fmt.Sprintf(`document.querySelector(%s).getAttribute('datetime')`, js(card+" .throttle time"))); got != f.Throttle.PausedUntil {
			t.Fatalf("the pause shown ends %q, the API's %q", got, f.Throttle.PausedUntil)
		}
		if f.Throttle.EffectiveRate > 0 && !strings.Contains(text, "slowed to ") {
			t.Fatalf("the API lowered the rate to %v; the card says %q", f.Throttle.EffectiveRate, text)
		}
		o.screenshot("endpoint-throttled")
		// The 429 attempt is drawn as a slow-down (amber), not a failure.
		d := o.deliveries("endpoint_id=" + ep.ID)
		if len(d) != 1 {
			t.Fatalf("%d deliveries", len(d))
		}
		o.open("/deliveries/" + d[0].ID)
		o.waitFor(`document.querySelector('#attempts li') !== null`)
		if got := o.eval(`document.querySelector('#attempts li').className`); got != "slow" {
			t.Fatalf("the 429 attempt is drawn as %q, want slow", got)
		}
	})
}
