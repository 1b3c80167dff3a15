package botix

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Retry advice of an error code (ErrorCodeInfo.Retry).
const (
	// RetryNever: the same request gets the same answer; change it first
	// (a changed mutation needs a new Idempotency-Key).
	RetryNever = "never"
	// RetryAfterHeader: send the same request, with the same key, after
	// the answer's Retry-After.
	RetryAfterHeader = "after_retry_after"
	// RetryBackoff: a retry with the same key is safe but may fail the
	// same way; back off, and quote the request id if it persists.
	RetryBackoff = "backoff"
)

// ErrorCodeInfo is one entry of the API's error-code reference.
type ErrorCodeInfo struct {
	Code Code `json:"code"`
	// Status is the HTTP status the code comes with.
	Status int `json:"status"`
	// When is the situation the code reports; Action is what to do. Names
	// are quoted in `backticks`.
	When   string `json:"when"`
	Action string `json:"action"`
	// Retry is RetryNever, RetryAfterHeader or RetryBackoff.
	Retry string `json:"retry"`
	// DocsURL is the code's entry on the reference page, relative to the
	// API's base URL (/docs/error-codes#CODE).
	DocsURL string `json:"docs_url"`
}

// ErrorCodes returns the API's error-code reference (GET
// /public/v1/error-codes): every code it can answer, by status.
func (c *Client) ErrorCodes(ctx context.Context) ([]ErrorCodeInfo, error) {
	var out struct {
		Codes []ErrorCodeInfo `json:"codes"`
	}
	_, err := c.do(ctx, request{method: http.MethodGet, path: "/error-codes"}, &out, nil)
	return out.Codes, err
}

// ChangelogEntry is one announcement of the API's changelog.
type ChangelogEntry struct {
	// ID is the entry's permanent id (a tag URI).
	ID    string
	Title string
	// Published is when the change took effect (for a deprecation: when
	// it began).
	Published time.Time
	Updated   time.Time
	// Categories are the kind ("added", "changed", "deprecated") and the
	// version ("API 1.1.0", "Go SDK 1.1.0").
	Categories []string
	// Link is where to read more: an absolute URL, or a path of the API.
	Link    string
	Summary string
}

// OffsetDeprecationID is the changelog id of the offset pagination's
// deprecation.
const OffsetDeprecationID = "tag:botix.pro,2026:changelog/cursor-pagination"

type atomFeed struct {
	Entries []struct {
		ID         string    `xml:"http://www.w3.org/2005/Atom id"`
		Title      string    `xml:"http://www.w3.org/2005/Atom title"`
		Published  time.Time `xml:"http://www.w3.org/2005/Atom published"`
		Updated    time.Time `xml:"http://www.w3.org/2005/Atom updated"`
		Categories []struct {
			Term string `xml:"term,attr"`
		} `xml:"http://www.w3.org/2005/Atom category"`
		Link struct {
			Href string `xml:"href,attr"`
		} `xml:"http://www.w3.org/2005/Atom link"`
		Summary string `xml:"http://www.w3.org/2005/Atom summary"`
	} `xml:"http://www.w3.org/2005/Atom entry"`
}

// Changelog reads the API's changelog feed (GET /public/v1/changelog.atom,
// Atom 1.0), newest entry first. It is one attempt: the feed can be read
// again at will.
func (c *Client) Changelog(ctx context.Context) ([]ChangelogEntry, error) {
	actx, cancel := context.WithTimeout(ctx, c.attemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, c.baseURL+"/public/v1/changelog.atom", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/atom+xml")
	req.Header.Set("User-Agent", c.userAgent)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("botix: GET /changelog.atom: %w", err)
	}
	defer resp.Body.Close()
	payload, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("botix: GET /changelog.atom: reading the answer: %w", err)
	}
	if resp.StatusCode >= 400 {
		return nil, errorOf(resp.StatusCode, resp.Header, payload)
	}
	var f atomFeed
	if err := xml.Unmarshal(payload, &f); err != nil {
		return nil, fmt.Errorf("botix: decode the changelog (request_id %s): %w", resp.Header.Get("X-Request-Id"), err)
	}
	out := make([]ChangelogEntry, 0, len(f.Entries))
	for _, e := range f.Entries {
		ce := ChangelogEntry{ID: e.ID, Title: e.Title, Published: e.Published, Updated: e.Updated, Link: e.Link.Href, Summary: e.Summary}
		for _, cat := range e.Categories {
			ce.Categories = append(ce.Categories, cat.Term)
		}
		out = append(out, ce)
	}
	return out, nil
}
