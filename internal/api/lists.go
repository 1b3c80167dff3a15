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
	data := make([]T, len(page.Items))
	for i, x := range page.Items {
		data[i] = show(x)
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
