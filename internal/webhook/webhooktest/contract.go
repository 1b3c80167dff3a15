package webhooktest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
)

// NewDelivery returns a fresh pending delivery of project, as the
// dispatcher creates it.
func NewDelivery(project string, now time.Time) webhook.Delivery {
	ev, ep := ids.New(ids.Event, now), ids.New(ids.WebhookEndpoint, now)
	id, err := webhook.DeliveryID(ev, ep)
	if err != nil {
		panic(err)
	}
	ts := ids.Timestamp(now)
	return webhook.Delivery{ProjectID: project, ID: id, EventID: ev, EventType: domain.EventContactCreated, EndpointID: ep,
		Status: webhook.StatusPending, Round: 1, NextAttempt: 1, Payload: `{"id":"` + ev + `","data":{"name":"Ольга"}}`, CreatedAt: ts, UpdatedAt: ts}
}

// DeliveryTo returns a fresh pending delivery of an event of time at to
// endpoint.
func DeliveryTo(project, endpoint string, at time.Time) webhook.Delivery {
	d := NewDelivery(project, at)
	ev := ids.New(ids.Event, at)
	id, err := webhook.DeliveryID(ev, endpoint)
	if err != nil {
		panic(err)
	}
	d.ID, d.EventID, d.EndpointID = id, ev, endpoint
	return d
}

// same compares what the Deliveries port keeps of a delivery (claim
// times at millisecond precision).
func same(a, b webhook.Delivery) bool {
	a.ClaimExpiresAt, b.ClaimExpiresAt = a.ClaimExpiresAt.Truncate(time.Millisecond), b.ClaimExpiresAt.Truncate(time.Millisecond)
	a.UpdatedAt, b.UpdatedAt = "", ""
	return a.ClaimExpiresAt.Equal(b.ClaimExpiresAt) && func() bool {
		a.ClaimExpiresAt, b.ClaimExpiresAt = time.Time{}, time.Time{}
		return a == b
	}()
}

// TestDeliveries runs the contract of webhook.Deliveries against the store
// that newStore returns (cases use fresh projects, so stores may share
// tables), one behaviour after another.
func TestDeliveries(t *testing.T, newStore func(t *testing.T) webhook.Deliveries) {
	c := deliveriesContract{ctx: context.Background(), now: time.Now(), newStore: newStore}
	for _, behaviour := range []func(*testing.T, deliveriesContract){
		deliveriesCreate, deliveriesLookup, deliveriesClaims, deliveriesFinish,
		deliveriesStats, deliveriesFailedPages, deliveriesRecovery,
	} {
		behaviour(t, c)
	}
}

// deliveriesContract is what the behaviours of TestDeliveries share: the
// store under test and one clock reading.
type deliveriesContract struct {
	ctx      context.Context
	now      time.Time
	newStore func(t *testing.T) webhook.Deliveries
}

// project is a fresh project id.
func (deliveriesContract) project() string { return ids.New(ids.Project, time.Now()) }

