// Command bench runs the benchmarks of `make bench` against the DynamoDB
// Local named by AWS_ENDPOINT_URL_DYNAMODB and prints Markdown tables.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/botix/public-api/infra/bench"
)

func main() {
	contacts := flag.Int("contacts", 100000, "contacts to load for the pagination benchmark")
	depth := flag.Int("depth", 50000, "depth of the deep page")
	iterations := flag.Int("n", 30, "requests per measured row")
	flag.Parse()
	endpoint := os.Getenv("AWS_ENDPOINT_URL_DYNAMODB")
	if endpoint == "" {
		fmt.Fprintln(os.Stderr, "bench: run under with-dynamodb (make bench)")
		os.Exit(2)
	}
	ctx := context.Background()
	if err := bench.Pagination(ctx, endpoint, bench.PaginationConfig{Contacts: *contacts, Depth: *depth, PageSize: 100, Iterations: *iterations}, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
