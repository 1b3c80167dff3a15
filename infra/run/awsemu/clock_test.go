package awsemu_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/botix/public-api/infra/run/awsemu"
)

// epoch is where the tests' ManualClocks start: far from the wall clock,
// so that a time read from the wall instead shows.
var epoch = time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)

// emulatorOn is emulator on a ManualClock that the test advances.
func emulatorOn(t *testing.T) (*sqs.Client, *scheduler.Client, *awsemu.ManualClock) {
	t.Helper()
	clock := awsemu.NewManualClock(epoch)
	srv := awsemu.StartTestServerOn(clock, region, account)
	t.Cleanup(srv.Close)
	sqsc, schedc := clients(srv.URL)
	return sqsc, schedc, clock
}

func depths(t *testing.T, c *sqs.Client, url string) string {
	t.Helper()
	out, err := c.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: []types.QueueAttributeName{"All"}})
	if err != nil {
		t.Fatal(err)
	}
	a := out.Attributes
	return a["ApproximateNumberOfMessages"] + " visible, " + a["ApproximateNumberOfMessagesNotVisible"] + " in flight, " + a["ApproximateNumberOfMessagesDelayed"] + " delayed"
}

// A received message is hidden for its visibility timeout, on the clock,
// and then received again.
func TestVisibilityTimeoutEndsOnTheClock(t *testing.T) {
	c, _, clock := emulatorOn(t)
	url := createQueue(t, c, "vis", map[string]string{"VisibilityTimeout": "30"})
	send(t, c, url, "job")
	first := receive(t, c, url, 1, 0)
	if len(first) != 1 {
		t.Fatalf("received %+v", first)
	}
	if got, want := first[0].Attributes["SentTimestamp"], strconv.FormatInt(epoch.UnixMilli(), 10); got != want {
		t.Errorf("SentTimestamp %s, want the clock's %s", got, want)
	}
	clock.Advance(29 * time.Second)
	if got := receive(t, c, url, 1, 0); len(got) != 0 {
		t.Fatalf("received again 29 s into a 30 s visibility timeout: %+v", got)
	}
	if got := depths(t, c, url); got != "0 visible, 1 in flight, 0 delayed" {
		t.Errorf("29 s in: %s", got)
	}
	clock.Advance(time.Second)
	again := receive(t, c, url, 1, 10)
	if len(again) != 1 || again[0].Attributes["ApproximateReceiveCount"] != "2" {
		t.Fatalf("after the visibility timeout: %+v", again)
	}
	if got, want := again[0].Attributes["ApproximateFirstReceiveTimestamp"], strconv.FormatInt(epoch.UnixMilli(), 10); got != want {
		t.Errorf("ApproximateFirstReceiveTimestamp %s, want the first receive's %s", got, want)
	}
	// A visibility changed in flight counts from the change.
	clock.Advance(5 * time.Second)
	if _, err := c.ChangeMessageVisibility(context.Background(), &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url), ReceiptHandle: again[0].ReceiptHandle, VisibilityTimeout: 60}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(59 * time.Second)
	if got := receive(t, c, url, 1, 0); len(got) != 0 {
		t.Fatalf("received 59 s into a visibility changed to 60 s: %+v", got)
	}
	clock.Advance(time.Second)
	if got := receive(t, c, url, 1, 0); len(got) != 1 || got[0].Attributes["ApproximateReceiveCount"] != "3" {
		t.Fatalf("after the changed visibility: %+v", got)
	}
}

// A delayed message (the queue's DelaySeconds, or the send's) is counted
// as delayed until its delay has passed on the clock.
func TestDelayEndsOnTheClock(t *testing.T) {
	c, _, clock := emulatorOn(t)
	url := createQueue(t, c, "delayed", map[string]string{"DelaySeconds": "10"})
	send(t, c, url, "queue's delay")
	if _, err := c.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("own delay"), DelaySeconds: 20}); err != nil {
		t.Fatal(err)
	}
	if got := depths(t, c, url); got != "0 visible, 0 in flight, 2 delayed" {
		t.Errorf("at once: %s", got)
	}
	clock.Advance(10*time.Second - time.Millisecond)
	if got := receive(t, c, url, 10, 0); len(got) != 0 {
		t.Fatalf("received before the delay ended: %+v", got)
	}
	clock.Advance(time.Millisecond)
	if got := depths(t, c, url); got != "1 visible, 0 in flight, 1 delayed" {
		t.Errorf("after 10 s: %s", got)
	}
	if got := bodies(receive(t, c, url, 10, 0)); got != "queue's delay" {
		t.Fatalf("after 10 s received %q", got)
	}
	clock.Advance(10 * time.Second)
	if got := bodies(receive(t, c, url, 10, 0)); got != "own delay" {
		t.Fatalf("after 20 s received %q", got)
	}
}

