package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
)

// TestRequestIndexCost: indexing an attempt by its request id (gsi3, keys
// only) adds no call to the delivery path: the attempt's transaction stays
// its one call. Its units are logged as DynamoDB Local reports them
// (through dynamotest.Capacity): the index entry is the attempt's keys, so
// a 4 KB response body costs the index nothing more (an index projecting
// the whole attempt, as gsi1 and gsi2 do, would add the body's units
// again); an attempt without a request is not indexed. The lookup is one
// Query of half a read unit.
func TestRequestIndexCost(t *testing.T) {
	ctx := context.Background()
	c, calls := dynamotest.NewCapacity(dynamotest.Client(t)), &dynamotest.Calls{}
	s := store.New(dynamotest.Client(t, c.Option(), calls.Option()), dynamotest.Tables(t))
	log := deliveryLog{t: t, s: s, project: "prj_" + ids.NewULID(time.Now()).String()}
	id := log.add(ids.New(ids.Event, time.Now()), ids.New(ids.WebhookEndpoint, time.Now()), webhook.StatusPending)
	d, err := s.Deliveries().Get(ctx, log.project, id)
	if err != nil {
		t.Fatal(err)
	}
	record := func(rid, body string) (float64, []string) {
		t.Helper()
		c.Reset()
		calls.Reset()
		if err := s.Deliveries().RecordExtra(ctx, d, false, webhook.Attempt{
			DeliveryID: id, Attempt: 1, Round: 1, Kind: webhook.KindManual, URL: "https://example.com/hook",
			RequestID: rid, StatusCode: 503, ResponseBody: body, StartedAt: ids.Timestamp(time.Now()),
		}); err != nil {
			t.Fatal(err)
		}
		_, w := c.Units()
		return w, calls.Ops()
	}
	for _, body := range []string{"", strings.Repeat("x", 4096)} {
		record("", body) // the counters this attempt adds to exist from here on
		without, opsWithout := record("", body)
		with, opsWith := record(ids.New(ids.Request, time.Now()), body)
		t.Logf("response body %d B: %.0f write units without a request id, %.0f with; calls %v, %v", len(body), without, with, opsWithout, opsWith)
		if strings.Join(opsWith, ",") != strings.Join(opsWithout, ",") || strings.Join(opsWith, ",") != "TransactWriteItems" {
			t.Errorf("body %d B: calls %v → %v: want the same one call", len(body), opsWithout, opsWith)
		}
		if len(body) > 0 && with-without > 2 {
			t.Errorf("body %d B: %.0f → %.0f write units: the index grows with the attempt", len(body), without, with)
		}
	}
	rid := ids.New(ids.Request, time.Now())
	record(rid, "")
	c.Reset()
	calls.Reset()
	got, err := s.Deliveries().DeliveryOfRequest(ctx, log.project, rid)
	r, _ := c.Units()
	t.Logf("lookup: %v, %.1f read units", calls.Ops(), r)
	if err != nil || got != id || strings.Join(calls.Ops(), ",") != "Query" || r > 0.5 {
		t.Fatalf("DeliveryOfRequest = %q, %v (calls %v, %.1f read units); want %s, one Query of 0.5 units", got, err, calls.Ops(), r, id)
	}
	if got, err := s.Deliveries().DeliveryOfRequest(ctx, "prj_"+ids.NewULID(time.Now()).String(), rid); err != nil || got != "" {
		t.Fatalf("another project's lookup = %q, %v", got, err)
	}
}
