package awsqueue

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/botix/public-api/infra/run/awsemu"
	"github.com/botix/public-api/internal/awsenv"
	"github.com/botix/public-api/internal/awslimits"
	"github.com/botix/public-api/internal/webhook"
)

// Every delivery message is a tenant of the fair queue: its project.
func TestMessageInputGroupsByProject(t *testing.T) {
	m := webhook.Message{DeliveryID: "dlv_1", ProjectID: "prj_A", Round: 1, Attempt: 2}
	cases := []struct {
		name      string
		delay     time.Duration
		wantDelay int32
	}{
		{"first try: visible at once", 0, 0},
		{"deferred: visible after whole seconds, never early", 90*time.Second + 400*time.Millisecond, 91},
		{"past SQS's longest delay: capped at 15 minutes", time.Hour, 900},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := messageInput("https://sqs/q", m, tc.delay)
			if aws.ToString(in.MessageGroupId) != "prj_A" || in.DelaySeconds != tc.wantDelay || aws.ToString(in.QueueUrl) != "https://sqs/q" {
				t.Fatalf("group %q, delay %d, queue %q", aws.ToString(in.MessageGroupId), in.DelaySeconds, aws.ToString(in.QueueUrl))
			}
			if back, err := webhook.ParseMessage(aws.ToString(in.MessageBody)); err != nil || !reflect.DeepEqual(back, m) {
				t.Fatalf("body %s reads back as %+v, %v", aws.ToString(in.MessageBody), back, err)
			}
			e := batchEntry("7", in)
			if aws.ToString(e.Id) != "7" || e.MessageBody != in.MessageBody || e.MessageGroupId != in.MessageGroupId || e.DelaySeconds != in.DelaySeconds {
				t.Fatalf("batch entry %+v differs from %+v", e, in)
			}
		})
	}
}

// clients are the functions' SQS and Scheduler clients, of the emulator at
// base.
func clients(base string) (*sqs.Client, *scheduler.Client) {
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""), HTTPClient: awsenv.OwnBodies(nil)}
	return sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = aws.String(base) }),
		scheduler.NewFromConfig(cfg, func(o *scheduler.Options) { o.BaseEndpoint = aws.String(base) })
}

// emulator starts a local SQS and Scheduler with the named queues, and
// returns the functions' clients of it.
func emulator(t *testing.T, queues ...string) (*sqs.Client, *scheduler.Client, []*awsemu.Queue) {
	t.Helper()
	srv := awsemu.StartTestServer("us-east-1", "000000000000")
	t.Cleanup(srv.Close)
	var qs []*awsemu.Queue
	for _, name := range queues {
		q, err := srv.SQS.CreateQueue(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, q)
	}
	sqsc, schedc := clients(srv.URL)
	return sqsc, schedc, qs
}

