package botix

import (
	"context"
	"errors"
	"iter"
	"net/url"
	"regexp"
	"strings"
)

// Position is where a walk of a list stands: the cursor of the page that
// holds the last item handled ("" for the first page) and that item's id
// ("" when no item of that page is handled yet). The zero Position is the
// start of the list.
//
// Resuming at a position fetches that page again with its cursor and
// skips its leading items whose id is >= the saved id. Every list of the
// API is ordered newest first by id, and ids are <prefix>_<ULID> (so they
// sort by creation time as strings), which is why the rule also holds when
// the saved item was deleted in the meantime: nothing after it is lost,
// nothing before it is repeated.
//
// A position belongs to one list with its filters: the page cursor is
// bound to them, and resuming with other filters fails with
// CodeInvalidCursor.
type Position struct {
	cursor string
	after  string
}

// positionPrefix versions the text form of a Position.
const positionPrefix = "p1."

// positionID is what an item id of a position looks like.
var positionID = regexp.MustCompile(`^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$`)

// ErrInvalidPosition is returned by ParsePosition for a string that is not
// the text form of a Position.
var ErrInvalidPosition = errors.New("botix: not a list position")

// String is the position's stable text form, to store and give back to
// ParsePosition: "p1.<item id>.<page cursor>", either part possibly empty.
// Callers should treat it as opaque.
func (p Position) String() string { return positionPrefix + p.after + "." + p.cursor }

// IsZero reports whether p is the start of the list.
func (p Position) IsZero() bool { return p == Position{} }

// ParsePosition reads the text form of a Position (String). The empty
// string is the zero Position, the start of the list.
func ParsePosition(s string) (Position, error) {
	if s == "" {
		return Position{}, nil
	}
	rest, ok := strings.CutPrefix(s, positionPrefix)
	if !ok {
		return Position{}, ErrInvalidPosition
	}
	after, cursor, ok := strings.Cut(rest, ".")
	if !ok || (after != "" && !positionID.MatchString(after)) || strings.ContainsAny(cursor, " \t\r\n") {
		return Position{}, ErrInvalidPosition
	}
	return Position{cursor: cursor, after: after}, nil
}

// Walker walks one list, newest first, item by item, and knows where it
// stands (Position) after every item it yields. Stopping a walk (breaking
// out of the loop, or an error) keeps the position; calling All again, on
// this Walker or on a new one started at the saved position, continues
// with the next item: none lost, none repeated. A Walker is not safe for
// concurrent use.
type Walker[T any] struct {
	fetch func(ctx context.Context, cursor string) (Page[T], error)
	id    func(T) string
	pos   Position
}

// Position is where the walk stands: past the last item yielded. Read in
// the loop body, it already counts the item being handled, so save it
// once that item is done.
func (w *Walker[T]) Position() Position { return w.pos }

// All yields the list's items from the walker's position on, fetching a
// page at a time and stopping when the loop does. An error (of a page
// fetch) is yielded once, with a zero item, and ends this walk; the
// position stays at the last item yielded, so calling All again retries
// from there.
func (w *Walker[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		cursor, after := w.pos.cursor, w.pos.after
		for {
			page, err := w.fetch(ctx, cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			more := page.HasMore && page.NextCursor != ""
			for i, item := range page.Data {
				id := w.id(item)
				if after != "" && id >= after {
					continue // handled before the walk stopped (newer or the same)
				}
				after = ""
				w.pos = Position{cursor: cursor, after: id}
				if more && i == len(page.Data)-1 {
					// The page is done with this item: resuming starts at
					// the next page instead of fetching this one again.
					w.pos = Position{cursor: page.NextCursor}
				}
				if !yield(item, nil) {
					return
				}
			}
			if !more {
				return
			}
			cursor, after = page.NextCursor, ""
			w.pos = Position{cursor: cursor}
		}
	}
}

// walker is a Walker over the list at path with the filters of q, started
// at from, or at q's cursor when from is the zero Position.
func walker[T any](c *Client, path string, q url.Values, id func(T) string, from Position) *Walker[T] {
	if from.IsZero() {
		from = Position{cursor: q.Get("cursor")}
	}
	q.Del("cursor")
	return &Walker[T]{pos: from, id: id, fetch: func(ctx context.Context, cursor string) (Page[T], error) {
		page := make(url.Values, len(q)+1)
		for k, v := range q {
			page[k] = v
		}
		if cursor != "" {
			page.Set("cursor", cursor)
		}
		return list[T](ctx, c, path, page)
	}}
}