// get reads d back from s.
func (c deliveriesContract) get(t *testing.T, s webhook.Deliveries, d webhook.Delivery) webhook.Delivery {
	t.Helper()
	got, err := s.Get(c.ctx, d.ProjectID, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// create stores d, which must be new.
func (c deliveriesContract) create(t *testing.T, s webhook.Deliveries, d webhook.Delivery) {
	t.Helper()
	if created, err := s.Create(c.ctx, d); err != nil || !created {
		t.Fatalf("create: %v %v", created, err)
	}
}

// deliveriesCreate checks that a delivery is created once, whatever its
// state: a second create changes nothing.
func deliveriesCreate(t *testing.T, c deliveriesContract) {
	ctx, now, project, get, create := c.ctx, c.now, c.project, c.get, c.create
	t.Run("a delivery is created once and read back whole", func(t *testing.T) {
		s, d := c.newStore(t), NewDelivery(project(), now)
		create(t, s, d)
		if got := get(t, s, d); !same(got, d) {
			t.Fatalf("read back %+v, want %+v", got, d)
		}
		again := d
		again.Payload = "{}"
		if created, err := s.Create(ctx, again); err != nil || created {
			t.Fatalf("second create: %v %v", created, err)
		}
		if got := get(t, s, d); got.Payload != d.Payload {
			t.Fatal("a second create changed the delivery")
		}
	})
	t.Run("creating a delivered delivery again leaves it delivered", func(t *testing.T) {
		s, d := c.newStore(t), NewDelivery(project(), now)
		create(t, s, d)
		claimed := claim(t, s, webhook.Claim{Project: d.ProjectID, ID: d.ID, Round: 1, Attempt: 1, Token: "t", Now: now, Until: now.Add(time.Minute)})
		if err := s.Finish(ctx, claimed, "t", webhook.Result{Status: webhook.StatusDelivered, LastStatus: 200}, webhook.Attempt{DeliveryID: d.ID, Attempt: 1}); err != nil {
			t.Fatal(err)
		}
		if created, err := s.Create(ctx, d); err != nil || created {
			t.Fatalf("create again: %v %v", created, err)
		}
		if got := get(t, s, d); got.Status != webhook.StatusDelivered || got.Attempts != 1 || got.NextAttempt != 2 {
			t.Fatalf("after a replayed create: %+v", got)
		}
	})
	t.Run("a delivery created claimed is read back claimed, finished under its token, and a second create changes nothing", func(t *testing.T) {
		s := c.newStore(t)
		d := webhook.Claim{Token: "first", Until: now.Add(time.Minute)}.Apply(NewDelivery(project(), now))
		create(t, s, d)
		if got := get(t, s, d); !same(got, d) {
			t.Fatalf("read back %+v, want %+v", got, d)
		}
		again := webhook.Claim{Token: "second", Until: now.Add(2 * time.Minute)}.Apply(d)
		if created, err := s.Create(ctx, again); err != nil || created {
			t.Fatalf("second create: %v %v", created, err)
		}
		if err := s.Finish(ctx, d, "second", webhook.Result{Status: webhook.StatusDelivered}, webhook.Attempt{DeliveryID: d.ID, Attempt: 1}); !errors.Is(err, webhook.ErrClaimLost) {
			t.Fatalf("finish under the second create's token: %v", err)
		}
		if err := s.Finish(ctx, d, "first", webhook.Result{Status: webhook.StatusDelivered, LastStatus: 204}, webhook.Attempt{DeliveryID: d.ID, Attempt: 1}); err != nil {
			t.Fatal(err)
		}
		if got := get(t, s, d); got.Status != webhook.StatusDelivered || got.Attempts != 1 || got.ClaimToken != "" {
			t.Fatalf("after finish: %+v", got)
		}
	})
}

// deliveriesLookup checks that a delivery is read and claimed in its own
// project only.
func deliveriesLookup(t *testing.T, c deliveriesContract) {
	ctx, now, project, create := c.ctx, c.now, c.project, c.create
	t.Run("a delivery is found in its own project only", func(t *testing.T) {
		s, d := c.newStore(t), NewDelivery(project(), now)
		create(t, s, d)
		for name, key := range map[string][2]string{"other project": {project(), d.ID}, "malformed id": {d.ProjectID, "dlv_nope"}, "unknown id": {d.ProjectID, NewDelivery(d.ProjectID, now).ID}} {
			if _, err := s.Get(ctx, key[0], key[1]); !errors.Is(err, webhook.ErrDeliveryNotFound) {
				t.Errorf("%s: err = %v", name, err)
			}
		}
		if got, claimed, err := s.Claim(ctx, webhook.Claim{Project: project(), ID: d.ID, Round: 1, Attempt: 1, Token: "x", Now: now, Until: now.Add(time.Minute)}); err != nil || claimed || got != nil {
			t.Fatalf("claim from another project: %v %v %v", got, claimed, err)
		}
	})
}

// deliveriesClaims checks that a claim takes exactly what Claim.Allows
// admits, in every state.
func deliveriesClaims(t *testing.T, c deliveriesContract) {
	ctx, now, project, get := c.ctx, c.now, c.project, c.get
	t.Run("claims take exactly what Claim.Allows admits, as Claim.Apply says", func(t *testing.T) {
		s := c.newStore(t)
		for _, st := range claimStates {
			for _, c := range claimCases {
				t.Run(st.name+" / "+c.name, func(t *testing.T) {
					before := st.make(t, s, NewDelivery(project(), now), now)
					claim := c.claim(before, now)
					got, claimed, err := s.Claim(ctx, claim)
					if err != nil {
						t.Fatal(err)
					}
					if want := claim.Allows(before); claimed != want {
						t.Fatalf("claimed = %v, Claim.Allows = %v (delivery %+v)", claimed, want, before)
					}
					want := before
					if claimed {
						want = claim.Apply(before)
					}
					if got == nil || !same(*got, want) {
						t.Fatalf("claim returned %+v, want %+v", got, want)
					}
					if after := get(t, s, before); !same(after, want) {
						t.Fatalf("stored %+v, want %+v", after, want)
					}
				})
			}
		}
	})
}

// deliveriesFinish checks finishing a round and extra attempts: the result
// applied and the attempt logged, under the claim only.
func deliveriesFinish(t *testing.T, c deliveriesContract) {
	ctx, now, project, get, create := c.ctx, c.now, c.project, c.get, c.create
	t.Run("finish applies the result and logs the attempt, under the claim only", func(t *testing.T) {
		s, d := c.newStore(t), NewDelivery(project(), now)
		create(t, s, d)
		held := claim(t, s, webhook.Claim{Project: d.ProjectID, ID: d.ID, Round: 1, Attempt: 1, Token: "mine", Now: now, Until: now.Add(time.Minute)})
		first := webhook.Attempt{DeliveryID: d.ID, Attempt: 1, Round: 1, Kind: webhook.KindScheduled, URL: "https://example.com/h", RequestID: "req_1",
			StatusCode: 503, ResponseBody: "упал <b>", StartedAt: ids.Timestamp(now), DurationMs: 12, ErrorClass: "http_503", NextAttemptAt: ids.Timestamp(now.Add(time.Minute))}
		retry := webhook.Result{Status: webhook.StatusRetrying, NextAttemptAt: first.NextAttemptAt, LastStatus: 503, LastClass: "http_503"}
		if err := s.Finish(ctx, held, "not-mine", retry, first); !errors.Is(err, webhook.ErrClaimLost) {
			t.Fatalf("finish under another token: %v", err)
		}
		if err := s.Finish(ctx, held, "mine", retry, first); err != nil {
			t.Fatal(err)
		}
		got := get(t, s, d)
		if want := retry.Apply(held, ""); !same(got, want) {
			t.Fatalf("after finish %+v, want %+v", got, want)
		}
		if err := s.Finish(ctx, held, "mine", retry, first); !errors.Is(err, webhook.ErrClaimLost) {
			t.Fatalf("a second finish under a released claim: %v", err)
		}
		held = claim(t, s, webhook.Claim{Project: d.ProjectID, ID: d.ID, Round: 1, Attempt: 2, Token: "again", Now: now, Until: now.Add(time.Minute)})
		second := webhook.Attempt{DeliveryID: d.ID, Attempt: 2, Round: 1, Kind: webhook.KindScheduled, StatusCode: 204, StartedAt: ids.Timestamp(now)}
		if err := s.Finish(ctx, held, "again", webhook.Result{Status: webhook.StatusDelivered, LastStatus: 204}, second); err != nil {
			t.Fatal(err)
		}
		got = get(t, s, d)
		if got.Status != webhook.StatusDelivered || got.DeliveredAt == "" || got.NextAttemptAt != "" || got.Attempts != 2 {
			t.Fatalf("after delivery %+v", got)
		}
		if log, err := s.Attempts(ctx, d.ProjectID, d.ID); err != nil || len(log) != 2 || log[0] != first || log[1] != second {
			t.Fatalf("attempt log %+v %v", log, err)
		}
	})
	t.Run("a dead round keeps its reason", func(t *testing.T) {
		s, d := c.newStore(t), NewDelivery(project(), now)
		dead := toDead(t, s, d, now)
		if dead.Status != webhook.StatusDead || dead.DeadReason != "the endpoint answered 401, which is not retried" || dead.LastStatusCode != 401 {
			t.Fatalf("dead %+v", dead)
		}
	})
	t.Run("extra attempts are counted and logged; a manual success delivers", func(t *testing.T) {
		s, d := c.newStore(t), NewDelivery(project(), now)
		dead := toDead(t, s, d, now)
		failedManual := webhook.Attempt{DeliveryID: d.ID, Attempt: 2, Round: 1, Kind: webhook.KindManual, StatusCode: 500, StartedAt: ids.Timestamp(now)}
		if err := s.RecordExtra(ctx, dead, false, failedManual); err != nil {
			t.Fatal(err)
		}
		if got := get(t, s, d); got.Attempts != 2 || got.Status != webhook.StatusDead || got.Round != 1 {
			t.Fatalf("after a failed manual attempt %+v", got)
		}
		okManual := webhook.Attempt{DeliveryID: d.ID, Attempt: 3, Round: 1, Kind: webhook.KindManual, StatusCode: 200, StartedAt: ids.Timestamp(now)}
		if err := s.RecordExtra(ctx, dead, true, okManual); err != nil {
			t.Fatal(err)
		}
		got := get(t, s, d)
		if got.Attempts != 3 || got.Status != webhook.StatusDelivered || got.DeliveredAt == "" || got.DeadReason != "" || got.Round != 1 {
			t.Fatalf("after a successful manual attempt %+v", got)
		}
		if log, _ := s.Attempts(ctx, d.ProjectID, d.ID); len(log) != 3 || log[1] != failedManual || log[2] != okManual {
			t.Fatalf("attempt log %+v", log)
		}
		gone := NewDelivery(d.ProjectID, now)
		if err := s.RecordExtra(ctx, gone, false, okManual); !errors.Is(err, webhook.ErrDeliveryNotFound) {
			t.Fatalf("extra attempt of a missing delivery: %v", err)
		}
	})
}

// deliveriesStats checks the hourly attempt counts.
func deliveriesStats(t *testing.T, c deliveriesContract) {
	ctx, now, project, create := c.ctx, c.now, c.project, c.create
	t.Run("attempts are counted once, in their hour, by the status they left", func(t *testing.T) {
		s, prj := c.newStore(t), project()
		a, b := ids.New(ids.WebhookEndpoint, now), ids.New(ids.WebhookEndpoint, now)
		hour := now.UTC().Truncate(time.Hour)
		earlier := hour.Add(-2 * time.Hour).Add(17 * time.Minute)
		// a: fails two hours ago, is delivered now; a redirect is not counted.
		da := DeliveryTo(prj, a, earlier)
		create(t, s, da)
		held := claim(t, s, webhook.Claim{Project: prj, ID: da.ID, Round: 1, Attempt: 1, Token: "a1", Now: now, Until: now.Add(time.Minute)})
		if err := s.Finish(ctx, held, "a1", webhook.Result{Status: webhook.StatusRetrying}, webhook.Attempt{DeliveryID: da.ID, Attempt: 1, StartedAt: ids.Timestamp(earlier)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Finish(ctx, held, "a1", webhook.Result{Status: webhook.StatusDelivered}, webhook.Attempt{DeliveryID: da.ID, Attempt: 1, StartedAt: ids.Timestamp(now)}); !errors.Is(err, webhook.ErrClaimLost) {
			t.Fatalf("finish under a released claim: %v", err)
		}
		held = claim(t, s, webhook.Claim{Project: prj, ID: da.ID, Round: 1, Attempt: 2, Token: "a2", Now: now, Until: now.Add(time.Minute)})
		if err := s.Finish(ctx, held, "a2", webhook.Result{Status: webhook.StatusDelivered}, webhook.Attempt{DeliveryID: da.ID, Attempt: 2, StartedAt: ids.Timestamp(now)}); err != nil {
			t.Fatal(err)
		}
		if err := s.RecordExtra(ctx, held, false, webhook.Attempt{DeliveryID: da.ID, Kind: webhook.KindRedirect, StartedAt: ids.Timestamp(now)}); err != nil {
			t.Fatal(err)
		}
		// b: dead now; a failed manual retry counts as dead, a successful one as delivered.
		db := DeliveryTo(prj, b, now)
		dead := toDead(t, s, db, now)
		for _, ok := range []bool{false, true} {
			if err := s.RecordExtra(ctx, dead, ok, webhook.Attempt{DeliveryID: db.ID, Kind: webhook.KindManual, StartedAt: ids.Timestamp(now)}); err != nil {
				t.Fatal(err)
			}
		}
		// deliveries: a counted at its first attempt, earlier; b now.
		want := func(h time.Time, d, r, x, deliveries int64) webhook.HourCounts {
			return webhook.HourCounts{Hour: h, Counts: webhook.Counts{Delivered: d, Retrying: r, Dead: x, Deliveries: deliveries}}
		}
		for _, c := range []struct {
			name     string
			endpoint string
			from, to time.Time
			want     []webhook.HourCounts
		}{
			{"the project", "", hour.Add(-24 * time.Hour), hour, []webhook.HourCounts{want(earlier.Truncate(time.Hour), 0, 1, 0, 1), want(hour, 2, 0, 2, 1)}},
			{"one endpoint", a, hour.Add(-24 * time.Hour), hour, []webhook.HourCounts{want(earlier.Truncate(time.Hour), 0, 1, 0, 1), want(hour, 1, 0, 0, 0)}},
			{"the other endpoint", b, hour.Add(-24 * time.Hour), hour.Add(time.Hour), []webhook.HourCounts{want(hour, 1, 0, 2, 1)}},
			{"the last hour only", "", now, now, []webhook.HourCounts{want(hour, 2, 0, 2, 1)}},
			{"hours before any attempt", "", hour.Add(-48 * time.Hour), hour.Add(-3 * time.Hour), nil},
			{"an endpoint of no attempts", ids.New(ids.WebhookEndpoint, now), hour.Add(-24 * time.Hour), hour, nil},
		} {
			got, err := s.Stats(ctx, prj, c.endpoint, c.from, c.to)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("%s: stats %v, want %v", c.name, got, c.want)
			}
		}
		if got, err := s.Stats(ctx, project(), "", hour.Add(-24*time.Hour), hour); err != nil || len(got) != 0 {
			t.Fatalf("another project's stats: %v %v", got, err)
		}
	})
}

// deliveriesFailedPages checks the failed pages of an endpoint.
func deliveriesFailedPages(t *testing.T, c deliveriesContract) {
	ctx, now, project, create := c.ctx, c.now, c.project, c.create
	t.Run("failed pages list an endpoint's retrying and dead deliveries of a window", func(t *testing.T) {
		s, prj := c.newStore(t), project()
		ep := ids.New(ids.WebhookEndpoint, now)
		at := func(d time.Duration) time.Time { return now.Add(-d) }
		old := toDead(t, s, DeliveryTo(prj, ep, at(5*time.Hour)), now)
		deadOne := toDead(t, s, DeliveryTo(prj, ep, at(3*time.Hour)), now)
		retrying := DeliveryTo(prj, ep, at(2*time.Hour))
		create(t, s, retrying)
		held := claim(t, s, webhook.Claim{Project: prj, ID: retrying.ID, Round: 1, Attempt: 1, Token: "r", Now: now, Until: now.Add(time.Minute)})
		if err := s.Finish(ctx, held, "r", webhook.Result{Status: webhook.StatusRetrying}, webhook.Attempt{DeliveryID: retrying.ID, Attempt: 1}); err != nil {
			t.Fatal(err)
		}
		pending := DeliveryTo(prj, ep, at(time.Hour))
		create(t, s, pending)
		delivered := DeliveryTo(prj, ep, at(time.Hour))
		create(t, s, delivered)
		held = claim(t, s, webhook.Claim{Project: prj, ID: delivered.ID, Round: 1, Attempt: 1, Token: "d", Now: now, Until: now.Add(time.Minute)})
		if err := s.Finish(ctx, held, "d", webhook.Result{Status: webhook.StatusDelivered}, webhook.Attempt{DeliveryID: delivered.ID, Attempt: 1}); err != nil {
			t.Fatal(err)
		}
		toDead(t, s, DeliveryTo(prj, ids.New(ids.WebhookEndpoint, now), at(time.Hour)), now) // another endpoint
		toDead(t, s, DeliveryTo(project(), ep, at(time.Hour)), now)                          // another project
		for _, c := range []struct {
			name         string
			since, until time.Time
			want         []string
		}{
			{"the whole window", at(6 * time.Hour), now, []string{old.ID, deadOne.ID, retrying.ID}},
			{"since is inclusive", at(3 * time.Hour), now, []string{deadOne.ID, retrying.ID}},
			{"until is inclusive", at(6 * time.Hour), at(3 * time.Hour), []string{old.ID, deadOne.ID}},
			{"a window of none", at(90 * time.Minute), now, nil},
			{"until before since", now, at(6 * time.Hour), nil},
		} {
			// Read page by page: one delivery a page, two, and all at once;
			// the pages join up to the same list, and none reads more than
			// its limit.
			for _, limit := range []int{1, 2, 100} {
				var gotIDs []string
				after, pages := "", 0
				for {
					got, last, err := s.FailedPage(ctx, prj, ep, c.since, c.until, after, limit)
					if err != nil {
						t.Fatal(err)
					}
					if pages++; len(got) > limit || pages > 10 {
						t.Fatalf("%s, limit %d: page %d has %d deliveries", c.name, limit, pages, len(got))
					}
					for _, d := range got {
						if d.Payload != "" {
							t.Errorf("%s: the payload of %s was read", c.name, d.ID)
						}
						gotIDs = append(gotIDs, d.ID)
					}
					if last == "" {
						break
					}
					after = last
				}
				if fmt.Sprint(gotIDs) != fmt.Sprint(c.want) {
					t.Errorf("%s, limit %d: failed %v, want %v", c.name, limit, gotIDs, c.want)
				}
			}
		}
	})
}

// deliveriesRecovery checks a recovery's mark on its deliveries and its
// outcomes.
func deliveriesRecovery(t *testing.T, c deliveriesContract) {
	ctx, now, project := c.ctx, c.now, c.project
	t.Run("a recovery's redrive marks its delivery, the failed pages show the mark, a dead-letter redrive clears it", func(t *testing.T) {
		s, prj := c.newStore(t), project()
		ep := ids.New(ids.WebhookEndpoint, now)
		d := toDead(t, s, DeliveryTo(prj, ep, now.Add(-time.Hour)), now)
		at := now.Add(time.Minute).Truncate(time.Millisecond)
		held := claim(t, s, webhook.Claim{Project: prj, ID: d.ID, RedriveOfRound: 1, Recovery: "rcv_1", Token: "r", Now: at, Until: at.Add(time.Minute)})
		if !held.RecoveredAt.Equal(at) {
			t.Fatalf("claimed by a recovery at %s: recovered at %s", at, held.RecoveredAt)
		}
		if err := s.Finish(ctx, held, "r", webhook.Result{Status: webhook.StatusDead, DeadReason: "401"}, webhook.Attempt{DeliveryID: d.ID, Attempt: 2, Round: 2}); err != nil {
			t.Fatal(err)
		}
		page, _, err := s.FailedPage(ctx, prj, ep, now.Add(-2*time.Hour), now.Add(time.Hour), "", 10)
		if err != nil || len(page) != 1 || !page[0].RecoveredAt.Equal(at) {
			t.Fatalf("failed page %+v %v", page, err)
		}
		again := claim(t, s, webhook.Claim{Project: prj, ID: d.ID, RedriveOfRound: 2, Token: "q", Now: at.Add(time.Second), Until: at.Add(time.Minute)})
		if !again.RecoveredAt.IsZero() || again.RecoveryID != "" {
			t.Fatalf("a dead-letter redrive kept the recovery mark %s %q", again.RecoveredAt, again.RecoveryID)
		}
	})
	t.Run("a recovered round is counted as its recovery's outcome once, when it ends", func(t *testing.T) {
		s, prj := c.newStore(t), project()
		ep := ids.New(ids.WebhookEndpoint, now)
		outcomes := func(id string) webhook.RecoveryOutcomes {
			t.Helper()
			o, err := s.RecoveryOutcomes(ctx, prj, id)
			if err != nil {
				t.Fatal(err)
			}
			return o
		}
		if got := outcomes("rcv_1"); got != (webhook.RecoveryOutcomes{}) {
			t.Fatalf("a recovery without rounds: %+v", got)
		}
		redrive := func(d webhook.Delivery, recovery string, results ...webhook.Status) {
			t.Helper()
			held := claim(t, s, webhook.Claim{Project: prj, ID: d.ID, RedriveOfRound: d.Round, Recovery: recovery, Token: "r", Now: now, Until: now.Add(time.Minute)})
			if held.RecoveryID != recovery {
				t.Fatalf("claimed for %q: recovery %q", recovery, held.RecoveryID)
			}
			for i, st := range results {
				if i > 0 {
					held = claim(t, s, webhook.Claim{Project: prj, ID: d.ID, Round: held.Round, Attempt: held.NextAttempt + 1, Token: "r", Now: now, Until: now.Add(time.Minute)})
				}
				if err := s.Finish(ctx, held, "r", webhook.Result{Status: st}, webhook.Attempt{DeliveryID: d.ID, Attempt: 2 + i, Round: held.Round}); err != nil {
					t.Fatal(err)
				}
			}
		}
		a := toDead(t, s, DeliveryTo(prj, ep, now.Add(-time.Hour)), now)
		b := toDead(t, s, DeliveryTo(prj, ep, now.Add(-time.Hour)), now)
		c := toDead(t, s, DeliveryTo(prj, ep, now.Add(-time.Hour)), now)
		redrive(a, "rcv_1", webhook.StatusRetrying, webhook.StatusDelivered) // a retry first: counted at the end only
		redrive(b, "rcv_1", webhook.StatusDead)
		redrive(c, "", webhook.StatusDelivered) // a dead-letter redrive is no recovery's
		if got := outcomes("rcv_1"); got != (webhook.RecoveryOutcomes{Delivered: 1, Dead: 1}) {
			t.Fatalf("outcomes %+v, want 1 delivered, 1 dead", got)
		}
		if got := outcomes("rcv_2"); got != (webhook.RecoveryOutcomes{}) {
			t.Fatalf("another recovery's outcomes %+v", got)
		}
	})
}

func claim(t *testing.T, s webhook.Deliveries, c webhook.Claim) webhook.Delivery {
	t.Helper()
	got, claimed, err := s.Claim(context.Background(), c)
	if err != nil || !claimed {
		t.Fatalf("claim %+v: %v %v", c, claimed, err)
	}
	return *got
}

// toDead creates d and ends its first round dead (a 401).
func toDead(t *testing.T, s webhook.Deliveries, d webhook.Delivery, now time.Time) webhook.Delivery {
	t.Helper()
	if _, err := s.Create(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	held := claim(t, s, webhook.Claim{Project: d.ProjectID, ID: d.ID, Round: 1, Attempt: 1, Token: "t", Now: now, Until: now.Add(time.Minute)})
	r := webhook.Result{Status: webhook.StatusDead, DeadReason: "the endpoint answered 401, which is not retried", LastStatus: 401, LastClass: "http_401"}
	if err := s.Finish(context.Background(), held, "t", r, webhook.Attempt{DeliveryID: d.ID, Attempt: 1, Round: 1}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(context.Background(), d.ProjectID, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// claimStates are the states a delivery can be in when a message arrives,
// each made through the port itself.
var claimStates = []struct {
	name string
	make func(t *testing.T, s webhook.Deliveries, d webhook.Delivery, now time.Time) webhook.Delivery
}{
	{"pending", func(t *testing.T, s webhook.Deliveries, d webhook.Delivery, now time.Time) webhook.Delivery {
		_, _ = s.Create(context.Background(), d)
		return d
	}},
	{"held by a running worker", func(t *testing.T, s webhook.Deliveries, d webhook.Delivery, now time.Time) webhook.Delivery {
		_, _ = s.Create(context.Background(), d)
		return claim(t, s, webhook.Claim{Project: d.ProjectID, ID: d.ID, Round: 1, Attempt: 1, Token: "w1", Now: now, Until: now.Add(time.Minute)})
	}},
	{"created claimed by its worker (a bulk lane's first attempt)", func(t *testing.T, s webhook.Deliveries, d webhook.Delivery, now time.Time) webhook.Delivery {
		held := webhook.Claim{Token: "w1", Until: now.Add(time.Minute)}.Apply(d)
		if created, err := s.Create(context.Background(), held); err != nil || !created {
			t.Fatalf("create claimed: %v %v", created, err)
		}
		return held
	}},
	{"held by a worker that ran out of time", func(t *testing.T, s webhook.Deliveries, d webhook.Delivery, now time.Time) webhook.Delivery {
		_, _ = s.Create(context.Background(), d)
		return claim(t, s, webhook.Claim{Project: d.ProjectID, ID: d.ID, Round: 1, Attempt: 1, Token: "w1", Now: now.Add(-time.Minute), Until: now.Add(-time.Second)})
	}},
	{"retrying before attempt 2", func(t *testing.T, s webhook.Deliveries, d webhook.Delivery, now time.Time) webhook.Delivery {
		_, _ = s.Create(context.Background(), d)
		held := claim(t, s, webhook.Claim{Project: d.ProjectID, ID: d.ID, Round: 1, Attempt: 1, Token: "w1", Now: now, Until: now.Add(time.Minute)})
		if err := s.Finish(context.Background(), held, "w1", webhook.Result{Status: webhook.StatusRetrying, NextAttemptAt: ids.Timestamp(now.Add(time.Minute))}, webhook.Attempt{}); err != nil {
			t.Fatal(err)
		}
		got, _ := s.Get(context.Background(), d.ProjectID, d.ID)
		return got
	}},
	{"retrying, attempt 2 held by a running worker", func(t *testing.T, s webhook.Deliveries, d webhook.Delivery, now time.Time) webhook.Delivery {
		_, _ = s.Create(context.Background(), d)
		held := claim(t, s, webhook.Claim{Project: d.ProjectID, ID: d.ID, Round: 1, Attempt: 1, Token: "w1", Now: now, Until: now.Add(time.Minute)})
		if err := s.Finish(context.Background(), held, "w1", webhook.Result{Status: webhook.StatusRetrying}, webhook.Attempt{}); err != nil {
			t.Fatal(err)
		}
		return claim(t, s, webhook.Claim{Project: d.ProjectID, ID: d.ID, Round: 1, Attempt: 2, Token: "w2", Now: now, Until: now.Add(time.Minute)})
	}},
	{"delivered", func(t *testing.T, s webhook.Deliveries, d webhook.Delivery, now time.Time) webhook.Delivery {
		_, _ = s.Create(context.Background(), d)
		held := claim(t, s, webhook.Claim{Project: d.ProjectID, ID: d.ID, Round: 1, Attempt: 1, Token: "w1", Now: now, Until: now.Add(time.Minute)})
		if err := s.Finish(context.Background(), held, "w1", webhook.Result{Status: webhook.StatusDelivered}, webhook.Attempt{}); err != nil {
			t.Fatal(err)
		}
		got, _ := s.Get(context.Background(), d.ProjectID, d.ID)
		return got
	}},
	{"dead after round 1", func(t *testing.T, s webhook.Deliveries, d webhook.Delivery, now time.Time) webhook.Delivery {
		return toDead(t, s, d, now)
	}},
}

var claimCases = []struct {
	name  string
	claim func(d webhook.Delivery, now time.Time) webhook.Claim
}{
	{"round 1 attempt 1", func(d webhook.Delivery, now time.Time) webhook.Claim { return attemptClaim(d, now, 1, 1, 0) }},
	{"round 1 attempt 2", func(d webhook.Delivery, now time.Time) webhook.Claim { return attemptClaim(d, now, 1, 2, 0) }},
	{"round 2 attempt 1", func(d webhook.Delivery, now time.Time) webhook.Claim { return attemptClaim(d, now, 2, 1, 0) }},
	{"redrive of round 1", func(d webhook.Delivery, now time.Time) webhook.Claim { return attemptClaim(d, now, 0, 0, 1) }},
	{"redrive of round 2", func(d webhook.Delivery, now time.Time) webhook.Claim { return attemptClaim(d, now, 0, 0, 2) }},
}

func attemptClaim(d webhook.Delivery, now time.Time, round, attempt, redrive int) webhook.Claim {
	return webhook.Claim{Project: d.ProjectID, ID: d.ID, Round: round, Attempt: attempt, RedriveOfRound: redrive,
		Token: fmt.Sprintf("c-%d-%d-%d", round, attempt, redrive), Now: now, Until: now.Add(time.Minute)}
}

// EndpointsHarness adapts an Endpoints implementation to its contract.
type EndpointsHarness struct {
	Endpoints webhook.Endpoints
	// Add creates an endpoint of project, as the API does.
	Add func(t *testing.T, project string, ep webhook.Endpoint)
}

// NewEndpointsHarness is a harness over the in-memory Endpoints.
func NewEndpointsHarness(*testing.T) EndpointsHarness {
	s := &Endpoints{}
	return EndpointsHarness{Endpoints: s, Add: func(_ *testing.T, project string, ep webhook.Endpoint) { s.Put(project, ep) }}
}

// NewEndpoint returns an enabled endpoint subscribed to every event, with
// a current and a previous secret.
func NewEndpoint(now time.Time) webhook.Endpoint {
	ts := ids.Timestamp(now)
	return webhook.Endpoint{ID: ids.New(ids.WebhookEndpoint, now), URL: "https://example.com/hooks", Events: []string{webhook.AllEvents},
		Description: "orders", Enabled: true, CreatedAt: ts, UpdatedAt: ts,
		Secrets: []webhook.Secret{{Value: webhook.NewSecret(), CreatedAt: ts}, {Value: webhook.NewSecret(), CreatedAt: ts, ExpiresAt: now.Add(time.Hour).Truncate(time.Second)}}}
}

// TestEndpoints runs the contract of webhook.Endpoints against the
// harnesses newHarness returns.
func TestEndpoints(t *testing.T, newHarness func(t *testing.T) EndpointsHarness) {
	ctx := context.Background()
	now := time.Now().Truncate(time.Millisecond)
	project := func() string { return ids.New(ids.Project, time.Now()) }
	t.Run("an endpoint is found in its own project only, with its secrets", func(t *testing.T) {
		h, p := newHarness(t), project()
		a, b := NewEndpoint(now), NewEndpoint(now)
		h.Add(t, p, a)
		h.Add(t, p, b)
		got, err := h.Endpoints.Get(ctx, p, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.URL != a.URL || got.Description != a.Description || !got.Enabled || got.CreatedAt != a.CreatedAt || len(got.Events) != 1 ||
			len(got.Secrets) != 2 || got.Secrets[0] != a.Secrets[0] || got.Secrets[1].Value != a.Secrets[1].Value || !got.Secrets[1].ExpiresAt.Equal(a.Secrets[1].ExpiresAt) {
			t.Fatalf("read back %+v, want %+v", got, a)
		}
		for name, key := range map[string][2]string{"other project": {project(), a.ID}, "malformed id": {p, "we_nope"}} {
			if _, err := h.Endpoints.Get(ctx, key[0], key[1]); !errors.Is(err, webhook.ErrEndpointNotFound) {
				t.Errorf("%s: %v", name, err)
			}
		}
		all, err := h.Endpoints.ForProject(ctx, p)
		if err != nil || len(all) != 2 {
			t.Fatalf("project's endpoints: %d %v", len(all), err)
		}
		if none, err := h.Endpoints.ForProject(ctx, project()); err != nil || len(none) != 0 {
			t.Fatalf("another project's endpoints: %v %v", none, err)
		}
	})
	t.Run("failures extend a streak that a success ends", func(t *testing.T) {
		h, p, ep := newHarness(t), project(), NewEndpoint(now)
		h.Add(t, p, ep)
		t1, t2, t3 := now.Add(time.Second), now.Add(2*time.Second), now.Add(3*time.Second)
		got, err := h.Endpoints.RecordFailure(ctx, p, ep.ID, t1)
		if err != nil || got.ConsecutiveFailures != 1 || got.FailingSince != ids.Timestamp(t1) || got.LastFailureAt != ids.Timestamp(t1) {
			t.Fatalf("first failure: %+v %v", got, err)
		}
		got, err = h.Endpoints.RecordFailure(ctx, p, ep.ID, t2)
		if err != nil || got.ConsecutiveFailures != 2 || got.FailingSince != ids.Timestamp(t1) || got.LastFailureAt != ids.Timestamp(t2) {
			t.Fatalf("second failure: %+v %v", got, err)
		}
		got, err = h.Endpoints.RecordSuccess(ctx, p, ep.ID, t3)
		if err != nil || got.ConsecutiveFailures != 0 || got.FailingSince != "" || got.LastSuccessAt != ids.Timestamp(t3) || got.LastFailureAt != ids.Timestamp(t2) {
			t.Fatalf("success: %+v %v", got, err)
		}
		if again, _ := h.Endpoints.Get(ctx, p, ep.ID); again.LastSuccessAt != got.LastSuccessAt || again.ConsecutiveFailures != 0 {
			t.Fatalf("stored %+v", again)
		}
	})
	t.Run("flow state is written on condition of its version; the loser gets the winner's state", func(t *testing.T) {
		h, p, ep := newHarness(t), project(), NewEndpoint(now)
		ep.RateLimit, ep.MaxConcurrency = 5, 2
		h.Add(t, p, ep)
		if got, _ := h.Endpoints.Get(ctx, p, ep.ID); got.RateLimit != 5 || got.MaxConcurrency != 2 || got.Flow.Version != 0 {
			t.Fatalf("limits read back %+v", got)
		}
		first := webhook.Flow{Version: 1, N0: 12.5, T0: now.Add(time.Minute).UnixMilli(), R0: 2.5, Ceiling: 5, DecreasedAt: now.UnixMilli(), PausedUntil: now.Add(time.Minute).UnixMilli(), Cause: "http_429"}
		got, ok, err := h.Endpoints.WriteFlow(ctx, p, ep.ID, 0, &first, nil, now)
		if err != nil || !ok || got.Flow != first {
			t.Fatalf("first write: %+v %v %v", got.Flow, ok, err)
		}
		got, ok, err = h.Endpoints.WriteFlow(ctx, p, ep.ID, 0, &webhook.Flow{Version: 1, N0: 7}, nil, now)
		if err != nil || ok || got.Flow != first {
			t.Fatalf("a write from the same version: %+v %v %v", got.Flow, ok, err)
		}
		if v := got.View(now); v == nil || v.PausedUntil == "" || v.ThrottledBy != "http_429" {
			t.Fatalf("view %+v", v)
		}
		if _, _, err := h.Endpoints.WriteFlow(ctx, p, NewEndpoint(now).ID, 0, &first, nil, now); !errors.Is(err, webhook.ErrEndpointNotFound) {
			t.Fatalf("a missing endpoint: %v", err)
		}
	})
	t.Run("numbers are consecutive across concurrent takers; an idle counter catches up once", func(t *testing.T) {
		h, p, ep := newHarness(t), project(), NewEndpoint(now)
		ep.RateLimit = 5
		h.Add(t, p, ep)
		const takers, each = 8, 3
		firsts := make(chan int64, takers)
		var wg sync.WaitGroup
		for range takers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, first, err := h.Endpoints.TakeNumbers(ctx, p, ep.ID, each, 0)
				if err != nil {
					t.Error(err)
				}
				firsts <- first
			}()
		}
		wg.Wait()
		close(firsts)
		seen := map[int64]bool{}
		for f := range firsts {
			for n := f; n < f+each; n++ {
				if seen[n] {
					t.Fatalf("number %d given twice", n)
				}
				seen[n] = true
			}
		}
		if got, _ := h.Endpoints.Get(ctx, p, ep.ID); got.Taken != takers*each || len(seen) != takers*each {
			t.Fatalf("counter %d after %d numbers", got.Taken, len(seen))
		}
		// Idle: the next numbers come after the one due now (100), once;
		// a second catch-up to the same point follows the first.
		got, first, err := h.Endpoints.TakeNumbers(ctx, p, ep.ID, 2, 100)
		if err != nil || first != 101 || got.Taken != 102 {
			t.Fatalf("catch-up: first %d, counter %d, %v", first, got.Taken, err)
		}
		got, first, err = h.Endpoints.TakeNumbers(ctx, p, ep.ID, 1, 100)
		if err != nil || first != 103 || got.Taken != 103 {
			t.Fatalf("a second catch-up to the same point: first %d, counter %d, %v", first, got.Taken, err)
		}
		// The flow state's writes leave the counter alone.
		if got, ok, err := h.Endpoints.WriteFlow(ctx, p, ep.ID, 0, &webhook.Flow{Version: 1, R0: 5, Ceiling: 5}, nil, now); err != nil || !ok || got.Taken != 103 {
			t.Fatalf("after a flow write: counter %d %v %v", got.Taken, ok, err)
		}
		if _, _, err := h.Endpoints.TakeNumbers(ctx, p, NewEndpoint(now).ID, 1, 0); !errors.Is(err, webhook.ErrEndpointNotFound) {
			t.Fatalf("a missing endpoint: %v", err)
		}
		if _, _, err := h.Endpoints.TakeNumbers(ctx, p, NewEndpoint(now).ID, 1, 5); !errors.Is(err, webhook.ErrEndpointNotFound) {
			t.Fatalf("a missing endpoint, catching up: %v", err)
		}
	})
	t.Run("a held lease is not taken until it ends; a release frees only what it holds", func(t *testing.T) {
		h, p, ep := newHarness(t), project(), NewEndpoint(now)
		ep.MaxConcurrency = 2
		h.Add(t, p, ep)
		end := now.Add(time.Minute).UnixMilli()
		got, ok, err := h.Endpoints.WriteFlow(ctx, p, ep.ID, 0, nil, webhook.Leases{0: end}, now)
		if err != nil || !ok || got.Leases[0] != end {
			t.Fatalf("first lease: %v %v %v", got.Leases, ok, err)
		}
		got, ok, err = h.Endpoints.WriteFlow(ctx, p, ep.ID, 0, nil, webhook.Leases{0: end + 1, 1: end + 1}, now)
		if err != nil || ok || got.Leases[0] != end || len(got.Leases) != 1 {
			t.Fatalf("taking a held slot: %v %v %v", got.Leases, ok, err)
		}
		got, ok, err = h.Endpoints.WriteFlow(ctx, p, ep.ID, 0, nil, webhook.Leases{1: end + 1}, now)
		if err != nil || !ok || len(got.Leases) != 2 {
			t.Fatalf("the free slot: %v %v %v", got.Leases, ok, err)
		}
		later := time.UnixMilli(end).Add(time.Second)
		// With a state write too: both conditions hold.
		got, ok, err = h.Endpoints.WriteFlow(ctx, p, ep.ID, 0, &webhook.Flow{Version: 1}, webhook.Leases{0: later.Add(time.Minute).UnixMilli()}, later)
		if err != nil || !ok || got.Leases[0] != later.Add(time.Minute).UnixMilli() {
			t.Fatalf("an ended lease taken over: %v %v %v", got.Leases, ok, err)
		}
		// The first holder's release leaves the new holder's lease alone.
		if err := h.Endpoints.Release(ctx, p, ep.ID, webhook.Leases{0: end, 1: end + 1}); err != nil {
			t.Fatal(err)
		}
		if got, _ := h.Endpoints.Get(ctx, p, ep.ID); len(got.Leases) != 1 || got.Leases[0] != later.Add(time.Minute).UnixMilli() {
			t.Fatalf("after the release: %v", got.Leases)
		}
		if err := h.Endpoints.Release(ctx, p, ep.ID, webhook.Leases{0: later.Add(time.Minute).UnixMilli()}); err != nil {
			t.Fatal(err)
		}
		if got, _ := h.Endpoints.Get(ctx, p, ep.ID); len(got.Leases) != 0 {
			t.Fatalf("after the last release: %v", got.Leases)
		}
	})
	t.Run("an endpoint is disabled once, with the first reason", func(t *testing.T) {
		h, p, ep := newHarness(t), project(), NewEndpoint(now)
		h.Add(t, p, ep)
		if err := h.Endpoints.Disable(ctx, p, ep.ID, "the endpoint answered 410 Gone", now); err != nil {
			t.Fatal(err)
		}
		if err := h.Endpoints.Disable(ctx, p, ep.ID, "another reason", now); err != nil {
			t.Fatal(err)
		}
		if got, _ := h.Endpoints.Get(ctx, p, ep.ID); got.Enabled || got.DisabledReason != "the endpoint answered 410 Gone" {
			t.Fatalf("after disable %+v", got)
		}
	})
	t.Run("the health of a missing endpoint", func(t *testing.T) {
		h, p := newHarness(t), project()
		missing := NewEndpoint(now).ID
		if _, err := h.Endpoints.RecordFailure(ctx, p, missing, now); !errors.Is(err, webhook.ErrEndpointNotFound) {
			t.Fatalf("failure: %v", err)
		}
		if _, err := h.Endpoints.RecordSuccess(ctx, p, missing, now); !errors.Is(err, webhook.ErrEndpointNotFound) {
			t.Fatalf("success: %v", err)
		}
		if err := h.Endpoints.Disable(ctx, p, missing, "x", now); err != nil {
			t.Fatalf("disable: %v", err)
		}
	})
}
