package apidoc

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/botix/public-api/infra/testkit/docs"
	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/httpapi"
)

// TestEveryCodeIsDocumented: the reference lists exactly the codes of the
// status table, each with its status, a description, an action and a
// known retry advice.
func TestEveryCodeIsDocumented(t *testing.T) {
	codes, err := ErrorCodes()
	if err != nil {
		t.Fatal(err)
	}
	table := httpapi.Codes()
	if len(codes) != len(table) {
		t.Errorf("the reference lists %d codes; the status table has %d", len(codes), len(table))
	}
	for _, c := range codes {
		t.Run(string(c.Code), func(t *testing.T) {
			if s, ok := table[c.Code]; !ok || s != c.Status {
				t.Errorf("status %d; the table says %d (listed: %v)", c.Status, s, ok)
			}
			if c.When == "" || c.Action == "" {
				t.Errorf("no description: %+v", c)
			}
			if _, ok := RetryAdvice[c.Retry]; !ok {
				t.Errorf("retry %q has no advice", c.Retry)
			}
			if c.DocsURL != "/docs/error-codes#"+string(c.Code) {
				t.Errorf("docs_url %s", c.DocsURL)
			}
			if strings.Count(c.When, "`")%2 != 0 || strings.Count(c.Action, "`")%2 != 0 {
				t.Errorf("an unclosed backtick: %+v", c)
			}
		})
	}
}

// TestRetryAdviceMatchesTheStatus reads like the rule integrators follow:
// a 5xx, a 429 (RETRY_COOLDOWN: not a final answer, the key is not used
// up) or IDEMPOTENCY_KEY_IN_PROGRESS may be retried with the same key;
// every other 4xx needs the request changed first.
func TestRetryAdviceMatchesTheStatus(t *testing.T) {
	codes, err := ErrorCodes()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range codes {
		retriable := c.Status >= 500 || c.Status == http.StatusTooManyRequests || c.Code == apierr.IdempotencyKeyInProgress
		if retriable == (c.Retry == apierr.RetryNever) {
			t.Errorf("%s (%d): retry %q", c.Code, c.Status, c.Retry)
		}
		if c.Retry == apierr.RetryAfterHeader && !strings.Contains(c.Action, "Retry-After") {
			t.Errorf("%s says to wait for Retry-After without naming it: %s", c.Code, c.Action)
		}
	}
}

// TestReadmeTableIsTheReference: the integrators' guide's table of error
// codes is the rendered reference, row for row.
func TestReadmeTableIsTheReference(t *testing.T) {
	want, err := MarkdownTable()
	if err != nil {
		t.Fatal(err)
	}
	readme := docs.Read(t, docs.Integrators)
	start := strings.Index(readme, "| code | HTTP | when | what to do | retry |\n")
	if start < 0 {
		t.Fatalf("%s has no error-code table; it should be:\n%s", docs.Integrators, want)
	}
	got := readme[start:]
	if end := strings.Index(got, "\n\n"); end >= 0 {
		got = got[:end+1]
	}
	if got != want {
		gotRows, wantRows := strings.Split(got, "\n"), strings.Split(want, "\n")
		for _, r := range wantRows {
			if !slices.Contains(gotRows, r) {
				t.Errorf("%s lacks the row\n%s", docs.Integrators, r)
			}
		}
		for _, r := range gotRows {
			if !slices.Contains(wantRows, r) {
				t.Errorf("%s has a row the code does not\n%s", docs.Integrators, r)
			}
		}
		t.Errorf("%s: the table differs from the code's; it should be:\n%s", docs.Integrators, want)
	}
}

// TestErrorCodesJSON: the machine form carries every code under "codes".
func TestErrorCodesJSON(t *testing.T) {
	doc, err := ErrorCodesJSON()
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Codes []ErrorCode `json:"codes"`
	}
	if err := json.Unmarshal(doc.Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Codes) != len(httpapi.Codes()) || doc.ETag == "" {
		t.Fatalf("%d codes, ETag %q", len(body.Codes), doc.ETag)
	}
}

// TestErrorCodesPage: each code is an anchored row, names quoted in
// backticks are code, and whatever a description holds is escaped.
func TestErrorCodesPage(t *testing.T) {
	doc, err := ErrorCodesPage()
	if err != nil {
		t.Fatal(err)
	}
	page := string(doc.Body)
	for code := range httpapi.Codes() {
		if !strings.Contains(page, `<tr id="`+string(code)+`">`) {
			t.Errorf("no row for %s", code)
		}
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "<style") || strings.Contains(page, " style=") {
		t.Error("the page has a script or inline style, which the security headers forbid")
	}
	if !strings.Contains(page, "<code>Authorization: Bearer &lt;api key&gt;</code>") {
		t.Error("a quoted name is not rendered as escaped code")
	}
	hostile := []ErrorCode{{Code: "X", Status: 400, When: `<script>alert(1)</script> and "quotes"`, Action: "`<img src=x onerror=alert(1)>`", Retry: apierr.RetryNever}}
	out, err := renderPage(hostile)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"<script>", "<img"} {
		if strings.Contains(string(out.Body), raw) {
			t.Errorf("%s reached the page unescaped", raw)
		}
	}
	if !strings.Contains(string(out.Body), "<code>&lt;img src=x onerror=alert(1)&gt;</code>") {
		t.Error("an escaped quoted name is missing")
	}
}