// Each way a delivery message reaches a queue (enqueue, dead letter,
// redrive, scheduled retry) carries the project as MessageGroupId, as
// the queue (the emulator, which serves groups as SQS fair queues do)
// reports it back, and goes to its lane: a message marked Bulk to the
// bulk lane, in every way but the dead letter.
func TestEverySendCarriesTheProjectGroupOnItsLane(t *testing.T) {
	ctx := context.Background()
	sqsc, schedc, qs := emulator(t, "deliveries", "bulk-deliveries", "dead")
	work, bulk, dead := qs[0], qs[1], qs[2]
	q := &Queue{SQS: sqsc, URL: work.URL(), BulkURL: bulk.URL(), DeadLetterURL: dead.URL()}
	sched := &Scheduler{Client: schedc, Group: "default", QueueURL: work.URL(), BulkQueueURL: bulk.URL(), QueueARN: work.ARN(), RoleARN: "arn:aws:iam::000000000000:role/scheduler"}

	// groups receives what url holds now (waiting up to wait for the first)
	// as "delivery/group" pairs, sorted.
	groups := func(url string, wait int32) []string {
		t.Helper()
		out, err := sqsc.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: wait,
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{"MessageGroupId"}, MessageAttributeNames: []string{"All"}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range out.Messages {
			msg, err := webhook.ParseMessage(aws.ToString(m.Body))
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, msg.DeliveryID+"/"+m.Attributes["MessageGroupId"])
			if _, err := sqsc.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
		}
		slices.Sort(got)
		return got
	}
	a := webhook.Message{DeliveryID: "dlv_a", ProjectID: "prj_A", EndpointID: "ep_1", EventType: "message.sent"}
	b := webhook.Message{DeliveryID: "dlv_b", ProjectID: "prj_B", EndpointID: "ep_2", EventType: "message.sent"}
	flood := webhook.Message{DeliveryID: "dlv_f", ProjectID: "prj_F", EndpointID: "ep_3", EventType: "message.sent", Bulk: true}
	// redrive dead-letters m and moves it back as the Redrive function does.
	redrive := func(m webhook.Message) func() error {
		return func() error {
			if err := q.DeadLetter(ctx, m); err != nil {
				return err
			}
			letters, err := q.Receive(ctx, 10, time.Minute)
			if err != nil || len(letters) != 1 {
				t.Fatalf("dead letters %v, %v", letters, err)
			}
			return q.Requeue(ctx, letters[0])
		}
	}
	steps := []struct {
		name  string
		act   func() error
		queue string
		want  []string
	}{
		{"enqueue", func() error {
			for _, err := range q.Enqueue(ctx, []webhook.Message{a, b}) {
				if err != nil {
					return err
				}
			}
			return nil
		}, work.URL(), []string{"dlv_a/prj_A", "dlv_b/prj_B"}},
		{"dead letter", func() error { return q.DeadLetter(ctx, b) }, dead.URL(), []string{"dlv_b/prj_B"}},
		{"redrive", redrive(a), work.URL(), []string{"dlv_a/prj_A"}},
		{"scheduled retry", func() error { return sched.Schedule(ctx, b, time.Now().Add(-time.Second)) }, work.URL(), []string{"dlv_b/prj_B"}},
		{"enqueue on both lanes: the bulk lane", func() error {
			for _, err := range q.Enqueue(ctx, []webhook.Message{a, flood, b}) {
				if err != nil {
					return err
				}
			}
			return nil
		}, bulk.URL(), []string{"dlv_f/prj_F"}},
		{"enqueue on both lanes: the delivery queue", func() error { return nil }, work.URL(), []string{"dlv_a/prj_A", "dlv_b/prj_B"}},
		{"dead letter of the bulk lane", func() error { return q.DeadLetter(ctx, flood) }, dead.URL(), []string{"dlv_f/prj_F"}},
		{"redrive to the bulk lane", redrive(flood), bulk.URL(), []string{"dlv_f/prj_F"}},
		{"scheduled retry on the bulk lane", func() error { return sched.Schedule(ctx, flood, time.Now().Add(-time.Second)) }, bulk.URL(), []string{"dlv_f/prj_F"}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if err := st.act(); err != nil {
				t.Fatal(err)
			}
			if got := groups(st.queue, 5); !slices.Equal(got, st.want) {
				t.Fatalf("queue holds %v, want %v", got, st.want)
			}
		})
	}
}

