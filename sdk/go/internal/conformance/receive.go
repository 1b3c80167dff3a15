package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/botix/public-api/sdk/go/webhook"
)

// webhookReceive serves one receiver per entry of the params with the kit's
// Handler and a memory deduplicator, announces their URLs, and reports the
// events each processed once standard input closes.
func webhookReceive(_ context.Context, b []byte, stdin *bufio.Reader) (any, error) {
	p, err := parse(b)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	processed := map[string][]string{}
	failed := map[string]bool{}
	urls := map[string]string{}
	for _, r := range p.Receivers {
		processed[r.Name] = []string{}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		name := r.Name
		h := &webhook.Handler{
			Verifier: webhook.Verifier{Secrets: r.Secrets, Tolerance: time.Duration(p.ToleranceS) * time.Second, AllowLegacy: r.AllowLegacy},
			Dedup:    &webhook.MemoryDeduplicator{},
			Process: func(_ context.Context, ev webhook.Event) error {
				if d := p.Slow[ev.ID]; d > 0 {
					time.Sleep(ms(d))
				}
				mu.Lock()
				defer mu.Unlock()
				if slices.Contains(p.FailOnce, ev.ID) && !failed[name+ev.ID] {
					failed[name+ev.ID] = true
					return errors.New("processing failed (as the scenario asks, once)")
				}
				processed[name] = append(processed[name], ev.ID)
				return nil
			},
		}
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		urls[name] = "http://" + ln.Addr().String() + "/"
	}
	announce, err := json.Marshal(map[string]any{"receivers": urls})
	if err != nil {
		return nil, err
	}
	fmt.Println(string(announce))
	_ = os.Stdout.Sync()
	_, _ = io.Copy(io.Discard, stdin) // serve until the harness closes stdin
	mu.Lock()
	defer mu.Unlock()
	return map[string]any{"processed": processed}, nil
}
