package idempotencytest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/botix/public-api/internal/idempotency"
)

// Harness adapts a Store implementation to the contract.
type Harness struct {
	Store idempotency.Store
	// Effects returns effects that write the marker name. With unique,
	// the write is conditional on the marker not existing yet, and a
	// commit that finds it fails with conflict, writing nothing.
	Effects func(name string, unique bool, conflict error) idempotency.Effects
	// Written reports whether the marker name was written.
	Written func(t *testing.T, name string) bool
}

// NewHarness is a Harness over the in-memory Store.
func NewHarness(*testing.T) Harness {
	s := &Store{}
	return Harness{
		Store: s,
		Effects: func(name string, unique bool, conflict error) idempotency.Effects {
			return &Effects{Writes: []string{name}, Unique: unique, Conflict: conflict}
		},
		Written: func(_ *testing.T, name string) bool { return s.Written(name) > 0 },
	}
}

// TestStore runs the contract of idempotency.Store against the stores
// that newHarness returns (one per case; cases use fresh scopes, so a
// harness may share its tables).
func TestStore(t *testing.T, newHarness func(t *testing.T) Harness) {
	ctx := context.Background()
	t0 := time.Now().Truncate(time.Second)
	capture := func(lock idempotency.Lock, now time.Time) idempotency.Capture {
		return idempotency.Capture{Lock: lock, Fingerprint: "fp-" + lock.Key, RequestID: "req_" + lock.Token, Method: "POST", Route: "POST /x",
			Now: now, LeaseUntil: now.Add(30 * time.Second), ExpiresAt: now.Add(idempotency.TTL)}
	}
	answer := idempotency.Completion{RequestID: "req_done", Response: idempotency.Response{
		Status: 201, Headers: map[string]string{"Content-Type": "application/json", "Location": "/x/1"}, Body: []byte("{\"id\":\"x\"}\x00\xff"),
	}}
	mustCapture := func(t *testing.T, h Harness, c idempotency.Capture) {
		t.Helper()
		held, err := h.Store.Capture(ctx, c)
		if err != nil || held != nil {
			t.Fatalf("capture of a free key: held=%+v, err=%v", held, err)
		}
	}
	mustHold := func(t *testing.T, h Harness, c idempotency.Capture) idempotency.Record {
		t.Helper()
		held, err := h.Store.Capture(ctx, c)
		if err != nil || held == nil {
			t.Fatalf("capture of a held key succeeded (err=%v)", err)
		}
		return *held
	}
	// takenOver is a lock a captured at t0 whose lease (30 s) had ended when
	// the token "taker" captured its key, at t0+31s.
	takenOver := func(t *testing.T) (Harness, idempotency.Lock) {
		t.Helper()
		h, a := newHarness(t), newLock()
		mustCapture(t, h, capture(a, t0))
		b := a
		b.Token = "taker"
		mustCapture(t, h, capture(b, t0.Add(31*time.Second)))
		return h, a
	}
	t.Run("a free key is captured; a second capture returns its holder", func(t *testing.T) {
		h, a := newHarness(t), newLock()
		mustCapture(t, h, capture(a, t0))
		b := a
		b.Token = "other"
		rec := mustHold(t, h, capture(b, t0.Add(time.Second)))
		if rec.Status != idempotency.InProgress || rec.LockToken != a.Token || rec.Fingerprint != "fp-"+a.Key || rec.RequestID != "req_"+a.Token {
			t.Fatalf("holder %+v", rec)
		}
	})
	t.Run("an in-progress record whose lease ended is taken over", func(t *testing.T) {
		h, a := takenOver(t)
		if rec := mustHold(t, h, capture(a, t0.Add(32*time.Second))); rec.LockToken != "taker" {
			t.Fatalf("holder after takeover: %+v", rec)
		}
	})
	t.Run("a record past its expiry counts as absent", func(t *testing.T) {
		h, a := newHarness(t), newLock()
		mustCapture(t, h, capture(a, t0))
		if err := h.Store.Complete(ctx, a, answer); err != nil {
			t.Fatal(err)
		}
		mustHold(t, h, capture(a, t0.Add(idempotency.TTL-time.Minute)))
		mustCapture(t, h, capture(a, t0.Add(idempotency.TTL+2*time.Second)))
	})
	t.Run("commit applies the effects and completes the record together", func(t *testing.T) {
		h, a := newHarness(t), newLock()
		mustCapture(t, h, capture(a, t0))
		if err := h.Store.Commit(ctx, a, answer, h.Effects("m-"+a.Key, true, errConflict)); err != nil {
			t.Fatal(err)
		}
		if !h.Written(t, "m-"+a.Key) {
			t.Fatal("effects not written")
		}
		rec := mustHold(t, h, capture(a, t0.Add(time.Minute)))
		if rec.Status != idempotency.Completed || rec.RequestID != "req_done" || rec.Response == nil {
			t.Fatalf("record %+v", rec)
		}
		if r := rec.Response; r.Status != 201 || !bytes.Equal(r.Body, answer.Response.Body) || r.Headers["Location"] != "/x/1" || r.Headers["Content-Type"] != "application/json" {
			t.Fatalf("stored response %+v", r)
		}
	})
	t.Run("a commit under a lost lock is fenced and writes nothing", func(t *testing.T) {
		h, a := takenOver(t)
		err := h.Store.Commit(ctx, a, answer, h.Effects("m-"+a.Key, false, nil))
		var fenced *idempotency.FencedError
		if !errors.As(err, &fenced) || fenced.Record == nil || fenced.Record.LockToken != "taker" || fenced.Record.Status != idempotency.InProgress {
			t.Fatalf("err = %v (%+v)", err, fenced)
		}
		if h.Written(t, "m-"+a.Key) {
			t.Fatal("a fenced commit wrote its effects")
		}
	})
	t.Run("an effect's own conflict is reported and nothing is written", func(t *testing.T) {
		h, a, b := newHarness(t), newLock(), newLock()
		mustCapture(t, h, capture(a, t0))
		if err := h.Store.Commit(ctx, a, answer, h.Effects("unique-"+a.Key, true, errConflict)); err != nil {
			t.Fatal(err)
		}
		mustCapture(t, h, capture(b, t0))
		if err := h.Store.Commit(ctx, b, answer, h.Effects("unique-"+a.Key, true, errConflict)); !errors.Is(err, errConflict) {
			t.Fatalf("err = %v, want the effect's conflict", err)
		}
		if rec := mustHold(t, h, capture(b, t0.Add(time.Second))); rec.Status != idempotency.InProgress {
			t.Fatalf("the conflicting commit completed the record: %+v", rec)
		}
	})
	t.Run("complete stores an answer; under a lost lock it is fenced", func(t *testing.T) {
		h, a := newHarness(t), newLock()
		mustCapture(t, h, capture(a, t0))
		if err := h.Store.Complete(ctx, a, answer); err != nil {
			t.Fatal(err)
		}
		if rec := mustHold(t, h, capture(a, t0)); rec.Status != idempotency.Completed || rec.Response.Status != 201 {
			t.Fatalf("record %+v", rec)
		}
		var fenced *idempotency.FencedError
		if err := h.Store.Complete(ctx, a, answer); !errors.As(err, &fenced) || fenced.Record.Status != idempotency.Completed {
			t.Fatalf("second completion: %v", err)
		}
	})
	t.Run("release frees a key that is still ours", func(t *testing.T) {
		h, a := newHarness(t), newLock()
		mustCapture(t, h, capture(a, t0))
		if err := h.Store.Release(ctx, a); err != nil {
			t.Fatal(err)
		}
		mustCapture(t, h, capture(a, t0))
	})
	t.Run("release leaves a completed record and another holder's record alone", func(t *testing.T) {
		h, a, b := newHarness(t), newLock(), newLock()
		mustCapture(t, h, capture(a, t0))
		if err := h.Store.Complete(ctx, a, answer); err != nil {
			t.Fatal(err)
		}
		if err := h.Store.Release(ctx, a); err != nil {
			t.Fatal(err)
		}
		mustHold(t, h, capture(a, t0))
		mustCapture(t, h, capture(b, t0))
		stale := b
		stale.Token = "stale"
		if err := h.Store.Release(ctx, stale); err != nil {
			t.Fatal(err)
		}
		mustHold(t, h, capture(b, t0))
	})
	t.Run("a commit after the record was released is fenced without a record", func(t *testing.T) {
		h, a := newHarness(t), newLock()
		mustCapture(t, h, capture(a, t0))
		if err := h.Store.Release(ctx, a); err != nil {
			t.Fatal(err)
		}
		var fenced *idempotency.FencedError
		if err := h.Store.Commit(ctx, a, answer, h.Effects("m-"+a.Key, false, nil)); !errors.As(err, &fenced) || fenced.Record != nil {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("scopes keep equal keys apart", func(t *testing.T) {
		h, a := newHarness(t), newLock()
		b := a
		b.Scope += "-other"
		mustCapture(t, h, capture(a, t0))
		mustCapture(t, h, capture(b, t0))
	})
}

var errConflict = errors.New("idempotencytest: marker exists")

func newLock() idempotency.Lock {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	return idempotency.Lock{Scope: "prj_" + id, Key: "key-" + id, Token: "tok-" + id}
}