// A retry's target is the universal SendMessage target of the queue's
// partition.
func TestSendMessageTargetFollowsThePartition(t *testing.T) {
	cases := []struct{ name, queueARN, want string }{
		{"aws", "arn:aws:sqs:eu-west-1:123456789012:q", "arn:aws:scheduler:::aws-sdk:sqs:sendMessage"},
		{"china", "arn:aws-cn:sqs:cn-north-1:123456789012:q", "arn:aws-cn:scheduler:::aws-sdk:sqs:sendMessage"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := sendMessageTarget(tc.queueARN); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// A SendMessageBatch holds at most SQS's ten messages and 1 MiB of
// bodies; a batch reaches either bound exactly, never passes it, and
// order is kept.
func TestBatchesKeepSQSBounds(t *testing.T) {
	const kb, limit = 1 << 10, awslimits.SQSBatchBytes
	for _, tc := range []struct {
		name  string
		sizes []int
		want  []int // the batches' lengths
	}{
		{"none", nil, nil},
		{"small messages: ten a batch", slices.Repeat([]int{kb}, 23), []int{10, 10, 3}},
		{"bulk lane's first messages with 130 KB bodies: seven a batch", slices.Repeat([]int{130 * kb}, 10), []int{7, 3}},
		{"exactly the bound fits", []int{limit / 2, limit / 2, 1}, []int{2, 1}},
		{"one byte past it splits", []int{limit / 2, limit/2 + 1, 1}, []int{1, 2}},
		{"ten messages of exactly the bound's tenth fit", slices.Repeat([]int{limit / 10}, 11), []int{10, 1}},
		{"a message at the bound goes alone", []int{1, limit, 1}, []int{1, 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idx := make([]int, len(tc.sizes))
			for i := range idx {
				idx[i] = 100 + i
			}
			var lens, order []int
			for _, b := range batches(idx, tc.sizes) {
				lens, order = append(lens, len(b)), append(order, b...)
				bytes := 0
				for _, i := range b {
					bytes += tc.sizes[i-100]
				}
				if len(b) > awslimits.SQSBatchEntries || (len(b) > 1 && bytes > limit) {
					t.Fatalf("batch of %d messages, %d bytes", len(b), bytes)
				}
			}
			if !slices.Equal(lens, tc.want) || !slices.Equal(order, idx) {
				t.Fatalf("batches of %v (order %v), want %v", lens, order, tc.want)
			}
		})
	}
}

// Ten bulk lane messages that carry the largest bodies a payload makes
// (webhook.MaxPayload of quotes, each escaped to two bytes) are sent,
// though together they pass SQS's batch bound: the emulator refuses a
// batch past it with SQS's BatchRequestTooLong, as SQS does.
func TestLargeMessagesAreSentInBatchesSQSTakes(t *testing.T) {
	sqsc, _, qs := emulator(t, "bulk-deliveries")
	bulk := qs[0]
	q := &Queue{SQS: sqsc, URL: bulk.URL() + "-unused", BulkURL: bulk.URL()}
	var msgs []webhook.Message
	total := 0
	for i := range 10 {
		m := webhook.Message{DeliveryID: fmt.Sprintf("dlv_%d", i), ProjectID: "prj_A", Round: 1, Attempt: 1, Bulk: true,
			Pending: &webhook.PendingDelivery{EventID: "evt_1", Payload: strings.Repeat(`"`, webhook.MaxPayload), CreatedAt: "2026-12-02T00:00:00Z"}}
		msgs = append(msgs, m)
		total += len(m.String())
	}
	if total <= awslimits.SQSBatchBytes {
		t.Fatalf("the messages' %d bytes fit one batch: the test no longer reaches SQS's bound", total)
	}
	for i, err := range q.Enqueue(context.Background(), msgs) {
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	if visible, _, _ := bulk.Depth(); visible != 10 {
		t.Fatalf("%d messages on the bulk lane, want 10", visible)
	}
}

// A bulk lane's first message carries its payload: whatever a payload of
// webhook.MaxPayload bytes holds, the body fits one SQS message and reads
// back as it was.
func TestAPayloadOfAnyContentFitsOneMessage(t *testing.T) {
	for _, tc := range []struct{ name, unit string }{
		{"HTML characters (not escaped)", "<>&"},
		{"quotes", `"`},
		{"backslashes", `\`},
		{"Cyrillic", "ж"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			payload := strings.Repeat(tc.unit, webhook.MaxPayload/len(tc.unit))
			m := webhook.Message{DeliveryID: "dlv_1", ProjectID: "prj_A", Round: 1, Attempt: 1, Bulk: true,
				Pending: &webhook.PendingDelivery{EventID: "evt_1", Payload: payload, CreatedAt: "2026-12-02T00:00:00Z"}}
			body := aws.ToString(messageInput("https://sqs/q", m, 0).MessageBody)
			if len(body) > awslimits.SQSMessageBytes {
				t.Fatalf("body of %d bytes, past SQS's %d", len(body), awslimits.SQSMessageBytes)
			}
			back, err := webhook.ParseMessage(body)
			if err != nil || back.Pending == nil || back.Pending.Payload != payload {
				t.Fatalf("read back %v", err)
			}
		})
	}
}

// A delay is sent as SQS takes it: whole seconds, rounded up, and never
// past SQS's longest (a longer wait goes to the Scheduler instead).
func TestDelaySecondsStayWithinSQSs(t *testing.T) {
	longest := int32(awslimits.SQSMaxDelay / time.Second)
	for _, tc := range []struct {
		name string
		in   time.Duration
		want int32
	}{
		{"none", 0, 0},
		{"negative: none", -time.Second, 0},
		{"a fraction rounds up", 1200 * time.Millisecond, 2},
		{"exactly SQS's longest", awslimits.SQSMaxDelay, longest},
		{"past it: SQS's longest", awslimits.SQSMaxDelay + time.Second, longest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := delaySeconds(tc.in); got != tc.want {
				t.Fatalf("delaySeconds(%s) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}
