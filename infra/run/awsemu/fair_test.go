package awsemu_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/botix/public-api/infra/run/awsemu"
)

// fairQueue is a standard queue driven through the SDK, whose messages
// carry their group (or "-" for none) in the body, on a clock the test
// advances.
type fairQueue struct {
	t     *testing.T
	c     *sqs.Client
	url   string
	clock *awsemu.ManualClock
}

// send sends n messages of group g ("" for none).
func (q fairQueue) send(g string, n int) {
	q.t.Helper()
	for range n {
		in := &sqs.SendMessageInput{QueueUrl: aws.String(q.url), MessageBody: aws.String(cmpOr(g, "-"))}
		if g != "" {
			in.MessageGroupId = aws.String(g)
		}
		if _, err := q.c.SendMessage(context.Background(), in); err != nil {
			q.t.Fatal(err)
		}
	}
}

// hold receives n messages (ten at a time) and keeps them in flight.
func (q fairQueue) hold(n int) []types.Message {
	q.t.Helper()
	var out []types.Message
	for len(out) < n {
		got := receive(q.t, q.c, q.url, int32(min(10, n-len(out))), 600)
		if len(got) == 0 {
			q.t.Fatalf("held %d of %d messages: the queue has no more visible", len(out), n)
		}
		out = append(out, got...)
	}
	return out
}

// deleteAll deletes messages a receive returned.
func (q fairQueue) deleteAll(ms []types.Message) {
	q.t.Helper()
	for _, m := range ms {
		if _, err := q.c.DeleteMessage(context.Background(), &sqs.DeleteMessageInput{QueueUrl: aws.String(q.url), ReceiptHandle: m.ReceiptHandle}); err != nil {
			q.t.Fatal(err)
		}
	}
}

func bodies(ms []types.Message) string {
	var out []string
	for _, m := range ms {
		out = append(out, aws.ToString(m.Body))
	}
	return strings.Join(out, " ")
}

func cmpOr(s, or string) string {
	if s == "" {
		return or
	}
	return s
}

// The emulator serves message groups on a standard queue as SQS fair
// queues do: a group is noisy with more than 10 % of the in-flight
// messages and at least 30 of its own, or more than 10 % of the recent
// processing time; quiet groups' messages come first, then the noisy
// group with the fewest in flight; messages without a group are each
// their own (quiet) tenant; a group is quiet again when drained or after
// 5 minutes without sending, and processing time fades with a one-minute
// time constant.
func TestFairQueuesServeQuietGroupsFirst(t *testing.T) {
	c, _, clock := emulatorOn(t)
	cases := []struct {
		name  string
		setup func(q fairQueue)
		max   int32
		want  string
	}{
		{"without groups, receives follow send order", func(q fairQueue) {
			q.send("", 2)
			q.send("A", 1)
			q.send("", 1)
		}, 10, "- - A -"},
		{"a quiet group comes before a noisy group's backlog", func(q fairQueue) {
			q.send("A", 60)
			q.hold(40)
			q.send("B", 3)
		}, 5, "B B B A A"},
		{"29 in flight is not noisy: send order", func(q fairQueue) {
			q.send("A", 40)
			q.hold(29)
			q.send("B", 1)
		}, 1, "A"},
		{"the 30th in flight makes a group noisy within one receive", func(q fairQueue) {
			q.send("A", 40)
			q.hold(28)
			q.send("B", 1)
		}, 4, "A A B A"},
		{"30 in flight and all of the queue's is noisy", func(q fairQueue) {
			q.send("A", 40)
			q.hold(30)
			q.send("B", 1)
		}, 3, "B A A"},
		{"exactly 10 % of the in-flight messages is not noisy", func(q fairQueue) {
			q.send("", 270)
			q.hold(270)
			q.send("A", 40)
			q.hold(30)
			q.send("B", 1)
		}, 1, "A"},
		{"just above 10 % of the in-flight messages is noisy", func(q fairQueue) {
			q.send("", 270)
			q.hold(270)
			q.send("A", 40)
			q.hold(31)
			q.send("B", 1)
		}, 1, "B"},
		{"ungrouped messages are quiet tenants", func(q fairQueue) {
			q.send("A", 40)
			q.hold(35)
			q.send("", 2)
		}, 4, "- - A A"},
		{"among noisy groups, the fewest in flight first", func(q fairQueue) {
			q.send("A", 50)
			q.hold(40)
			q.send("C", 50)
			q.hold(35)
		}, 6, "C C C C C A"},
		{"a noisy group is served when no quiet group waits", func(q fairQueue) {
			q.send("A", 50)
			q.hold(40)
		}, 10, "A A A A A A A A A A"},
		{"more than 10 % of the recent processing time is noisy", func(q fairQueue) {
			q.send("A", 1)
			slow := q.hold(1)
			q.clock.Advance(50 * time.Millisecond) // A's consumer works; nobody else's does
			q.deleteAll(slow)
			q.send("A", 2)
			q.send("B", 1)
		}, 3, "B A A"},
		{"a drained group is quiet again", func(q fairQueue) {
			q.send("A", 40)
			done := q.hold(40)
			q.clock.Advance(10 * time.Millisecond)
			q.deleteAll(done)
			receive(q.t, q.c, q.url, 1, 600) // sees A drained
			q.send("A", 1)
			q.send("B", 1)
		}, 2, "A B"},
		{"a noisy group is still noisy just under 5 minutes after its last send", func(q fairQueue) {
			q.send("A", 40)
			q.hold(30)
			q.clock.Advance(5*time.Minute - time.Millisecond)
			q.send("B", 1)
		}, 3, "B A A"},
		{"a noisy group is quiet 5 minutes after its last send", func(q fairQueue) {
			q.send("A", 40)
			q.hold(30)
			q.clock.Advance(5 * time.Minute)
			q.send("B", 1)
		}, 3, "A A A"},
		{"processing time fades: 10 s ten minutes ago is less than 1 s now", func(q fairQueue) {
			q.send("A", 1)
			// Keeps A from being drained (which would forget its history).
			if _, err := q.c.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(q.url), MessageBody: aws.String("A"), MessageGroupId: aws.String("A"), DelaySeconds: 900}); err != nil {
				q.t.Fatal(err)
			}
			slow := q.hold(1)
			q.clock.Advance(10 * time.Second)
			q.deleteAll(slow)
			q.clock.Advance(10 * time.Minute)
			q.send("B", 1)
			fast := q.hold(1)
			q.clock.Advance(time.Second)
			q.deleteAll(fast)
			q.send("A", 2)
			q.send("C", 1)
		}, 3, "A A C"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := fairQueue{t: t, c: c, url: createQueue(t, c, fmt.Sprintf("fair-%d", i), nil), clock: clock}
			tc.setup(q)
			if got := bodies(receive(t, c, q.url, tc.max, 600)); got != tc.want {
				t.Errorf("receive returned %q, want %q", got, tc.want)
			}
		})
	}
}

