package bench

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/botix/public-api/infra/testkit/functionenv"

	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/cursor"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
)

// PaginationConfig sizes the pagination benchmark.
type PaginationConfig struct {
	Contacts   int
	Depth      int
	PageSize   int
	Iterations int
}

// Pagination loads one project with cfg.Contacts contacts and measures, in
// one run, page 1 and the page at cfg.Depth in cursor and offset mode:
// consumed read capacity, DynamoDB calls and latency.
func Pagination(ctx context.Context, endpoint string, cfg PaginationConfig, out io.Writer) error {
	e, err := newEnv(ctx, endpoint)
	if err != nil {
		return err
	}
	// Offset mode must be allowed to go deep to be measured: past its
	// production limits (OFFSET_MAX, OFFSET_TIME_BUDGET) it answers 400.
	e.vars[app.EnvOffsetMax] = fmt.Sprint(cfg.Contacts)
	e.vars[app.EnvOffsetTimeBudget] = "10m"
	fprintf(out, "\n## Pagination: %d contacts, page size %d, %d requests per row\n\n", cfg.Contacts, cfg.PageSize, cfg.Iterations)

	contacts := make([]domain.Contact, cfg.Contacts)
	end := time.Now().Add(-time.Hour)
	for i := range contacts {
		at := end.Add(-time.Duration(cfg.Contacts-1-i) * time.Millisecond)
		contacts[i] = domain.Contact{ID: ids.New(ids.Contact, at), Phone: fmt.Sprintf("+7999%07d", i), Name: fmt.Sprintf("Contact %d", i), Email: fmt.Sprintf("c%d@example.com", i), Tags: []string{"bench"}, CreatedAt: ids.Timestamp(at)}
	}
	start := time.Now()
	if err := e.store.SeedContacts(ctx, e.project, contacts, 16); err != nil {
		return err
	}
	load := time.Since(start)
	fprintf(out, "Loaded %d contacts (%d items with phone guards and tag copies) in %s with BatchWriteItem on 16 workers: %.0f contacts/s.\n\n",
		cfg.Contacts, cfg.Contacts*3, load.Round(100*time.Millisecond), float64(cfg.Contacts)/load.Seconds())

	calls := &dynamotest.Calls{}
	list, err := e.build(ctx, app.ListContacts, calls)
	if err != nil {
		return err
	}
	// The position after the cfg.Depth newest contacts, signed like a
	// cursor the API would have issued at that point of a walk.
	kr, err := cursor.ParseKeyring(functionenv.CursorKeys)
	if err != nil {
		return err
	}
	u, _ := ids.Parse(ids.Contact, contacts[cfg.Contacts-cfg.Depth].ID)
	deep, err := kr.Encode(cursor.Binding{Project: e.project, Endpoint: "GET /public/v1/contacts"}, cursor.Position{"pk": "P#" + e.project + "#CT", "sk": u.String()})
	if err != nil {
		return err
	}
	rows := []struct{ mode, depth, query string }{
		{"cursor", "page 1", fmt.Sprintf("cursor_limit=%d", cfg.PageSize)},
		{"cursor", fmt.Sprint(cfg.Depth), fmt.Sprintf("cursor_limit=%d&cursor=%s", cfg.PageSize, url.QueryEscape(deep))},
		{"offset", "page 1", fmt.Sprintf("pagination=offset&offset=0&limit=%d", cfg.PageSize)},
		{"offset", fmt.Sprint(cfg.Depth), fmt.Sprintf("pagination=offset&offset=%d&limit=%d", cfg.Depth, cfg.PageSize)},
	}
	results := make([]stats, len(rows))
	ev := e.get("GET /public/v1/contacts", "/public/v1/contacts", "cursor_limit=1")
	if _, err := list(ctx, ev); err != nil { // warms the key cache
		return err
	}
	for i, r := range rows {
		var samples []sample
		for n := 0; n < cfg.Iterations; n++ {
			calls.Reset()
			t0 := time.Now()
			resp, err := list(ctx, e.get("GET /public/v1/contacts", "/public/v1/contacts", r.query))
			if err != nil || resp.StatusCode != 200 {
				return fmt.Errorf("%s at %s: %d %s %v", r.mode, r.depth, resp.StatusCode, resp.Body, err)
			}
			samples = append(samples, sample{latency: time.Since(t0), calls: len(calls.Ops()), rcu: calls.Capacity()})
		}
		results[i] = summarize(samples)
	}
	fprintf(out, "| mode | depth | RCU / request | DynamoDB calls / request | p50 ms | p95 ms |\n| --- | --- | --- | --- | --- | --- |\n")
	for i, r := range rows {
		s := results[i]
		fprintf(out, "| %s | %s | %.1f | %.0f | %s | %s |\n", r.mode, r.depth, s.rcu, s.calls, ms(s.p50), ms(s.p95))
	}
	c1, cd, o1, od := results[0], results[1], results[2], results[3]
	fprintf(out, "\n| ratio | RCU | calls | p50 |\n| --- | --- | --- | --- |\n")
	fprintf(out, "| cursor: depth %d / page 1 (target <= 1.1) | %s | %s | %s |\n", cfg.Depth, ratio(cd.rcu, c1.rcu), ratio(cd.calls, c1.calls), ratio(float64(cd.p50), float64(c1.p50)))
	fprintf(out, "| offset: depth %d / page 1 | %s | %s | %s |\n", cfg.Depth, ratio(od.rcu, o1.rcu), ratio(od.calls, o1.calls), ratio(float64(od.p50), float64(o1.p50)))
	fprintf(out, "| at depth %d: offset / cursor (target >= 100) | %s | %s | %s |\n", cfg.Depth, ratio(od.rcu, cd.rcu), ratio(od.calls, cd.calls), ratio(float64(od.p50), float64(cd.p50)))
	return nil
}
