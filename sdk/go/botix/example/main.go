// Command example creates contacts with the Go SDK through a network that
// loses answers on their way back — the request reached the API, the
// client never heard — and checks that no contact was made twice.
//
//	BOTIX_API_KEY=bx_live_... go run ./botix/example (from sdk/go) [-n 20] [-loss 0.3] [-seed 1]
//
// BOTIX_API_URL is the API's address (default: make run's).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/botix/public-api/sdk/go/botix"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "example:", err)
		os.Exit(1)
	}
}

// lossy is a transport that delivers every request but, with probability
// loss, throws the answer away and reports a reset connection instead.
type lossy struct {
	loss float64
	mu   sync.Mutex
	rand *rand.Rand
	lost atomic.Int64
}

func (l *lossy) loses() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rand.Float64() < l.loss
}

var errReset = errors.New("connection reset by peer (simulated: the answer was lost)")

func (l *lossy) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || r.Method == http.MethodGet || !l.loses() {
		return resp, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	l.lost.Add(1)
	return nil, errReset
}

func run(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("example", flag.ContinueOnError)
	n := fs.Int("n", 20, "contacts to create")
	loss := fs.Float64("loss", 0.3, "share of answers the network loses")
	seed := fs.Uint64("seed", 0, "seed of the losses (0: a new one each run)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	key := getenv("BOTIX_API_KEY")
	if key == "" {
		return errors.New("set BOTIX_API_KEY to a project's API key (make run prints one)")
	}
	if *seed == 0 {
		*seed = rand.Uint64()
	}
	network := &lossy{loss: *loss, rand: rand.New(rand.NewPCG(*seed, *seed))}
	opts := []botix.Option{botix.WithHTTPClient(&http.Client{Transport: network}), botix.WithUserAgent("sdk-example")}
	if u := getenv("BOTIX_API_URL"); u != "" {
		opts = append(opts, botix.WithBaseURL(u))
	}
	client := botix.NewClient(key, opts...)

	before, err := client.Contacts.Count(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "creating %d contacts through a network that loses %.0f%% of answers\n", *n, *loss*100)
	run := time.Now().UnixMilli() % 10000
	replays := 0
	for i := range *n {
		in := botix.ContactCreate{Phone: fmt.Sprintf("+7998%04d%03d", run, i), Name: "SDK example"}
		c, err := client.Contacts.Create(ctx, in)
		// A call can fail although the contact was made (every answer
		// lost): re-issuing it with the error's key finishes the same
		// operation instead of making a second contact.
		for reissues := 0; err != nil && reissues < 3; reissues++ {
			var opErr *botix.OperationError
			if !errors.As(err, &opErr) || !opErr.Reissuable() {
				return err
			}
			fmt.Fprintf(out, "%s: %v; re-issuing with its key\n", in.Phone, err)
			c, err = client.Contacts.Create(ctx, in, opErr.Reissue())
		}
		if err != nil {
			return err
		}
		note := ""
		if c.Response.Replayed {
			replays++
			note = ", the answer was a replay of the first"
		}
		fmt.Fprintf(out, "%s %s: %d attempt(s)%s\n", c.ID, c.Phone, c.Response.Attempts, note)
	}
	after, err := client.Contacts.Count(ctx)
	if err != nil {
		return err
	}
	made := after.Total - before.Total
	fmt.Fprintf(out, "%d answers lost, %d creates answered by a replay\n", network.lost.Load(), replays)
	if made != int64(*n) {
		return fmt.Errorf("%d contacts were made for %d creates", made, *n)
	}
	fmt.Fprintf(out, "contacts before: %d, after: %d: %d created, no duplicate\n", before.Total, after.Total, made)
	return nil
}