// The group a message was sent with comes back as its MessageGroupId
// system attribute, from SendMessage and SendMessageBatch, and survives
// the redrive to a dead-letter queue and a move task back.
func TestMessageGroupIdTravelsWithTheMessage(t *testing.T) {
	c, _, _ := emulator(t)
	ctx := context.Background()
	dlq := createQueue(t, c, "grp-dlq", map[string]string{"VisibilityTimeout": "0"})
	dlqArn := "arn:aws:sqs:" + region + ":" + account + ":grp-dlq"
	work := createQueue(t, c, "grp-work", map[string]string{"VisibilityTimeout": "0", "RedrivePolicy": `{"deadLetterTargetArn":"` + dlqArn + `","maxReceiveCount":"1"}`})
	groups := func(ms []types.Message) []string {
		var out []string
		for _, m := range ms {
			out = append(out, cmpOr(m.Attributes["MessageGroupId"], "-"))
		}
		slices.Sort(out)
		return out
	}
	if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(work), MessageBody: aws.String("one"), MessageGroupId: aws.String("prj_1")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(work), Entries: []types.SendMessageBatchRequestEntry{
		{Id: aws.String("a"), MessageBody: aws.String("two"), MessageGroupId: aws.String("prj_2")},
		{Id: aws.String("b"), MessageBody: aws.String("three")},
	}}); err != nil {
		t.Fatal(err)
	}
	if got, want := groups(receive(t, c, work, 10, 0)), []string{"-", "prj_1", "prj_2"}; !slices.Equal(got, want) {
		t.Fatalf("groups received %v, want %v", got, want)
	}
	only, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(dlq), MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(only.Messages) != 0 {
		t.Fatalf("the dead-letter queue is not empty before the redrive")
	}
	if got := receive(t, c, work, 10, 0); len(got) != 0 {
		t.Fatalf("a receive past maxReceiveCount returned %d messages; want them moved", len(got))
	}
	died := receive(t, c, dlq, 10, 0)
	if got, want := groups(died), []string{"-", "prj_1", "prj_2"}; !slices.Equal(got, want) {
		t.Fatalf("groups in the dead-letter queue %v, want %v", got, want)
	}
	if _, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqArn)}); err != nil {
		t.Fatal(err)
	}
	waitTask(t, c, dlqArn, "COMPLETED", 3)
	if got, want := groups(receive(t, c, work, 10, 0)), []string{"-", "prj_1", "prj_2"}; !slices.Equal(got, want) {
		t.Fatalf("groups moved back %v, want %v", got, want)
	}
	asked, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(dlq), MaxNumberOfMessages: 1,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range asked.Messages {
		if _, ok := m.Attributes["MessageGroupId"]; ok {
			t.Errorf("MessageGroupId returned though not asked for")
		}
	}
}
