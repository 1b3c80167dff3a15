package awsemu

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The README states fair queueing's rules as the emulator applies them.
func TestReadmeStatesTheFairQueueRules(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(b)), " ")
	share := strconv.Itoa(int(noisyShare*100)) + " %"
	for _, want := range []string{
		"more than " + share + " of the queue's in-flight messages and at least " + strconv.Itoa(noisyMinInFlight) + " of its own",
		"more than " + share + " of the consumers' recent processing time",
		"after " + strconv.Itoa(int(quietAfter.Minutes())) + " minutes without sending",
		"a one-minute time constant",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
	if processingWindow != time.Minute {
		t.Errorf("the README says recent processing time fades with a one-minute time constant; it is %s", processingWindow)
	}
}
