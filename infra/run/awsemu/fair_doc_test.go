package awsemu

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/infra/testkit/docs"
)

// The integrators' guide states fair queueing's rules as the emulator
// applies them.
func TestReadmeStatesTheFairQueueRules(t *testing.T) {
	readme := strings.Join(strings.Fields(docs.Read(t, docs.Integrators)), " ")
	share := strconv.Itoa(int(noisyShare*100)) + " %"
	for _, want := range []string{
		"more than " + share + " of the queue's in-flight messages and at least " + strconv.Itoa(noisyMinInFlight) + " of its own",
		"more than " + share + " of the consumers' recent processing time",
		"after " + strconv.Itoa(int(quietAfter.Minutes())) + " minutes without sending",
		"a one-minute time constant",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("%s does not say %q", docs.Integrators, want)
		}
	}
	if processingWindow != time.Minute {
		t.Errorf("the guide says recent processing time fades with a one-minute time constant; it is %s", processingWindow)
	}
}
