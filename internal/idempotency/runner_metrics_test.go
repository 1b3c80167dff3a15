package idempotency_test

import (
	"context"
	"testing"

	"github.com/botix/public-api/internal/idempotency"
	"github.com/botix/public-api/internal/metrics/collect"
)

func TestRunnerMetrics(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(f *fixture)
		want map[string]float64
	}{
		{"a first request captures its key", func(f *fixture) {
			_, _ = f.run(context.Background(), request("k", "fp"), f.create("ivan"))
		}, map[string]float64{"IdempotentRequests/captured": 1}},
		{"a repeat is replayed", func(f *fixture) {
			_, _ = f.run(context.Background(), request("k", "fp"), f.create("ivan"))
			_, _ = f.run(context.Background(), request("k", "fp"), f.create("ivan"))
		}, map[string]float64{"IdempotentRequests/captured": 1, "IdempotentRequests/replayed": 1}},
		{"another body is a reuse conflict", func(f *fixture) {
			_, _ = f.run(context.Background(), request("k", "fp"), f.create("ivan"))
			_, _ = f.run(context.Background(), request("k", "other"), f.create("ivan"))
		}, map[string]float64{"IdempotentRequests/captured": 1, "IdempotentRequests/reuse_conflict": 1}},
		{"a repeat while the first runs is in progress", func(f *fixture) {
			_, _ = f.run(context.Background(), request("k", "fp"), func(ctx context.Context) (idempotency.Outcome, error) {
				_, _ = f.run(ctx, request("k", "fp"), f.create("ivan"))
				return f.create("ivan")(ctx)
			})
		}, map[string]float64{"IdempotentRequests/captured": 1, "IdempotentRequests/in_progress": 1}},
		{"a commit that finds its record released is fenced", func(f *fixture) {
			_, _ = f.run(context.Background(), request("k", "fp"), func(ctx context.Context) (idempotency.Outcome, error) {
				rec, _ := f.store.Record("prj_1", "k")
				_ = f.store.Release(ctx, idempotency.Lock{Scope: "prj_1", Key: "k", Token: rec.LockToken})
				return f.create("ivan")(ctx)
			})
		}, map[string]float64{"IdempotentRequests/captured": 1, "FencedCommits": 1}},
		{"a commit that landed though reported lost is not fenced", func(f *fixture) {
			f.runner.Store = &retryingStore{Store: f.store}
			_, _ = f.run(context.Background(), request("k", "fp"), f.create("ivan"))
		}, map[string]float64{"IdempotentRequests/captured": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture()
			tel := &collect.Telemetry{}
			f.runner.Log = tel.Logger("CreateContactFunction")
			tc.do(f)
			got := tel.Totals()
			if len(got) != len(tc.want) {
				t.Errorf("metrics %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v (all: %v)", k, got[k], v, got)
				}
			}
		})
	}
}
