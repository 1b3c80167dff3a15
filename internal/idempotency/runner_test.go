package idempotency_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/idempotency"
	"github.com/botix/public-api/internal/idempotency/idempotencytest"
	kittest "github.com/botix/public-api/sdk/go/webhook/webhooktest" // the one settable clock
)

func TestInMemoryStoreMeetsTheContract(t *testing.T) {
	idempotencytest.TestStore(t, idempotencytest.NewHarness)
}

// errInvalid stands for an operation's own 4xx answer; errOutage for a
// failure that must release the key.
var (
	errInvalid = apierr.New(apierr.ValidationFailed, "name: is required")
	errTaken   = apierr.New(apierr.ContactAlreadyExists, "taken")
	errOutage  = errors.New("dependency down")
)

// answer renders the operation's own errors as final answers, as the API
// does (4xx stored, the rest released).
func answer(requestID string, err error) (idempotency.Response, bool) {
	e, ok := apierr.As(err)
	if !ok || e.Code == apierr.ServiceUnavailable {
		return idempotency.Response{}, false
	}
	status := 422
	if e.Code == apierr.ContactAlreadyExists {
		status = 409
	}
	return idempotency.Response{Status: status, Body: []byte(string(e.Code) + " " + requestID)}, true
}

// fixture is a runner over the in-memory store with a settable clock, and
// an operation that creates "contact" + "event" and counts its runs.
type fixture struct {
	store  *idempotencytest.Store
	runner *idempotency.Runner
	clock  *kittest.Clock
	runs   atomic.Int32
}

func newFixture() *fixture {
	f := &fixture{store: &idempotencytest.Store{}, clock: kittest.NewClock(time.Now())}
	f.runner = &idempotency.Runner{Store: f.store, Answer: answer, Log: slog.New(slog.DiscardHandler), Now: f.clock.Now}
	return f
}

func (f *fixture) create(name string) idempotency.Operation {
	return func(context.Context) (idempotency.Outcome, error) {
		f.runs.Add(1)
		return idempotency.Outcome{
			Response: idempotency.Response{Status: 201, Headers: map[string]string{"Content-Type": "application/json"}, Body: []byte(`{"name":"` + name + `"}`)},
			Effects:  &idempotencytest.Effects{Writes: []string{"contact:" + name, "event:" + name}, Unique: true, Conflict: errTaken},
		}, nil
	}
}

var reqN atomic.Int32

func request(key, fp string) idempotency.Request {
	return idempotency.Request{Scope: "prj_1", Key: key, Fingerprint: fp, RequestID: "req_" + string(rune('A'+reqN.Add(1)%26)), Method: "POST", Route: "POST /public/v1/contacts"}
}

func (f *fixture) run(ctx context.Context, req idempotency.Request, op idempotency.Operation) (idempotency.Response, error) {
	return f.runner.Run(ctx, req, op)
}

func TestRunnerAnswersOnceAndReplays(t *testing.T) {
	f := newFixture()
	ctx := context.Background()
	first, err := f.run(ctx, request("k1", "fp"), f.create("ivan"))
	if err != nil || first.Status != 201 || first.Headers[idempotency.HeaderReplayed] != "" {
		t.Fatalf("first: %+v %v", first, err)
	}
	t.Run("a first execution costs a capture and a commit", func(t *testing.T) {
		if c := f.store.Calls(); c[idempotencytest.OpCapture] != 1 || c[idempotencytest.OpCommit] != 1 || len(c) != 2 {
			t.Fatalf("calls %v", c)
		}
	})
	f.store.ResetCalls()
	again, err := f.run(ctx, request("k1", "fp"), f.create("ivan"))
	t.Run("a repeat gets the stored answer, marked replayed, without running", func(t *testing.T) {
		if err != nil || again.Status != 201 || string(again.Body) != string(first.Body) || again.Headers["Content-Type"] != "application/json" {
			t.Fatalf("replay %+v %v", again, err)
		}
		if again.Headers[idempotency.HeaderReplayed] != "true" || again.Headers[idempotency.HeaderOriginalRequestID] == "" {
			t.Fatalf("replay headers %v", again.Headers)
		}
		if f.runs.Load() != 1 || f.store.Written("contact:ivan") != 1 {
			t.Fatalf("runs %d, writes %v", f.runs.Load(), f.store.Writes())
		}
	})
	t.Run("a replay costs one call, the failed capture", func(t *testing.T) {
		if c := f.store.Calls(); c[idempotencytest.OpCapture] != 1 || len(c) != 1 {
			t.Fatalf("calls %v", c)
		}
	})
	t.Run("the same key with another fingerprint is a conflict", func(t *testing.T) {
		_, err := f.run(ctx, request("k1", "other"), f.create("boris"))
		if !apierr.Is(err, apierr.IdempotencyKeyReuseConflict) || f.runs.Load() != 1 {
			t.Fatalf("err = %v, runs %d", err, f.runs.Load())
		}
	})
	t.Run("another scope is another key", func(t *testing.T) {
		req := request("k1", "fp")
		req.Scope = "prj_2"
		resp, err := f.run(ctx, req, f.create("ivan2"))
		if err != nil || resp.Headers[idempotency.HeaderReplayed] != "" || f.runs.Load() != 2 {
			t.Fatalf("%+v %v", resp, err)
		}
	})
}

