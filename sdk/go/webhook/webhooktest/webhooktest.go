// Package webhooktest holds the contract every webhook.Deduplicator must
// meet, as a test helper: run it against your own store (SQL, Redis, ...)
// to know it de-duplicates as the receiver kit expects.
package webhooktest

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/botix/public-api/sdk/go/webhook"
)

// DeduplicatorContract checks d: of two concurrent First calls with one
// id exactly one is first (50 rounds), a second sighting is not first, and
// Forget lets a redelivery through.
func DeduplicatorContract(t *testing.T, d webhook.Deduplicator) {
	t.Helper()
	t.Run("two goroutines, one event: processed once", func(t *testing.T) { once(t, d) })
	t.Run("forget lets a redelivery through", func(t *testing.T) {
		ctx := context.Background()
		id := freshID("forget")
		if ok, err := d.First(ctx, id); err != nil || !ok {
			t.Fatalf("first sighting: first=%v, err=%v", ok, err)
		}
		if ok, err := d.First(ctx, id); err != nil || ok {
			t.Fatalf("second sighting: first=%v, err=%v", ok, err)
		}
		if err := d.Forget(ctx, id); err != nil {
			t.Fatal(err)
		}
		if ok, err := d.First(ctx, id); err != nil || !ok {
			t.Fatalf("forgotten id: first=%v, err=%v", ok, err)
		}
	})
}

func once(t *testing.T, d webhook.Deduplicator) {
	for round := 0; round < 50; round++ {
		id := freshID(strconv.Itoa(round))
		var firsts atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for g := 0; g < 2; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				ok, err := d.First(context.Background(), id)
				if err != nil {
					t.Error(err)
				}
				if ok {
					firsts.Add(1)
				}
			}()
		}
		close(start)
		wg.Wait()
		if firsts.Load() != 1 {
			t.Fatalf("round %d: %d goroutines saw the event first", round, firsts.Load())
		}
	}
}

func freshID(tag string) string {
	return "evt_" + tag + strconv.FormatInt(time.Now().UnixNano(), 36)
}
