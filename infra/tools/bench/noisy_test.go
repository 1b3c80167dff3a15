package bench

import (
	"strings"
	"testing"
	"time"
)

func TestNoisyVerdict(t *testing.T) {
	every := 100 * time.Millisecond
	cases := []struct {
		name           string
		alone, crowded time.Duration
		want           string
	}{
		{"within the bound with a sound baseline: met", 20 * time.Millisecond, 25 * time.Millisecond, "met"},
		{"past the bound with a sound baseline: not met", 20 * time.Millisecond, 40 * time.Millisecond, "NOT met"},
		{"B alone queued behind its own pace: no verdict, though the ratio is 1", 300 * time.Millisecond, 300 * time.Millisecond, "no verdict"},
		{"B alone not measured: no verdict", 0, 10 * time.Millisecond, "no verdict"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := noisyVerdict(c.alone, c.crowded, every); !strings.HasPrefix(got, c.want) {
				t.Errorf("noisyVerdict(%v, %v) = %q, want %q…", c.alone, c.crowded, got, c.want)
			}
		})
	}
}