func TestRunnerWhileTheFirstRequestRuns(t *testing.T) {
	f := newFixture()
	started, release := make(chan struct{}), make(chan struct{})
	slow := func(ctx context.Context) (idempotency.Outcome, error) {
		close(started)
		<-release
		return f.create("ivan")(ctx)
	}
	done := make(chan error)
	go func() {
		_, err := f.run(context.Background(), request("k", "fp"), slow)
		done <- err
	}()
	<-started
	_, err := f.run(context.Background(), request("k", "fp"), f.create("ivan"))
	e, _ := apierr.As(err)
	if e == nil || e.Code != apierr.IdempotencyKeyInProgress || e.RetryAfter != idempotency.RetryAfterSeconds {
		t.Fatalf("second request: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if f.store.Written("contact:ivan") != 1 {
		t.Fatalf("writes %v", f.store.Writes())
	}
}

func TestRunnerStoresFinalAnswers(t *testing.T) {
	cases := []struct {
		name   string
		op     func(f *fixture) idempotency.Operation
		status int
	}{
		{"the operation's own 4xx is stored and replayed", func(*fixture) idempotency.Operation {
			return func(context.Context) (idempotency.Outcome, error) { return idempotency.Outcome{}, errInvalid }
		}, 422},
		{"an effect's conflict found by the commit is stored and replayed", func(f *fixture) idempotency.Operation { return f.create("taken") }, 409},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			ctx := context.Background()
			if _, err := f.run(ctx, request("seed", "fp-seed"), f.create("taken")); err != nil {
				t.Fatal(err)
			}
			first, err := f.run(ctx, request("k", "fp"), c.op(f))
			if err != nil || first.Status != c.status {
				t.Fatalf("first: %+v %v", first, err)
			}
			runs := f.runs.Load()
			again, err := f.run(ctx, request("k", "fp"), c.op(f))
			if err != nil || again.Status != c.status || string(again.Body) != string(first.Body) || again.Headers[idempotency.HeaderReplayed] != "true" {
				t.Fatalf("replay: %+v %v", again, err)
			}
			if f.runs.Load() != runs || f.store.Written("contact:taken") != 1 {
				t.Fatalf("ran again: runs %d, writes %v", f.runs.Load(), f.store.Writes())
			}
		})
	}
	t.Run("an answer that cannot be stored is still given, and the key is released", func(t *testing.T) {
		f := newFixture()
		f.store.Fail(idempotencytest.Fault{Op: idempotencytest.OpComplete, Times: 1})
		fail := func(context.Context) (idempotency.Outcome, error) { return idempotency.Outcome{}, errInvalid }
		resp, err := f.run(context.Background(), request("k", "fp"), fail)
		if err != nil || resp.Status != 422 {
			t.Fatalf("%+v %v", resp, err)
		}
		if _, held := f.store.Record("prj_1", "k"); held {
			t.Fatal("the key is still held")
		}
	})
}

