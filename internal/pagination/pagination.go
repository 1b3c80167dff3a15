// Package pagination is the HTTP side of pillar 2, shared by every list
// endpoint: it parses cursor_limit/cursor (and the deprecated offset mode),
// binds cursors to project + endpoint + filters, and renders pages.
package pagination

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/cursor"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/ids"
)

// Limits of a page.
const (
	DefaultLimit = 20
	MaxLimit     = 200
)

// ChangelogPath is where the API serves its changelog (package apidoc),
// whose entry announces the offset deprecation with the same dates as the
// headers: offset answers link it beside the migration guide.
const ChangelogPath = "/public/v1/changelog.atom"

// DefaultOffset is the deprecated offset mode's policy unless a deployment
// sets another; template.yaml's parameter defaults must equal it (a test
// checks).
var DefaultOffset = Offset{
	Max:          10000,
	DeprecatedAt: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC),
	SunsetAt:     time.Date(2027, 5, 1, 0, 0, 0, 0, time.UTC),
	DocsURL:      "https://developers.botix.pro/changelog/cursor-pagination",
	TimeBudget:   5 * time.Second,
}

// Offset is the policy of the deprecated offset mode.
type Offset struct {
	// Max is the largest offset served; past it: 400 OFFSET_TOO_LARGE.
	Max int
	// DeprecatedAt and SunsetAt feed the Deprecation (RFC 9745) and Sunset
	// (RFC 8594) headers; SunsetAt is the "migrate by" date.
	DeprecatedAt, SunsetAt time.Time
	// DocsURL is the migration guide (Link rel="deprecation").
	DocsURL string
	// TimeBudget bounds the time spent skipping offset items; past it:
	// 400 OFFSET_TOO_LARGE. The request's deadline bounds it too.
	TimeBudget time.Duration
}

// Validate checks the policy (Sunset may not precede Deprecation).
func (o Offset) Validate() error {
	switch {
	case o.Max < 0:
		return fmt.Errorf("pagination: offset maximum %d is negative", o.Max)
	case o.TimeBudget <= 0:
		return fmt.Errorf("pagination: the offset time budget must be positive")
	}
	return o.ValidateNotice()
}

// ValidateNotice reports a deprecation notice that cannot be announced: a
// sunset before the deprecation, or no migration guide.
func (o Offset) ValidateNotice() error {
	switch {
	case o.SunsetAt.Before(o.DeprecatedAt):
		return fmt.Errorf("pagination: sunset %s is earlier than deprecation %s", o.SunsetAt.Format(time.RFC3339), o.DeprecatedAt.Format(time.RFC3339))
	case o.DocsURL == "":
		return fmt.Errorf("pagination: the offset deprecation needs a docs URL")
	}
	return nil
}

// Pager parses and renders the pages of list endpoints.
type Pager struct {
	Keys   *cursor.Keyring
	Offset Offset
}

// Request is a parsed page request.
type Request struct {
	// OffsetMode is the deprecated ?pagination=offset.
	OffsetMode bool
	Limit      int
	// Start is where the page starts (nil for the first page).
	Start  cursor.Position
	Offset int

	binding cursor.Binding
	// baseURL is the API's public base URL, for the changelog link.
	baseURL string
}

// Parse reads the paging parameters of a list request whose filters, in
// normalised form, are filters; other query parameters are the endpoint's
// business. Handlers read filters through Params, which calls it.
func (p *Pager) Parse(r *httpapi.Request, filters map[string]string) (Request, error) {
	q := r.Query
	req := Request{binding: cursor.Binding{Project: r.Project, Endpoint: r.Route, Filters: cursor.Normalize(filters)}, baseURL: r.BaseURL}
	switch q.Get("pagination") {
	case "", "cursor":
	case "offset":
		return p.parseOffset(q, req)
	default:
		return Request{}, apierr.Problems{"pagination": "must be cursor (default) or offset (deprecated)"}.ParamErr()
	}
	for _, name := range []string{"offset", "limit"} {
		if q.Has(name) {
			return Request{}, apierr.Problems{name: "is a parameter of the deprecated offset mode (pagination=offset); with cursors use cursor and cursor_limit"}.ParamErr()
		}
	}
	limit, err := intParam(q, "cursor_limit", DefaultLimit, 1, MaxLimit)
	if err != nil {
		return Request{}, err
	}
	req.Limit = limit
	if tok := q.Get("cursor"); tok != "" {
		pos, err := p.Keys.Decode(req.binding, tok)
		if err != nil {
			return Request{}, err
		}
		req.Start = pos
	}
	return req, nil
}

