package bench

import (
	"strings"
	"testing"
	"time"
)

// TestNoisyVerdict: the noisy step says "met" only when both phases
// measured every one of B's webhooks and B alone's p99 is a sound baseline
// (positive and below its own pace), and the flood stays within the bound.
func TestNoisyVerdict(t *testing.T) {
	const every = 100 * time.Millisecond
	ms := func(vs ...int) []time.Duration {
		var out []time.Duration
		for _, v := range vs {
			out = append(out, time.Duration(v)*time.Millisecond)
		}
		return out
	}
	for _, tc := range []struct {
		name           string
		alone, crowded []time.Duration
		want           string
	}{
		{"within the bound with a sound baseline: met", ms(10, 20), ms(15, 25), "met"},
		{"past the bound with a sound baseline: not met", ms(10, 20), ms(15, 40), "NOT met"},
		{"B alone lost a webhook: no verdict", ms(10), ms(15, 25), "no verdict"},
		{"neither phase measured anything: no verdict", nil, nil, "no verdict"},
		{"B alone at zero: no verdict", ms(0, 0), ms(0, 0), "no verdict"},
		{"B alone queued behind its own pace: no verdict, though the ratio is 1", ms(300, 300), ms(300, 300), "no verdict"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := noisyVerdict(latencies{queued: tc.alone}, latencies{queued: tc.crowded}, 2, every)
			if !strings.HasPrefix(got, tc.want) {
				t.Fatalf("verdict %q, want %q", got, tc.want)
			}
		})
	}
}
