package ddblocal

import (
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/infra/internal/procout"
)

func TestAFetchSaysItStartedAndThatItStillRunsUntilItEnds(t *testing.T) {
	var out procout.Buffer
	stop := say(&out, "fetching...", "still fetching", 20*time.Millisecond)
	time.Sleep(70 * time.Millisecond)
	stop()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) < 3 || lines[0] != "fetching..." || !strings.HasPrefix(lines[1], "still fetching, ") {
		t.Fatalf("printed %q, want the first line and at least two still-fetching lines", lines)
	}
	after := out.String()
	time.Sleep(50 * time.Millisecond)
	if out.String() != after {
		t.Errorf("printed after stop: %q", strings.TrimPrefix(out.String(), after))
	}
}
