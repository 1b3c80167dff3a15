package ddblocal

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestStartTimeoutIsSettable: BOTIX_DYNAMODB_START_TIMEOUT takes a
// duration or seconds; unset is the generous default; nonsense is refused
// naming the variable.
func TestStartTimeoutIsSettable(t *testing.T) {
	for _, c := range []struct {
		name, value string
		want        time.Duration
		fails       bool
	}{
		{name: "unset: the default", want: DefaultStartTimeout},
		{name: "a duration", value: "10m", want: 10 * time.Minute},
		{name: "seconds", value: "600", want: 600 * time.Second},
		{name: "zero is refused", value: "0", fails: true},
		{name: "a word is refused", value: "long", fails: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := StartTimeout(func(string) string { return c.value })
			if c.fails {
				if err == nil || !strings.Contains(err.Error(), StartTimeoutEnv) {
					t.Fatalf("got %v, %v; want an error naming %s", got, err, StartTimeoutEnv)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got %v, %v; want %v", got, err, c.want)
			}
		})
	}
	if DefaultStartTimeout < 3*time.Minute {
		t.Fatalf("the default start timeout %v is not generous: a loaded machine took over 90 s", DefaultStartTimeout)
	}
}

// slowEngine answers ListTables with 503 (a JVM still starting) until its
// calls reach ready, then 200.
func slowEngine(t *testing.T, ready int64) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) < ready {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// TestASlowEngineIsWaitedFor: an engine that answers only after many
// polls is waited for within the timeout; one that never answers is given
// up on, in an error that names the variable that sets the wait.
func TestASlowEngineIsWaitedFor(t *testing.T) {
	never := make(chan struct{})
	t.Run("answers after 20 polls: ready", func(t *testing.T) {
		srv, calls := slowEngine(t, 20)
		if err := waitReady(context.Background(), srv.URL, never, time.Hour); err != nil {
			t.Fatal(err)
		}
		if calls.Load() != 20 {
			t.Fatalf("%d polls, want 20", calls.Load())
		}
	})
	t.Run("never answers: the error names the variable", func(t *testing.T) {
		srv, _ := slowEngine(t, 1<<62)
		err := waitReady(context.Background(), srv.URL, never, 300*time.Millisecond)
		if err == nil || !strings.Contains(err.Error(), StartTimeoutEnv) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("an engine that exits is not waited for", func(t *testing.T) {
		srv, _ := slowEngine(t, 1<<62)
		exited := make(chan struct{})
		close(exited)
		if err := waitReady(context.Background(), srv.URL, exited, time.Hour); err == nil || !strings.Contains(err.Error(), "exited") {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestTheLauncherIsCompiledOnce: the first start compiles the launcher
// into the cache, keyed by the source's digest; a later one loads the
// class without compiling (a JVM option that would break any compilation
// is not used).
func TestTheLauncherIsCompiledOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Java compiler")
	}
	cached := launcherClasses
	dir := t.TempDir()
	launcherClasses = func(string) string { return filepath.Join(dir, "launcher-"+launcherDigest()) }
	t.Cleanup(func() { launcherClasses, javaOptions = cached, nil })
	classes, err := compiledLauncher(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(classes, "LoopbackDynamoDBLocal.class")); err != nil || !strings.HasSuffix(classes, launcherDigest()) {
		t.Fatalf("compiled into %s: %v", classes, err)
	}
	javaOptions = []string{"-XX:ThisOptionDoesNotExist"}
	again, err := compiledLauncher(context.Background(), dir)
	if err != nil || again != classes {
		t.Fatalf("the second start compiled again (or failed): %s, %v", again, err)
	}
}