func (p *Pager) parseOffset(q url.Values, req Request) (Request, error) {
	for _, name := range []string{"cursor", "cursor_limit"} {
		if q.Has(name) {
			return Request{}, apierr.Problems{name: "cannot be combined with pagination=offset"}.ParamErr()
		}
	}
	limit, err := intParam(q, "limit", DefaultLimit, 1, MaxLimit)
	if err != nil {
		return Request{}, err
	}
	offset, err := intParam(q, "offset", 0, 0, int(^uint(0)>>1))
	if err != nil {
		return Request{}, err
	}
	if offset > p.Offset.Max {
		return Request{}, apierr.New(apierr.OffsetTooLarge, "offset %d is past the maximum of offset pagination (%d); walk the list with cursors instead: pass next_cursor as cursor (see %s)", offset, p.Offset.Max, p.Offset.DocsURL)
	}
	req.OffsetMode, req.Limit, req.Offset = true, limit, offset
	return req, nil
}

func intParam(q url.Values, name string, def, lo, hi int) (int, error) {
	if !q.Has(name) {
		return def, nil
	}
	n, err := strconv.Atoi(q.Get(name))
	if err != nil || n < lo || n > hi {
		if hi == int(^uint(0)>>1) {
			return 0, apierr.Problems{name: fmt.Sprintf("must be an integer >= %d", lo)}.ParamErr()
		}
		return 0, apierr.Problems{name: fmt.Sprintf("must be an integer from %d to %d", lo, hi)}.ParamErr()
	}
	return n, nil
}

var pagingParams = []string{"cursor", "cursor_limit", "pagination", "offset", "limit"}

