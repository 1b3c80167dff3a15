// Package ticker calls a function at a fixed interval in the background,
// for the progress lines of long steps (infra/tools/cmd/progress, ddblocal).
package ticker

import "time"

// Every calls f with the time of each tick, one interval apart, until stop
// is called; stop returns once f is no longer running and will not be
// called again.
func Every(interval time.Duration, f func(now time.Time)) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				f(now)
			}
		}
	}()
	return func() { close(done); <-finished }
}
