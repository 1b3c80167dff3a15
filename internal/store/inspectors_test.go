package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
)

func TestInspectorLimits(t *testing.T) {
	ctx := context.Background()
	s := dynamotest.Store(t)
	now := time.Now()
	s.Now = func() time.Time { return now }
	id := ids.NewInspector()
	in := store.Inspector{ID: id, URL: "http://x/inspect/" + id}
	var p store.Plan
	if err := s.AddInspector(&p, "prj_a", &in, now); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, p); err != nil {
		t.Fatal(err)
	}
	t.Run("a body over 64 KB is kept truncated by the handler; the store keeps what it is given", func(t *testing.T) {
		if err := s.Capture(ctx, in.ID, store.CapturedRequest{Method: "POST", Body: strings.Repeat("x", 10)}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("at most 100 requests, then LIMIT_EXCEEDED", func(t *testing.T) {
		for i := 1; i < store.InspectorMaxRequests; i++ {
			if err := s.Capture(ctx, in.ID, store.CapturedRequest{Method: "POST"}); err != nil {
				t.Fatalf("request %d: %v", i+1, err)
			}
		}
		if err := s.Capture(ctx, in.ID, store.CapturedRequest{Method: "POST"}); !apierr.Is(err, apierr.LimitExceeded) {
			t.Fatalf("101st: %v", err)
		}
	})
	t.Run("another project cannot see it", func(t *testing.T) {
		if _, err := s.GetInspector(ctx, "prj_b", in.ID); !apierr.Is(err, apierr.NotFound) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("after 24 h it is gone, even before TTL deletes it", func(t *testing.T) {
		now = now.Add(store.InspectorTTL + time.Second)
		if _, err := s.GetInspector(ctx, "prj_a", in.ID); !apierr.Is(err, apierr.NotFound) {
			t.Fatalf("err = %v", err)
		}
		if err := s.Capture(ctx, in.ID, store.CapturedRequest{Method: "POST"}); !apierr.Is(err, apierr.NotFound) {
			t.Fatalf("capture after expiry: %v", err)
		}
	})
}