// A message older than the queue's retention period is gone: neither
// counted nor received.
func TestRetentionDropsOldMessagesOnTheClock(t *testing.T) {
	c, _, clock := emulatorOn(t)
	url := createQueue(t, c, "short", map[string]string{"MessageRetentionPeriod": "60"})
	shortArn := "arn:aws:sqs:" + region + ":" + account + ":short"
	src := createQueue(t, c, "src", map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + shortArn + `","maxReceiveCount":1}`})
	send(t, c, url, "old")
	clock.Advance(30 * time.Second)
	send(t, c, url, "new")
	clock.Advance(30*time.Second - time.Millisecond)
	if got := depths(t, c, url); got != "2 visible, 0 in flight, 0 delayed" {
		t.Errorf("just before the retention period: %s", got)
	}
	clock.Advance(time.Millisecond)
	if got := depths(t, c, url); got != "1 visible, 0 in flight, 0 delayed" {
		t.Errorf("at the retention period of the first: %s", got)
	}
	// A move task takes only what is left, not what has expired.
	if _, err := c.StartMessageMoveTask(context.Background(), &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(shortArn)}); err != nil {
		t.Fatal(err)
	}
	waitTask(t, c, shortArn, "COMPLETED", 1)
	if got := bodies(receive(t, c, src, 10, 0)); got != "new" {
		t.Fatalf("moved %q, want only the message younger than 60 s", got)
	}
}

// A long poll asleep on the clock is woken by the Advance that makes a
// message visible, and ends, empty, at its wait.
func TestLongPollsWaitOnTheClock(t *testing.T) {
	clock := awsemu.NewManualClock(epoch)
	s := awsemu.NewSQS("http://sqs.invalid", region, account)
	s.Clock = clock
	t.Cleanup(s.Close)
	q, err := s.CreateQueue("polled", nil)
	if err != nil {
		t.Fatal(err)
	}
	poll := func(wait time.Duration) <-chan []awsemu.Message {
		got := make(chan []awsemu.Message, 1)
		go func() {
			ms, err := q.Receive(context.Background(), awsemu.ReceiveOptions{Max: 10, Wait: &wait})
			if err != nil {
				t.Error(err)
			}
			got <- ms
		}()
		for deadline := time.Now().Add(5 * time.Second); clock.Waiting() == 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the long poll never slept on the clock")
			}
		}
		return got
	}
	result := func(got <-chan []awsemu.Message) ([]awsemu.Message, bool) {
		select {
		case ms := <-got:
			return ms, true
		case <-time.After(5 * time.Second):
			return nil, false
		}
	}

	got := poll(20 * time.Second)
	clock.Advance(20*time.Second - time.Millisecond)
	select {
	case ms := <-got:
		t.Fatalf("a 20 s long poll ended 1 ms early with %+v", ms)
	case <-time.After(50 * time.Millisecond):
	}
	clock.Advance(time.Millisecond)
	if ms, ok := result(got); !ok || len(ms) != 0 {
		t.Fatalf("the long poll did not end, empty, at its wait: %+v %v", ms, ok)
	}

	if _, err := q.Send("later", awsemu.SendOptions{Delay: aws.Duration(5 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	got = poll(20 * time.Second)
	clock.Advance(5 * time.Second)
	if ms, ok := result(got); !ok || len(ms) != 1 || ms[0].Body != "later" {
		t.Fatalf("the Advance past the delay did not wake the long poll with the message: %+v %v", ms, ok)
	}
}

// ManualClock calls what is due, in order, once per Advance; what they
// register for later waits for a later Advance; a stopped one is never
// called.
func TestManualClock(t *testing.T) {
	c := awsemu.NewManualClock(epoch)
	var calls []string
	c.AfterFunc(2*time.Second, func() { calls = append(calls, "2s") })
	c.AfterFunc(time.Second, func() {
		calls = append(calls, "1s at "+c.Now().Sub(epoch).String())
		c.AfterFunc(time.Millisecond, func() { calls = append(calls, "then 1ms") })
	})
	stop := c.AfterFunc(time.Second, func() { calls = append(calls, "stopped") })
	if !stop() || stop() {
		t.Error("stop reports true once, for a call it cancelled")
	}
	c.Advance(500 * time.Millisecond)
	if len(calls) != 0 || c.Waiting() != 2 {
		t.Fatalf("called %v early; %d waiting", calls, c.Waiting())
	}
	c.Advance(10 * time.Second)
	if got, want := calls, []string{"1s at 10.5s", "2s"}; !slices.Equal(got, want) {
		t.Fatalf("called %v, want %v", got, want)
	}
	c.Advance(time.Millisecond)
	if got := calls[len(calls)-1]; got != "then 1ms" || c.Waiting() != 0 {
		t.Fatalf("the call registered during an Advance: %v; %d waiting", calls, c.Waiting())
	}
}
