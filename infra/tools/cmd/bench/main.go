// Command bench runs the benchmarks of `make bench` against the DynamoDB
// Local named by AWS_ENDPOINT_URL_DYNAMODB and prints Markdown tables.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/botix/public-api/infra/tools/bench"
)

func main() {
	contacts := flag.Int("contacts", 100000, "contacts to load for the pagination benchmark")
	depth := flag.Int("depth", 50000, "depth of the deep page")
	iterations := flag.Int("n", 30, "requests per measured row")
	events := flag.Int("events", 3000, "events for the webhook delivery benchmark")
	pollers := flag.Int("pollers", 16, "concurrent deliver invocations")
	soak := flag.Duration("soak", time.Minute, "how long the soak runs")
	clients := flag.Int("clients", 16, "concurrent clients of the soak")
	failShare := flag.Float64("fail", 0.2, "share of webhook requests the soak's receiver fails")
	priceUnits := flag.Int("price-units", 1000, "webhooks per webhook scenario and POSTs of the price benchmark")
	fanOut := flag.String("price-fanout", "3,10", "endpoint counts of the price benchmark's fan-out scenarios (an event to N endpoints, priced per event; N = 1 is its first scenario)")
	pricePollers := flag.Int("price-pollers", 2, "concurrent deliver invocations of the price benchmark (few, so that DynamoDB Local's queueing inflates the billed duration less)")
	flood := flag.Int("flood", 10000, "events of the noisy-neighbour benchmark's flooding project")
	slow := flag.Duration("slow", 200*time.Millisecond, "how long the flooding project's receiver takes per request")
	quiet := flag.Int("quiet", 200, "events of the noisy-neighbour benchmark's quiet project")
	quietEvery := flag.Duration("quiet-every", 100*time.Millisecond, "the quiet project's pace: one event per this long (well below the local pipeline's capacity, so that B alone is not queued behind itself)")
	adaptive := flag.Int("adaptive", 1000, "webhooks of the flow benchmark's receiver that answers 429 past its rate")
	acceptRate := flag.Int("accept-rate", 20, "requests per second that receiver takes")
	recovered := flag.Int("recovered", 2000, "dead deliveries the flow benchmark's recovery sends through max_concurrency")
	maxConcurrency := flag.Int("max-concurrency", 4, "the max_concurrency of that endpoint")
	latency := flag.Duration("latency", 100*time.Millisecond, "how long that receiver takes per request")
	only := flag.String("only", "", "run one benchmark: pagination, webhooks, noisy, flow, soak or price")
	flag.Parse()
	endpoint := os.Getenv("AWS_ENDPOINT_URL_DYNAMODB")
	if endpoint == "" {
		fmt.Fprintln(os.Stderr, "bench: run under with-dynamodb (make bench)")
		os.Exit(2)
	}
	// The functions' logs go to a file, named with any error: an error
	// points to them ("attempt not recorded; the queue will retry").
	logs, err := os.CreateTemp("", "bench-functions-*.log")
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	defer logs.Close()
	bench.Logs = logs
	fail := func(err error) {
		fmt.Fprintf(os.Stderr, "bench: %v\nbench: the functions' logs are in %s\n", err, logs.Name())
	}
	fmt.Fprintf(os.Stderr, "bench: the functions' logs go to %s\n", logs.Name())
	ctx := context.Background()
	if *only == "" || *only == "webhooks" {
		if err := bench.Webhooks(ctx, endpoint, bench.WebhooksConfig{Events: *events, Pollers: *pollers}, os.Stdout); err != nil {
			fail(err)
			os.Exit(1)
		}
	}
	if *only == "" || *only == "noisy" {
		cfg := bench.NoisyConfig{Flood: *flood, Slow: *slow, Quiet: *quiet, QuietEvery: *quietEvery, Pollers: *pollers}
		if err := bench.Noisy(ctx, endpoint, cfg, os.Stdout); err != nil {
			fail(err)
			os.Exit(1)
		}
	}
	if *only == "" || *only == "flow" {
		cfg := bench.FlowConfig{Adaptive: *adaptive, AcceptRate: *acceptRate, Recovered: *recovered, Latency: *latency, MaxConcurrency: *maxConcurrency, Pollers: *pollers}
		if err := bench.Flow(ctx, endpoint, cfg, os.Stdout); err != nil {
			fail(err)
			os.Exit(1)
		}
	}
	if *only == "" || *only == "soak" {
		if err := bench.Soak(ctx, endpoint, bench.SoakConfig{Duration: *soak, Clients: *clients, FailShare: *failShare}, os.Stdout); err != nil {
			fail(err)
			os.Exit(1)
		}
	}
	if *only == "" || *only == "price" {
		if err := bench.Price(ctx, endpoint, bench.PriceConfig{Units: *priceUnits, Pollers: *pricePollers, FanOut: counts(*fanOut)}, os.Stdout); err != nil {
			fail(err)
			os.Exit(1)
		}
	}
	if *only == "" || *only == "pagination" {
		if err := bench.Pagination(ctx, endpoint, bench.PaginationConfig{Contacts: *contacts, Depth: *depth, PageSize: 100, Iterations: *iterations}, os.Stdout); err != nil {
			fail(err)
			os.Exit(1)
		}
	}
}

// counts reads a comma-separated list of counts ("3,10"); what is not a
// positive count is left out.
func counts(list string) []int {
	var out []int
	for _, f := range strings.Split(list, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}
