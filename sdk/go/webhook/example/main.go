// Command example is a webhook receiver built on the BOTIX receiver kit: it
// verifies signatures, de-duplicates events in memory and prints each event.
// Start it against `make run`:
//
//	go run ./sdk/go/webhook/example -addr 127.0.0.1:9000 -secret whsec_...
//
// With -fail N its processing fails for the first N deliveries, which the
// kit answers with 500 (and forgets the event, so that the retry is
// processed; a copy that arrives while the event is still being processed
// gets 503, so it is retried too), to watch BOTIX retry them (WEBHOOK_RETRY_SCHEDULE=1s,2s,3s,4s
// make run shows a round in seconds). GET /healthz answers 200 once it
// listens.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"

	"github.com/botix/public-api/sdk/go/webhook"
)

func main() {
	if err := run(os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "example:", err)
		os.Exit(1)
	}
}

func run(args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("example", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:9000", "listen address")
	secret := fs.String("secret", getenv("BOTIX_WEBHOOK_SECRETS"), "endpoint secret(s), comma-separated, the newest first (or BOTIX_WEBHOOK_SECRETS)")
	failFirst := fs.Int("fail", 0, "fail the processing of the first N deliveries (the kit answers 500)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *secret == "" {
		return errors.New("pass -secret whsec_... (shown when you create the webhook endpoint)")
	}
	var seen atomic.Int64
	var secrets []string
	for _, s := range strings.Split(*secret, ",") {
		if s = strings.TrimSpace(s); s != "" {
			secrets = append(secrets, s)
		}
	}
	h := webhook.NewHandler(secrets, &webhook.MemoryDeduplicator{}, func(_ context.Context, ev webhook.Event) error {
		if n := seen.Add(1); n <= int64(*failFirst) {
			fmt.Fprintf(out, "%s %s: failing on purpose (%d of %d), BOTIX will retry\n", ev.ID, ev.Type, n, *failFirst)
			return errors.New("failing on purpose")
		}
		fmt.Fprintf(out, "%s %s at %s: %s\n", ev.ID, ev.Type, ev.CreatedAt.Format("15:04:05.000"), ev.Data)
		return nil
	})
	mux := http.NewServeMux()
	mux.Handle("/webhooks", h)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "receiving BOTIX webhooks on http://%s/webhooks\n", *addr)
	return http.Serve(l, mux)
}
