package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/webhook"
)

// TestADeliveryCreatedClaimedEntersTheListsWithItsAttempt: the bulk lane
// stores a delivery claimed, its first attempt about to run. It is found
// by id and in the unfiltered list at once, and enters the status and
// endpoint lists when its attempt is recorded (or when a claim takes it
// again after its worker crashed, or a manual attempt is recorded), with
// its index entries written once at their final status: the first try's
// writes cost 10 write units, where a delivery listed pending at its
// create (the delivery queue's lane) costs 14 with its claim, and the
// bulk lane's cost 13 before (prices as AWS bills them,
// dynamotest.Capacity).
func TestADeliveryCreatedClaimedEntersTheListsWithItsAttempt(t *testing.T) {
	ctx := context.Background()
	c := dynamotest.NewCapacity(dynamotest.Client(t))
	s := store.New(dynamotest.Client(t, c.Option()), dynamotest.Tables(t))
	project := "prj_" + ids.NewULID(time.Now()).String()
	ep := ids.New(ids.WebhookEndpoint, time.Now())
	now := time.Now()
	newDelivery := func(claimed bool) webhook.Delivery {
		t.Helper()
		ev := ids.New(ids.Event, time.Now())
		id, err := webhook.DeliveryID(ev, ep)
		if err != nil {
			t.Fatal(err)
		}
		d := webhook.Delivery{ProjectID: project, ID: id, EventID: ev, EventType: "contact.created", EndpointID: ep,
			Status: webhook.StatusPending, Round: 1, NextAttempt: 1, Payload: `{"id":"c_1"}`, CreatedAt: ids.Timestamp(now), UpdatedAt: ids.Timestamp(now)}
		if claimed {
			d.ClaimToken, d.ClaimExpiresAt = "token", now.Add(time.Minute)
		}
		if ok, err := s.Deliveries().Create(ctx, d); err != nil || !ok {
			t.Fatalf("create: %v %v", ok, err)
		}
		return d
	}
	listed := func(id string, f store.DeliveryFilter) bool {
		t.Helper()
		return slices.Contains(deliveryIDs(t, s, project, f), id)
	}
	inLists := func(d webhook.Delivery, status webhook.Status) bool {
		t.Helper()
		return listed(d.ID, store.DeliveryFilter{Status: status}) && listed(d.ID, store.DeliveryFilter{EndpointID: ep}) &&
			listed(d.ID, store.DeliveryFilter{EndpointID: ep, Status: status})
	}
	attempt := func(d webhook.Delivery) webhook.Attempt {
		return webhook.Attempt{DeliveryID: d.ID, Attempt: 1, Round: 1, Kind: webhook.KindScheduled, URL: "https://example.com/hook",
			RequestID: ids.New(ids.Request, time.Now()), StatusCode: 200, ResponseBody: "ok", StartedAt: ids.Timestamp(time.Now())}
	}
	firstTry := func(d webhook.Delivery) float64 {
		t.Helper()
		if err := s.Deliveries().Finish(ctx, d, "token", webhook.Result{Status: webhook.StatusDelivered, LastStatus: 200}, attempt(d)); err != nil {
			t.Fatal(err)
		}
		_, w := c.Units()
		return w
	}

	t.Run("created claimed: by id and unfiltered at once, in the lists with its recorded attempt", func(t *testing.T) {
		c.Reset()
		d := newDelivery(true)
		if _, err := s.Deliveries().Get(ctx, project, d.ID); err != nil {
			t.Fatal(err)
		}
		if !listed(d.ID, store.DeliveryFilter{}) {
			t.Fatal("not in the unfiltered list")
		}
		if listed(d.ID, store.DeliveryFilter{Status: webhook.StatusPending}) || listed(d.ID, store.DeliveryFilter{EndpointID: ep}) {
			t.Fatal("listed by status or endpoint while its first attempt runs")
		}
		c.Reset()
		units := firstTry(d)
		if !inLists(d, webhook.StatusDelivered) {
			t.Fatal("delivered, yet not in the delivered and endpoint lists")
		}
		if listed(d.ID, store.DeliveryFilter{Status: webhook.StatusPending}) {
			t.Fatal("still listed pending")
		}
		t.Logf("the attempt's record: %.0f write units", units)
	})

	t.Run("a first try costs 10 write units created claimed, 14 created listed and claimed", func(t *testing.T) {
		cost := func(claimed bool) float64 {
			c.Reset()
			d := newDelivery(claimed)
			d.ClaimToken = "token"
			if !claimed {
				// The delivery queue's lane: stored by the dispatcher, then claimed.
				if _, ok, err := s.Deliveries().Claim(ctx, webhook.Claim{Project: project, ID: d.ID, Round: 1, Attempt: 1, Token: "token",
					Until: time.Now().Add(time.Minute), Now: time.Now(), Endpoint: ep}); err != nil || !ok {
					t.Fatalf("claim: %v %v", ok, err)
				}
			}
			return firstTry(d)
		}
		bulk, queued := cost(true), cost(false)
		t.Logf("first try: %.0f write units created claimed, %.0f created listed and claimed", bulk, queued)
		if bulk != 10 || queued != 14 {
			t.Fatalf("first try: %.0f and %.0f write units; want 10 (created claimed) and 14 (created listed, 1 more for the claim)", bulk, queued)
		}
	})

	t.Run("a claim after a crash lists the delivery; a claim of a listed one writes no index", func(t *testing.T) {
		d := newDelivery(true) // its worker crashed: the claim runs out
		later := time.Now().Add(2 * time.Minute)
		claim := webhook.Claim{Project: project, ID: d.ID, Round: 1, Attempt: 1, Token: "second", Until: later.Add(time.Minute), Now: later, Endpoint: ep}
		if _, ok, err := s.Deliveries().Claim(ctx, claim); err != nil || !ok {
			t.Fatalf("claim: %v %v", ok, err)
		}
		if !inLists(d, webhook.StatusPending) {
			t.Fatal("claimed again, yet not in the pending and endpoint lists")
		}
		claim.Token, claim.Now, claim.Until = "third", later.Add(2*time.Minute), later.Add(3*time.Minute)
		c.Reset()
		if _, ok, err := s.Deliveries().Claim(ctx, claim); err != nil || !ok {
			t.Fatalf("claim: %v %v", ok, err)
		}
		if _, w := c.Units(); w != 1 {
			t.Fatalf("a claim of a listed delivery costs %.0f write units; want 1 (the item alone)", w)
		}
	})

	t.Run("a manual attempt on a delivery created claimed lists it", func(t *testing.T) {
		d := newDelivery(true)
		a := attempt(d)
		a.Kind, a.StatusCode = webhook.KindManual, 503
		if err := s.Deliveries().RecordExtra(ctx, d, false, a); err != nil {
			t.Fatal(err)
		}
		if !inLists(d, webhook.StatusPending) {
			t.Fatal("a manual attempt recorded, yet not in the pending and endpoint lists")
		}
	})
}
