package api

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/pagination"
	"github.com/botix/public-api/internal/store"
)

// listPage answers a list request: the page of q that req asks for,
// decoded as T.
func listPage[T any](ctx context.Context, s *store.Store, p *pagination.Pager, q store.Query, req pagination.Request) (*httpapi.Response, error) {
	return listPageAs(ctx, s, p, q, req, func(t T) T { return t })
}

// listPageAs is listPage for items stored as S and shown as T.
func listPageAs[S, T any](ctx context.Context, s *store.Store, p *pagination.Pager, q store.Query, req pagination.Request, show func(S) T) (*httpapi.Response, error) {
	start := map[string]string(req.Start)
	if req.OffsetMode {
		skipped, end, err := s.SkipOffset(ctx, q, req.Offset, p.Offset.TimeBudget)
		if err != nil {
			return nil, err
		}
		if end {
			return pagination.Respond[T](p, req, nil, nil, false)
		}
		start = skipped
	}
	res, err := s.QueryPage(ctx, q, start, req.Limit)
	if err != nil {
		return nil, err
	}
	var stored []S
	if err := attributevalue.UnmarshalListOfMaps(res.Items, &stored); err != nil {
		return nil, err
	}
	data := make([]T, len(stored))
	for i, x := range stored {
		data[i] = show(x)
	}
	return pagination.Respond(p, req, data, res.Next, res.HasMore)
}

// notBefore clamps a since filter to a retention window: items past it
// may linger until DynamoDB's TTL sweeper runs, and must not show.
func notBefore(since time.Time, now time.Time, retention time.Duration) time.Time {
	if floor := now.Add(-retention); since.Before(floor) {
		return floor
	}
	return since
}

// enumParam reads a query parameter that must be one of allowed; the
// value goes into filters (for the cursor binding).
func enumParam(r *httpapi.Request, name string, allowed []string, filters map[string]string, problems apierr.Problems) string {
	v := r.Query.Get(name)
	if v == "" {
		return ""
	}
	if !slices.Contains(allowed, v) {
		problems.Add(name, "must be one of "+strings.Join(allowed, ", "))
	}
	filters[name] = v
	return v
}

// idParam reads a query parameter that must be an id with prefix.
func idParam(r *httpapi.Request, name, prefix, what string, filters map[string]string, problems apierr.Problems) string {
	v := r.Query.Get(name)
	if v == "" {
		return ""
	}
	if _, err := ids.Parse(prefix, v); err != nil {
		problems.Add(name, "must be "+what+" ("+prefix+"_...)")
	}
	filters[name] = v
	return v
}

// timeParam parses an RFC 3339 query parameter; the normalised form goes
// into filters (for the cursor binding).
func timeParam(r *httpapi.Request, name string, filters map[string]string, problems apierr.Problems) time.Time {
	v := r.Query.Get(name)
	if v == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		problems.Add(name, "must be an RFC 3339 time such as 2026-11-29T08:00:00Z")
		return time.Time{}
	}
	filters[name] = t.UTC().Format(time.RFC3339Nano)
	return t
}
