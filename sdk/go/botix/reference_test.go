package botix_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/botix/public-api/sdk/go/botix"
)

const feed = `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
 <id>tag:botix.pro,2026:changelog</id><title>BOTIX public API changelog</title><updated>2026-05-01T00:00:00Z</updated>
 <entry>
  <id>tag:botix.pro,2026:changelog/cursor-pagination</id>
  <title>Offset pagination is deprecated: migrate to cursors by 2027-05-01</title>
  <updated>2026-05-01T00:00:00Z</updated><published>2026-05-01T00:00:00Z</published>
  <category term="deprecated"></category><category term="API 1.1.0"></category>
  <link rel="alternate" href="https://developers.botix.pro/changelog/cursor-pagination"></link>
  <summary type="text">stops on 2027-05-01</summary>
 </entry>
</feed>`

// TestChangelog: the feed's entries come back with their dates, kinds and
// links; an error answer is a *botix.Error.
func TestChangelog(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/atom+xml")
		fmt.Fprint(w, feed)
	})
	entries, err := fast(f).Changelog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	if len(entries) != 1 || entries[0].ID != botix.OffsetDeprecationID || !entries[0].Published.Equal(want) ||
		entries[0].Link != "https://developers.botix.pro/changelog/cursor-pagination" || len(entries[0].Categories) != 2 || entries[0].Categories[0] != "deprecated" {
		t.Fatalf("%+v", entries)
	}
	if got := f.requests()[0]; got.URL.Path != "/public/v1/changelog.atom" || got.Header.Get("Accept") != "application/atom+xml" {
		t.Fatalf("%s %v", got.URL.Path, got.Header)
	}

	f.setAnswers(apiError(http.StatusInternalServerError, "INTERNAL"))
	var e *botix.Error
	if _, err := fast(f).Changelog(context.Background()); !errors.As(err, &e) || e.Code != botix.CodeInternal {
		t.Fatalf("an error answer: %v", err)
	}
}

// TestErrorCodes: the reference decodes into ErrorCodeInfo.
func TestErrorCodes(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"codes":[{"code":"IDEMPOTENCY_KEY_IN_PROGRESS","status":409,"when":"w","action":"a","retry":"after_retry_after","docs_url":"/docs/error-codes#IDEMPOTENCY_KEY_IN_PROGRESS"}]}`)
	})
	codes, err := fast(f).ErrorCodes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(codes) != 1 || codes[0].Code != botix.CodeIdempotencyKeyInProgress || codes[0].Status != 409 || codes[0].Retry != botix.RetryAfterHeader {
		t.Fatalf("%+v", codes)
	}
	if p := f.requests()[0].URL.Path; p != "/public/v1/error-codes" {
		t.Fatalf("path %s", p)
	}
}
