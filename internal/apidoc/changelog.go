package apidoc

import (
	"encoding/xml"
	"sort"
	"time"

	"github.com/botix/public-api/internal/pagination"
)

// Entry is one announcement of the changelog.
type Entry struct {
	// Slug names the entry for good: its Atom id is built on it.
	Slug string
	// Version is what changed: "API 1.1.0", "Go SDK 1.1.0".
	Version string
	// Kind is the Atom category: "added", "changed" or "deprecated".
	Kind  string
	Date  time.Time
	Title string
	Text  string
	// Link is where to read more: an absolute URL, or a path of this API
	// ("/public/v1/openapi.json").
	Link string
}

// OffsetSlug is the slug of the offset pagination's deprecation.
const OffsetSlug = "cursor-pagination"

// feedID is the feed's permanent id (a tag URI, RFC 4151): the same on
// every deployment, as the entries are the product's.
const feedID = "tag:botix.pro,2026:changelog"

// EntryID is the Atom id of the entry with slug.
func EntryID(slug string) string { return feedID + "/" + slug }

// history is the changelog apart from the offset deprecation, whose dates
// are the deployment's (see Changelog). The dates are those of the commits
// that shipped each change.
var history = []Entry{
	{Slug: "idempotency-keys", Version: "API 1.1.0", Kind: "changed", Date: date("2026-11-29T09:03:06Z"),
		Title: "Idempotency-Key is required on every mutation",
		Text:  "Every POST, PATCH and DELETE needs an Idempotency-Key (a UUIDv4 or a ULID): the same key on every retry of one operation runs it once and replays its answer. Missing: 400 IDEMPOTENCY_KEY_REQUIRED; reused with another body: 409 IDEMPOTENCY_KEY_REUSE_CONFLICT.",
		Link:  ErrorCodesPagePath + "#IDEMPOTENCY_KEY_REQUIRED"},
	{Slug: "webhooks", Version: "API 1.1.0", Kind: "added", Date: date("2026-11-29T09:43:45Z"),
		Title: "Webhooks with retries and a dead-letter queue",
		Text:  "Webhook endpoints receive signed events; a failed delivery is retried after 1 min, 15 min, 1 h and 24 h (the default schedule), then kept in a dead-letter queue that operators can redrive.",
		Link:  OpenAPIPath},
	{Slug: "webhook-operations", Version: "API 1.1.0", Kind: "added", Date: date("2026-11-29T09:54:39Z"),
		Title: "Delivery log, manual retry, inspector and event polling",
		Text:  "GET /public/v1/webhook-deliveries shows every delivery with its attempts; POST /public/v1/webhook-deliveries/{id}/retry sends one again; inspectors capture requests for debugging; GET /public/v1/events polls the events a project emitted.",
		Link:  OpenAPIPath},
	{Slug: "delivery-stats", Version: "API 1.1.0", Kind: "added", Date: date("2026-11-29T19:30:33Z"),
		Title: "Delivery stats and endpoint recovery",
		Text:  "GET /public/v1/webhook-deliveries/stats counts attempts by the status they left their delivery in, per UTC hour or day; POST /public/v1/webhook-endpoints/{id}/recover sends an endpoint's failed and dead deliveries since a time again.",
		Link:  OpenAPIPath},
	{Slug: "go-sdk", Version: "Go SDK 1.1.0", Kind: "added", Date: date("2026-11-29T20:39:50Z"),
		Title: "Go SDK: safe retries and cursor iterators",
		Text:  "The Go SDK gives each logical operation one Idempotency-Key and retries lost answers, 429, 5xx and IDEMPOTENCY_KEY_IN_PROGRESS with it; lists are iterators over cursors.",
		Link:  OpenAPIPath},
	{Slug: "openapi", Version: "API 1.1.0", Kind: "added", Date: date("2026-11-29T21:30:27Z"),
		Title: "OpenAPI 3.1 document served by the API",
		Text:  "GET /public/v1/openapi.json serves the API's contract, without a key, with an ETag. Generate clients, mocks or contract tests from it.",
		Link:  OpenAPIPath},
	{Slug: "go-sdk-module", Version: "Go SDK 1.2.0", Kind: "changed", Date: date("2026-12-01T10:20:18Z"),
		Title: "The Go SDK is its own module",
		Text:  "Import github.com/botix/public-api/sdk/go/botix (module github.com/botix/public-api/sdk/go, Go 1.23, no dependency but google/uuid): it no longer pulls the server's modules into your build. The webhook receiver kit is package sdk/go/webhook; its DynamoDB deduplicator is a module of its own.",
		Link:  OpenAPIPath},
	{Slug: "error-codes-and-changelog", Version: "API 1.1.0", Kind: "added", Date: date("2026-12-01T11:00:00Z"),
		Title: "Error-code reference and this changelog",
		Text:  "GET /docs/error-codes (HTML) and GET /public/v1/error-codes (JSON) list every error code with its status, when it happens and whether to retry; this feed announces changes and deprecations.",
		Link:  ErrorCodesPagePath},
	{Slug: "signature-lists", Version: "API 1.1.0", Kind: "changed", Date: date("2026-12-01T12:00:00Z"),
		Title: "X-Botix-Signature lists one signature per active secret during a rotation",
		Text:  "For 24 h after POST /public/v1/webhook-endpoints/{id}/rotate-secret, X-Botix-Signature carries the new secret's and the previous secret's signatures, comma-separated, newest first, as webhook-signature already did: a receiver holding either secret verifies. A receiver that compares the whole header with one signature must split it on commas; the Go kit judges a request by its timestamped webhook-signature.",
		Link:  OpenAPIPath},
	{Slug: "go-sdk-1-2", Version: "Go SDK 1.2.0", Kind: "added", Date: date("2026-12-01T12:00:00Z"),
		Title: "Go SDK 1.2.0: errors that carry the Idempotency-Key, resumable walks",
		Text:  "Every error is a botix.OperationError with the Idempotency-Key and the attempt count, so a failed call can be re-issued as the same operation (Reissue); deadlines match context.DeadlineExceeded; Retry-After is capped; walks can be stopped at an item and resumed from a saved position; deliveries can be listed by event id. The receiver kit tells a copy that arrives while its event is processing to retry (503) instead of acknowledging it.",
		Link:  OpenAPIPath},
	{Slug: "health-events", Version: "API 1.1.0", Kind: "added", Date: date("2026-12-01T16:50:00Z"),
		Title: "Health events: an endpoint is failing, will be disabled, was disabled, recovered",
		Text:  "The event types webhook_endpoint.failing, webhook_endpoint.disabling_soon, webhook_endpoint.disabled (with its cause) and webhook_endpoint.recovered tell a project's owner about an endpoint's trouble. Each is sent once per streak of failures to the project's other endpoints that subscribe to it or to *, never to the endpoint it is about, and GET /public/v1/events lists them.",
		Link:  OpenAPIPath},
	{Slug: "delivery-stats-latency", Version: "API 1.1.0", Kind: "added", Date: date("2026-12-08T01:00:00Z"),
		Title: "Delivery stats say how fast a receiver answers",
		Text:  "Each bucket and the totals of GET /public/v1/webhook-deliveries/stats carry latency: the attempts the receiver answered, and the bounds half and 95 % of them came in under (p50_ms, p95_ms), so a receiver that answers in 4 s no longer looks like one that answers in 40 ms.",
		Link:  OpenAPIPath},
}