// Page is the body of a cursor-mode list response.
type Page[T any] struct {
	Data       []T     `json:"data"`
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

// OffsetPage is the body of an offset-mode list response.
type OffsetPage[T any] struct {
	Data    []T  `json:"data"`
	HasMore bool `json:"has_more"`
}

// Respond renders a page: next is where the following page starts (nil
// when hasMore is false). next_cursor is null exactly when has_more is
// false. Offset mode adds the deprecation headers.
func Respond[T any](p *Pager, req Request, data []T, next cursor.Position, hasMore bool) (*httpapi.Response, error) {
	if data == nil {
		data = []T{}
	}
	if req.OffsetMode {
		resp, err := httpapi.JSON(http.StatusOK, OffsetPage[T]{Data: data, HasMore: hasMore})
		if err != nil {
			return nil, err
		}
		p.deprecationHeaders(resp.Header, req.baseURL)
		resp.Page = "offset"
		return resp, nil
	}
	page := Page[T]{Data: data, HasMore: hasMore}
	if hasMore {
		tok, err := p.Keys.Encode(req.binding, next)
		if err != nil {
			return nil, err
		}
		page.NextCursor = &tok
	}
	resp, err := httpapi.JSON(http.StatusOK, page)
	if resp != nil {
		resp.Page = "cursor"
	}
	return resp, err
}

// deprecationHeaders announce the deprecation (RFC 9745, RFC 8594). The
// Link names two resources about it, as RFC 9745 allows, told apart by
// type: the migration guide (OffsetDocsUrl, which a deployment may point
// at its own page) and this API's changelog feed, where the same dates are
// announced and any change to them would be (absent when the base URL is
// unknown, as an absolute URL is needed).
func (p *Pager) deprecationHeaders(h http.Header, baseURL string) {
	h.Set("X-API-Notice", "pagination=offset deprecated, migrate by "+p.Offset.SunsetAt.UTC().Format("2006-01-02"))
	h.Set("Deprecation", "@"+strconv.FormatInt(p.Offset.DeprecatedAt.Unix(), 10))
	h.Set("Sunset", p.Offset.SunsetAt.UTC().Format(http.TimeFormat))
	link := "<" + p.Offset.DocsURL + ">; rel=\"deprecation\"; type=\"text/html\""
	if baseURL != "" {
		link += ", <" + baseURL + ChangelogPath + ">; rel=\"deprecation\"; type=\"application/atom+xml\""
	}
	h.Set("Link", link)
}

// Params reads the query of one list request. Each filter a handler reads
// through it is, by the same call, validated, declared known and bound to
// the cursor, so that a filter can never be accepted without being bound
// (a cursor issued for one filter reused with another). Page finishes the
// reading.
type Params struct {
	pager    *Pager
	r        *httpapi.Request
	known    []string
	bound    map[string]string
	problems apierr.Problems
}

// Params starts reading the query of r.
func (p *Pager) Params(r *httpapi.Request) *Params {
	return &Params{pager: p, r: r, bound: map[string]string{}, problems: apierr.Problems{}}
}

// value declares name and returns its value ("" when absent).
func (q *Params) value(name string) string {
	q.known = append(q.known, name)
	return q.r.Query.Get(name)
}

// Enum reads a filter that must be one of allowed.
func (q *Params) Enum(name string, allowed []string) string {
	v := q.value(name)
	if v == "" {
		return ""
	}
	if !slices.Contains(allowed, v) {
		q.problems.Add(name, "must be one of "+strings.Join(allowed, ", "))
	}
	q.bound[name] = v
	return v
}

// Match reads a filter that must match pattern; problem says what it must
// be otherwise.
func (q *Params) Match(name string, pattern *regexp.Regexp, problem string) string {
	v := q.value(name)
	if v == "" {
		return ""
	}
	if !pattern.MatchString(v) {
		q.problems.Add(name, problem)
	}
	q.bound[name] = v
	return v
}

// ID reads a filter that must be an id with prefix (what names it for
// people, e.g. "a contact id").
func (q *Params) ID(name, prefix, what string) string {
	v := q.value(name)
	if v == "" {
		return ""
	}
	if _, err := ids.Parse(prefix, v); err != nil {
		q.problems.Add(name, "must be "+what+" ("+prefix+"_...)")
	}
	q.bound[name] = v
	return v
}

// Time reads an RFC 3339 filter; its normalised form is what is bound.
func (q *Params) Time(name string) time.Time {
	v := q.value(name)
	if v == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		q.problems.Add(name, domain.ProblemTime)
		return time.Time{}
	}
	q.bound[name] = t.UTC().Format(time.RFC3339Nano)
	return t
}

// Problem reports a problem that no single parameter's rule sees (one
// across two parameters, such as until before since): Done answers it with
// the others.
func (q *Params) Problem(name, problem string) {
	q.problems.Add(name, problem)
}

// ReadQuery starts reading the query of a request that is not a list:
// the same validation, and no paging parameters (finish with Done).
func ReadQuery(r *httpapi.Request) *Params {
	return (*Pager)(nil).Params(r)
}

// Done refuses parameters that were not read so far (nor, on a list, are
// paging parameters): INVALID_PARAMETER, as a typo must not silently
// widen a list. Then it reports the problems of those read.
func (q *Params) Done() error {
	known := q.known
	if q.pager != nil {
		known = slices.Concat(known, pagingParams)
	}
	if err := httpapi.CheckKnown(q.r.Query, known); err != nil {
		return err
	}
	return q.problems.ParamErr()
}

// Page finishes reading a list's query (Done), then parses the paging
// parameters with the cursor bound to the filters read.
func (q *Params) Page() (Request, error) {
	if err := q.Done(); err != nil {
		return Request{}, err
	}
	return q.pager.Parse(q.r, q.bound)
}
