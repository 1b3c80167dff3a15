package api

import (
	"context"
	"time"

	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/pagination"
	"github.com/botix/public-api/internal/store"
)

// listPage answers a list request: the page of l that req asks for.
func listPage[T any](ctx context.Context, s *store.Store, p *pagination.Pager, l store.List[T], req pagination.Request) (*httpapi.Response, error) {
	return listPageAs(ctx, s, p, l, req, func(t T) T { return t })
}

// listPageAs is listPage for items shown as T.
func listPageAs[S, T any](ctx context.Context, s *store.Store, p *pagination.Pager, l store.List[S], req pagination.Request, show func(S) T) (*httpapi.Response, error) {
	return listPageWith(ctx, s, p, l, req, func(_ context.Context, items []S) ([]T, error) {
		data := make([]T, len(items))
		for i, x := range items {
			data[i] = show(x)
		}
		return data, nil
	})
}

// listPageWith is listPage for items shown by show, a whole page at once
// (it may read more for them).
func listPageWith[S, T any](ctx context.Context, s *store.Store, p *pagination.Pager, l store.List[S], req pagination.Request, show func(context.Context, []S) ([]T, error)) (*httpapi.Response, error) {
	start := map[string]string(req.Start)
	if req.OffsetMode {
		skipped, end, err := s.SkipOffset(ctx, l.Query, req.Offset, p.Offset.TimeBudget)
		if err != nil {
			return nil, err
		}
		if end {
			return pagination.Respond[T](p, req, nil, nil, false)
		}
		start = skipped
	}
	page, err := store.ReadPage(ctx, s, l, start, req.Limit)
	if err != nil {
		return nil, err
	}
	data, err := show(ctx, page.Items)
	if err != nil {
		return nil, err
	}
	return pagination.Respond(p, req, data, page.Next, page.HasMore)
}

// notBefore clamps a since filter to a retention window: items past it
// may linger until DynamoDB's TTL sweeper runs, and must not show.
func notBefore(since time.Time, now time.Time, retention time.Duration) time.Time {
	if floor := now.Add(-retention); since.Before(floor) {
		return floor
	}
	return since
}
