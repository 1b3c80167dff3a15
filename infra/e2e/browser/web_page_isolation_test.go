package browser_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/botix/public-api/infra/testkit/localtest"
)

// attackPage is a page of another origin (another loopback port) that
// tries what the security review found: Lambda Invoke of the admin
// function as a "simple" cross-origin POST (text/plain, and a Blob body
// with no Content-Type), and a DynamoDB Scan of the data table, whose
// X-Amz-Target needs a CORS preflight. Each outcome lands in
// window.outcomes.
const attackPage = `<!doctype html><title>a page the developer has open</title><script>
const aws = %q, table = %q;
const invoke = aws + '/2015-03-31/functions/botix-local-AdminFunction/invocations';
const create = JSON.stringify({action: 'create_project', name: 'from a web page', api_key: 'bx_live_chosen_by_a_web_page_0123456789'});
async function attempt(name, f) {
  try { window.outcomes[name] = await f(); } catch (e) { window.outcomes[name] = 'blocked: ' + e; }
}
window.outcomes = {};
(async () => {
  await attempt('text/plain invoke', async () => (await fetch(invoke, {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: create})).type);
  await attempt('blob invoke', async () => (await fetch(invoke, {method: 'POST', mode: 'no-cors', body: new Blob([create])})).type);
  await attempt('scan', async () => await (await fetch(aws + '/', {method: 'POST', headers: {'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': 'DynamoDB_20120810.Scan'}, body: JSON.stringify({TableName: table})})).text());
  window.done = true;
})();
</script>`

// TestAWebPageCannotReachTheLocalAWSEndpoint opens a page of another
// origin in headless Chromium: its requests reach the AWS endpoint (the
// no-cors ones are sent) but create no project and read no table.
func TestAWebPageCannotReachTheLocalAWSEndpoint(t *testing.T) {
	t.Parallel() // its own runtime and browser: nothing shared with the other tests
	sys := start(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, attackPage, sys.rt.AWSURL, sys.rt.Tables()["DataTable"])
	}))
	t.Cleanup(page.Close)
	if page.URL == sys.rt.AWSURL || page.URL == sys.rt.URL {
		t.Fatal("the page must be of another origin")
	}
	o := sys.owner(t) // a tab (and a project of its own, made before counting)
	before := localtest.ProjectCount(t, sys.rt)
	o.do(chromedp.Navigate(page.URL))
	o.waitFor(`window.done === true`)
	outcomes := map[string]string{}
	for _, name := range []string{"text/plain invoke", "blob invoke", "scan"} {
		outcomes[name] = o.eval(`window.outcomes[` + js(name) + `]`)
	}
	t.Logf("outcomes in the page: %v", outcomes)
	t.Run("the no-cors invokes were sent (an opaque answer), and created no project", func(t *testing.T) {
		if outcomes["text/plain invoke"] != "opaque" || outcomes["blob invoke"] != "opaque" {
			t.Fatalf("the page's requests did not go out as intended: %v", outcomes)
		}
		if after := localtest.ProjectCount(t, sys.rt); after != before {
			t.Fatalf("projects: %d before the page, %d after: a web page created one", before, after)
		}
	})
	t.Run("the Scan's preflight is refused: the page reads nothing", func(t *testing.T) {
		if got := outcomes["scan"]; !strings.HasPrefix(got, "blocked: ") || strings.Contains(got, "Items") {
			t.Fatalf("the page read the data table: %s", got)
		}
	})
}
