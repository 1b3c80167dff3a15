package apidoc

import (
	"bytes"
	"embed"
	"html/template"
	"sort"
	"strconv"
	"strings"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/pagination"
)

// Paths of the documents under the API's base URL.
const (
	ErrorCodesPath     = "/public/v1/error-codes"
	ErrorCodesPagePath = "/docs/error-codes"
	ChangelogPath      = pagination.ChangelogPath
	OpenAPIPath        = "/public/v1/openapi.json"
)

// ErrorCode is one entry of the error-code reference: a public code, its
// HTTP status, when it is answered and what the client should do.
type ErrorCode struct {
	Code   apierr.Code  `json:"code"`
	Status int          `json:"status"`
	When   string       `json:"when"`
	Action string       `json:"action"`
	Retry  apierr.Retry `json:"retry"`
	// DocsURL is the code's entry on the human-readable page, relative to
	// the API's base URL.
	DocsURL string `json:"docs_url"`
}

// ErrorCodes returns every public code of the status table with its
// description, by status and then code. A code without a description is
// an error, so that none can be added to the table undocumented.
func ErrorCodes() ([]ErrorCode, error) {
	var out []ErrorCode
	for code, status := range httpapi.Codes() {
		d, ok := apierr.Describe(code)
		if !ok {
			return nil, &undocumented{code}
		}
		out = append(out, ErrorCode{Code: code, Status: status, When: d.When, Action: d.Action, Retry: d.Retry, DocsURL: ErrorCodeURL("", code)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Status != out[j].Status {
			return out[i].Status < out[j].Status
		}
		return out[i].Code < out[j].Code
	})
	return out, nil
}

// ErrorCodeURL is the address of code's entry on the reference page of
// the API at base (its public base URL; "" for a path).
func ErrorCodeURL(base string, code apierr.Code) string {
	return base + ErrorCodesPagePath + "#" + string(code)
}

type undocumented struct{ code apierr.Code }

func (e *undocumented) Error() string {
	return "apidoc: error code " + string(e.code) + " has no description in apierr"
}

// errorCodesJSON is the body of GET /public/v1/error-codes.
type errorCodesJSON struct {
	Codes []ErrorCode `json:"codes"`
}

// ErrorCodesJSON renders the reference for machines.
func ErrorCodesJSON() (Document, error) {
	codes, err := ErrorCodes()
	if err != nil {
		return Document{}, err
	}
	b, err := httpapi.Marshal(errorCodesJSON{Codes: codes})
	if err != nil {
		return Document{}, err
	}
	return document(b), nil
}

//go:embed errorcodes.html
var pageFS embed.FS

var page = template.Must(template.New("errorcodes.html").Funcs(template.FuncMap{"prose": prose}).ParseFS(pageFS, "errorcodes.html"))

// segment is a piece of a description: plain text, or a quoted name.
type segment struct {
	Text string
	Code bool
}

// prose splits a description at its backticks, so that the template shows
// the quoted names as code while escaping everything.
func prose(s string) []segment {
	parts := strings.Split(s, "`")
	out := make([]segment, 0, len(parts))
	for i, p := range parts {
		if p != "" {
			out = append(out, segment{Text: p, Code: i%2 == 1})
		}
	}
	return out
}

// RetryAdvice is the retry column in words.
var RetryAdvice = map[apierr.Retry]string{
	apierr.RetryNever:       "no: change the request first",
	apierr.RetryAfterHeader: "after Retry-After, same key",
	apierr.RetryBackoff:     "with backoff, same key",
}

// ErrorCodesPage renders the reference for people: a static HTML page
// without scripts, every text escaped by html/template; its links are
// paths of the API.
func ErrorCodesPage() (Document, error) {
	codes, err := ErrorCodes()
	if err != nil {
		return Document{}, err
	}
	return renderPage(codes)
}

// renderPage renders the page of codes.
func renderPage(codes []ErrorCode) (Document, error) {
	var b bytes.Buffer
	data := struct {
		Codes               []ErrorCode
		Advice              map[apierr.Retry]string
		JSON, Feed, OpenAPI string
	}{codes, RetryAdvice, ErrorCodesPath, ChangelogPath, OpenAPIPath}
	if err := page.Execute(&b, data); err != nil {
		return Document{}, err
	}
	return document(b.Bytes()), nil
}

// MarkdownTable is the table of error codes of docs/integrators.md, rendered from the
// same table as the served reference.
func MarkdownTable() (string, error) {
	codes, err := ErrorCodes()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| code | HTTP | when | what to do | retry |\n| --- | --- | --- | --- | --- |\n")
	for _, c := range codes {
		b.WriteString("| `" + string(c.Code) + "` | " + strconv.Itoa(c.Status) + " | " + c.When + " | " + c.Action + " | " + RetryAdvice[c.Retry] + " |\n")
	}
	return b.String(), nil
}

// document is a rendered body with its content-hash ETag.
func document(b []byte) Document {
	return Document{Body: b, ETag: `"` + httpapi.ContentVersion(b) + `"`}
}