func date(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// OffsetEntry announces the offset pagination's deprecation with the
// deployment's policy: the same dates and guide as the Deprecation,
// Sunset and Link headers of offset answers.
func OffsetEntry(o pagination.Offset) Entry {
	sunset := o.SunsetAt.UTC().Format(time.DateOnly)
	return Entry{
		Slug: OffsetSlug, Version: "API 1.1.0", Kind: "deprecated", Date: o.DeprecatedAt.UTC(),
		Title: "Offset pagination is deprecated: migrate to cursors by " + sunset,
		Text: "?pagination=offset is deprecated since " + o.DeprecatedAt.UTC().Format(time.DateOnly) +
			" (Deprecation header) and stops on " + sunset + " (Sunset header). Walk lists with cursors: pass next_cursor as cursor, with cursor_limit instead of limit.",
		Link: o.DocsURL,
	}
}

// Changelog is every entry, newest first, the offset deprecation dated by
// the deployment's policy o.
func Changelog(o pagination.Offset) []Entry {
	out := append([]Entry{OffsetEntry(o)}, history...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Date.After(out[j].Date) })
	return out
}

// The Atom 1.0 document (RFC 4287).
type (
	atomFeed struct {
		XMLName  xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
		ID       string      `xml:"id"`
		Title    string      `xml:"title"`
		Subtitle string      `xml:"subtitle"`
		Updated  string      `xml:"updated"`
		Author   atomAuthor  `xml:"author"`
		Links    []atomLink  `xml:"link"`
		Entries  []atomEntry `xml:"entry"`
	}
	atomAuthor struct {
		Name string `xml:"name"`
		URI  string `xml:"uri"`
	}
	atomLink struct {
		Rel  string `xml:"rel,attr"`
		Type string `xml:"type,attr,omitempty"`
		Href string `xml:"href,attr"`
	}
	atomCategory struct {
		Term string `xml:"term,attr"`
	}
	atomText struct {
		Type string `xml:"type,attr"`
		Text string `xml:",chardata"`
	}
	atomEntry struct {
		ID         string         `xml:"id"`
		Title      string         `xml:"title"`
		Updated    string         `xml:"updated"`
		Published  string         `xml:"published"`
		Categories []atomCategory `xml:"category"`
		Link       atomLink       `xml:"link"`
		Summary    atomText       `xml:"summary"`
	}
)

// Feed renders the changelog as Atom, the offset deprecation dated by the
// deployment's policy o. Links to this API's documents are paths, which
// resolve against the feed's own address (RFC 4287 section 2), so the
// feed is the same whatever host serves it. The feed's updated time is
// its newest entry's: the document, and its ETag, change only when an
// entry does.
func Feed(o pagination.Offset) (Document, error) {
	entries := Changelog(o)
	f := atomFeed{
		ID:       feedID,
		Title:    "BOTIX public API changelog",
		Subtitle: "Changes, additions and deprecations of the BOTIX public API and its Go SDK.",
		Updated:  stamp(entries[0].Date),
		Author:   atomAuthor{Name: "BOTIX developers", URI: "https://developers.botix.pro"},
		Links: []atomLink{
			{Rel: "self", Type: "application/atom+xml", Href: ChangelogPath},
			{Rel: "related", Type: "text/html", Href: ErrorCodesPagePath},
		},
	}
	for _, e := range entries {
		f.Entries = append(f.Entries, atomEntry{
			ID: EntryID(e.Slug), Title: e.Title, Updated: stamp(e.Date), Published: stamp(e.Date),
			Categories: []atomCategory{{Term: e.Kind}, {Term: e.Version}},
			Link:       atomLink{Rel: "alternate", Href: e.Link},
			Summary:    atomText{Type: "text", Text: e.Text},
		})
	}
	b, err := xml.MarshalIndent(f, "", " ")
	if err != nil {
		return Document{}, err
	}
	return document(append([]byte(xml.Header), b...)), nil
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