// TestRunnerCrashAtEveryStep fails or stops the execution at each step and
// retries with the same key: every sequence ends with the operation's
// effects written exactly once and the client holding the 201.
func TestRunnerCrashAtEveryStep(t *testing.T) {
	crash := errors.New("crash")
	cases := []struct {
		name  string
		arm   func(f *fixture)
		hooks idempotency.Hooks
	}{
		{"capture throttled", func(f *fixture) {
			f.store.Fail(idempotencytest.Fault{Op: idempotencytest.OpCapture, Times: 1})
		}, idempotency.Hooks{}},
		{"capture landed, its answer lost", func(f *fixture) {
			f.store.Fail(idempotencytest.Fault{Op: idempotencytest.OpCapture, After: true, Times: 1})
		}, idempotency.Hooks{}},
		{"crash right after the capture", nil, idempotency.Hooks{AfterCapture: once(crash)}},
		{"crash before the commit", nil, idempotency.Hooks{BeforeCommit: once(crash)}},
		{"commit throttled", func(f *fixture) {
			f.store.Fail(idempotencytest.Fault{Op: idempotencytest.OpCommit, Times: 1})
		}, idempotency.Hooks{}},
		{"commit landed, its answer lost", func(f *fixture) {
			f.store.Fail(idempotencytest.Fault{Op: idempotencytest.OpCommit, After: true, Times: 1})
		}, idempotency.Hooks{}},
		{"crash after the commit", nil, idempotency.Hooks{AfterCommit: once(crash)}},
		{"commit throttled and the release fails too", func(f *fixture) {
			f.store.Fail(idempotencytest.Fault{Op: idempotencytest.OpCommit, Times: 1})
			f.store.Fail(idempotencytest.Fault{Op: idempotencytest.OpRelease, Times: 1})
		}, idempotency.Hooks{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			f.runner.Hooks = c.hooks
			if c.arm != nil {
				c.arm(f)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var resp idempotency.Response
			var err error
			for try := 0; try < 5; try++ {
				resp, err = f.run(ctx, request("k", "fp"), f.create("ivan"))
				if err == nil {
					break
				}
				if apierr.Is(err, apierr.IdempotencyKeyInProgress) {
					f.clock.Advance(11 * time.Second) // the lease of a crashed capture ends with its deadline
				}
			}
			if err != nil || resp.Status != 201 {
				t.Fatalf("after retries: %+v %v", resp, err)
			}
			if f.store.Written("contact:ivan") != 1 || f.store.Written("event:ivan") != 1 {
				t.Fatalf("writes %v", f.store.Writes())
			}
		})
	}
	t.Run("a panic releases the key and propagates", func(t *testing.T) {
		f := newFixture()
		boom := func(context.Context) (idempotency.Outcome, error) { panic("boom") }
		func() {
			defer func() {
				if recover() == nil {
					t.Fatal("the panic was swallowed")
				}
			}()
			_, _ = f.run(context.Background(), request("k", "fp"), boom)
		}()
		if _, held := f.store.Record("prj_1", "k"); held {
			t.Fatal("the key is still held")
		}
	})
	t.Run("a failure that is not final releases the key, and the retry runs", func(t *testing.T) {
		f := newFixture()
		fails := func(context.Context) (idempotency.Outcome, error) { return idempotency.Outcome{}, errOutage }
		if _, err := f.run(context.Background(), request("k", "fp"), fails); !errors.Is(err, errOutage) {
			t.Fatalf("err = %v", err)
		}
		if resp, err := f.run(context.Background(), request("k", "fp"), f.create("ivan")); err != nil || resp.Status != 201 {
			t.Fatalf("retry: %+v %v", resp, err)
		}
	})
	t.Run("a response too large to store releases the key", func(t *testing.T) {
		f := newFixture()
		huge := func(context.Context) (idempotency.Outcome, error) {
			return idempotency.Outcome{Response: idempotency.Response{Status: 201, Body: make([]byte, idempotency.MaxStoredResponse+1)},
				Effects: &idempotencytest.Effects{Writes: []string{"x"}}}, nil
		}
		if _, err := f.run(context.Background(), request("k", "fp"), huge); err == nil || !strings.Contains(err.Error(), "bytes") {
			t.Fatalf("err = %v", err)
		}
		if _, held := f.store.Record("prj_1", "k"); held || f.store.Written("x") != 0 {
			t.Fatal("the key is held or the effect written")
		}
	})
}

// TestRunnerFencing lets a capture outlive its lease: a retry takes the key
// over, and the first request can then never commit.
func TestRunnerFencing(t *testing.T) {
	t.Run("the taker finished first: the late request answers with the taker's response", func(t *testing.T) {
		f := newFixture()
		late := make(chan struct{})
		var lateResp idempotency.Response
		var lateErr error
		blocked := make(chan struct{})
		slow := func(ctx context.Context) (idempotency.Outcome, error) {
			close(blocked)
			<-late
			return f.create("ivan")(ctx)
		}
		ctx, cancel := context.WithDeadline(context.Background(), f.clock.Now().Add(10*time.Second))
		defer cancel()
		done := make(chan struct{})
		go func() {
			lateResp, lateErr = f.run(ctx, request("k", "fp"), slow)
			close(done)
		}()
		<-blocked
		f.clock.Advance(11 * time.Second)
		taker, err := f.run(context.Background(), request("k", "fp"), f.create("ivan"))
		if err != nil || taker.Status != 201 {
			t.Fatalf("taker: %+v %v", taker, err)
		}
		close(late)
		<-done
		if lateErr != nil || string(lateResp.Body) != string(taker.Body) || lateResp.Headers[idempotency.HeaderReplayed] != "true" {
			t.Fatalf("late request: %+v %v", lateResp, lateErr)
		}
		if f.store.Written("contact:ivan") != 1 {
			t.Fatalf("writes %v", f.store.Writes())
		}
	})
	t.Run("the taker still runs: the late request is told to retry, and the taker commits", func(t *testing.T) {
		f := newFixture()
		ctx, cancel := context.WithDeadline(context.Background(), f.clock.Now().Add(10*time.Second))
		defer cancel()
		takerInside, takerGo, takerDone := make(chan struct{}), make(chan struct{}), make(chan struct{})
		var takerResp idempotency.Response
		var takerErr error
		lateOp := func(ctx context.Context) (idempotency.Outcome, error) {
			f.clock.Advance(11 * time.Second) // the late request's lease is over
			go func() {
				takerResp, takerErr = f.run(context.Background(), request("k", "fp"), func(ctx context.Context) (idempotency.Outcome, error) {
					close(takerInside)
					<-takerGo
					return f.create("ivan")(ctx)
				})
				close(takerDone)
			}()
			<-takerInside
			return f.create("ivan")(ctx)
		}
		if _, err := f.run(ctx, request("k", "fp"), lateOp); !apierr.Is(err, apierr.IdempotencyKeyInProgress) {
			t.Fatalf("late request: %v", err)
		}
		close(takerGo)
		<-takerDone
		if takerErr != nil || takerResp.Status != 201 || f.store.Written("contact:ivan") != 1 {
			t.Fatalf("taker: %+v %v, writes %v", takerResp, takerErr, f.store.Writes())
		}
	})
	t.Run("a commit that landed although the engine reported a lost lock answers the request's own response", func(t *testing.T) {
		f := newFixture()
		f.runner.Store = &retryingStore{Store: f.store}
		resp, err := f.run(context.Background(), request("k", "fp"), f.create("ivan"))
		if err != nil || resp.Status != 201 || resp.Headers[idempotency.HeaderReplayed] != "" || f.store.Written("contact:ivan") != 1 {
			t.Fatalf("%+v %v, writes %v", resp, err, f.store.Writes())
		}
	})
	t.Run("a commit that finds the record released is told to retry", func(t *testing.T) {
		f := newFixture()
		op := func(ctx context.Context) (idempotency.Outcome, error) {
			rec, _ := f.store.Record("prj_1", "k")
			_ = f.store.Release(ctx, idempotency.Lock{Scope: "prj_1", Key: "k", Token: rec.LockToken})
			return f.create("ivan")(ctx)
		}
		if _, err := f.run(context.Background(), request("k", "fp"), op); !apierr.Is(err, apierr.IdempotencyKeyInProgress) {
			t.Fatalf("err = %v", err)
		}
		if f.store.Written("contact:ivan") != 0 {
			t.Fatal("a fenced commit wrote")
		}
	})
}

// retryingStore commits twice, as an SDK does when the first answer was
// lost on the way: the second attempt finds the record completed by the
// first.
type retryingStore struct{ *idempotencytest.Store }

func (s *retryingStore) Commit(ctx context.Context, lock idempotency.Lock, done idempotency.Completion, e idempotency.Effects) error {
	if err := s.Store.Commit(ctx, lock, done, e); err != nil {
		return err
	}
	return s.Store.Commit(ctx, lock, done, e)
}

func once(err error) func(context.Context) error {
	var n atomic.Int32
	return func(context.Context) error {
		if n.Add(1) == 1 {
			return err
		}
		return nil
	}
}
