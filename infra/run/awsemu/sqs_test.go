package awsemu_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/botix/public-api/infra/run/awsemu"
	"github.com/botix/public-api/internal/awsenv"
)

const (
	region  = "us-east-1"
	account = "000000000000"
)

// emulator starts both services behind one test server and returns SDK
// clients of it, configured as the functions' are (checksum validation on).
func emulator(t *testing.T) (*sqs.Client, *scheduler.Client, *awsemu.SQS) {
	t.Helper()
	srv := awsemu.StartTestServer(region, account)
	t.Cleanup(srv.Close)
	sqsc, schedc := clients(srv.URL)
	return sqsc, schedc, srv.SQS
}

func clients(base string) (*sqs.Client, *scheduler.Client) {
	cfg := aws.Config{Region: region, Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""), HTTPClient: awsenv.OwnBodies(nil)}
	return sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = aws.String(base) }),
		scheduler.NewFromConfig(cfg, func(o *scheduler.Options) { o.BaseEndpoint = aws.String(base) })
}

func createQueue(t *testing.T, c *sqs.Client, name string, attrs map[string]string) string {
	t.Helper()
	out, err := c.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.QueueUrl)
}

func receive(t *testing.T, c *sqs.Client, url string, max int32, visibility int32) []types.Message {
	t.Helper()
	out, err := c.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{
		QueueUrl: aws.String(url), MaxNumberOfMessages: max, VisibilityTimeout: visibility, WaitTimeSeconds: 0,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}, MessageAttributeNames: []string{"All"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Messages
}

func send(t *testing.T, c *sqs.Client, url, body string) {
	t.Helper()
	if _, err := c.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body)}); err != nil {
		t.Fatal(err)
	}
}

func code(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func TestMessageLifecycle(t *testing.T) {
	c, _, _ := emulator(t)
	ctx := context.Background()
	url := createQueue(t, c, "jobs", map[string]string{"VisibilityTimeout": "30"})
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/"+account+"/jobs") {
		t.Fatalf("queue URL %s does not point at the emulator", url)
	}
	attrs := map[string]types.MessageAttributeValue{
		"project_id": {DataType: aws.String("String"), StringValue: aws.String("prj_1")},
		"n":          {DataType: aws.String("Number"), StringValue: aws.String("7")},
		"raw":        {DataType: aws.String("Binary"), BinaryValue: []byte{0, 1, 2}},
	}
	sent, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(`{"id":1} ünïcode`), MessageAttributes: attrs})
	if err != nil {
		t.Fatal(err) // the SDK checks MD5OfMessageBody
	}

	got := receive(t, c, url, 10, 30)
	if len(got) != 1 || aws.ToString(got[0].Body) != `{"id":1} ünïcode` || aws.ToString(got[0].MessageId) != aws.ToString(sent.MessageId) {
		t.Fatalf("received %+v", got)
	}
	m := got[0]
	if aws.ToString(m.MD5OfMessageAttributes) != aws.ToString(sent.MD5OfMessageAttributes) || aws.ToString(m.MessageAttributes["raw"].DataType) != "Binary" ||
		string(m.MessageAttributes["raw"].BinaryValue) != "\x00\x01\x02" || aws.ToString(m.MessageAttributes["n"].StringValue) != "7" {
		t.Errorf("attributes came back as %+v (md5 %s, sent %s)", m.MessageAttributes, aws.ToString(m.MD5OfMessageAttributes), aws.ToString(sent.MD5OfMessageAttributes))
	}
	if m.Attributes["ApproximateReceiveCount"] != "1" || m.Attributes["SentTimestamp"] == "" {
		t.Errorf("system attributes %v", m.Attributes)
	}
	if again := receive(t, c, url, 10, 30); len(again) != 0 {
		t.Fatalf("an in-flight message was received again: %+v", again)
	}
	depth(t, c, url, "0", "1")

	// Visibility 0 returns it at once, with a new receipt handle; the old
	// handle no longer deletes it (SQS: "the request succeeds, but the
	// message will not be deleted").
	if _, err := c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0}); err != nil {
		t.Fatal(err)
	}
	second := receive(t, c, url, 1, 30)
	if len(second) != 1 || second[0].Attributes["ApproximateReceiveCount"] != "2" || aws.ToString(second[0].ReceiptHandle) == aws.ToString(m.ReceiptHandle) {
		t.Fatalf("second receive %+v", second)
	}
	if _, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle}); err != nil {
		t.Fatalf("a stale handle must be accepted: %v", err)
	}
	depth(t, c, url, "0", "1")
	for range 2 { // deleting twice succeeds
		if _, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: second[0].ReceiptHandle}); err != nil {
			t.Fatal(err)
		}
	}
	depth(t, c, url, "0", "0")
	_, err = c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url), ReceiptHandle: second[0].ReceiptHandle, VisibilityTimeout: 0})
	if code(err) != "InvalidParameterValue" {
		t.Errorf("changing a deleted message's visibility: %v", err)
	}
}

func depth(t *testing.T, c *sqs.Client, url, visible, inFlight string) {
	t.Helper()
	out, err := c.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: []types.QueueAttributeName{"All"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Attributes["ApproximateNumberOfMessages"] != visible || out.Attributes["ApproximateNumberOfMessagesNotVisible"] != inFlight {
		t.Fatalf("visible %s, in flight %s; want %s, %s", out.Attributes["ApproximateNumberOfMessages"], out.Attributes["ApproximateNumberOfMessagesNotVisible"], visible, inFlight)
	}
}

// A message received more than maxReceiveCount times goes to the
// dead-letter queue on the next receive, and a move task without a
// destination sends it back to the queue it died in.
func TestRedrivePolicyAndMoveTask(t *testing.T) {
	c, _, _ := emulator(t)
	ctx := context.Background()
	dlq := createQueue(t, c, "dead", nil)
	dlqArn := "arn:aws:sqs:" + region + ":" + account + ":dead"
	src := createQueue(t, c, "work", map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + dlqArn + `","maxReceiveCount":"2"}`})
	send(t, c, src, "poison")
	for i := 1; i <= 2; i++ {
		got := receive(t, c, src, 1, 30)
		if len(got) != 1 || got[0].Attributes["ApproximateReceiveCount"] != strconv.Itoa(i) {
			t.Fatalf("receive %d: %+v", i, got)
		}
		// Back at once, as after a consumer's crash and its visibility timeout.
		if _, err := c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(src), ReceiptHandle: got[0].ReceiptHandle, VisibilityTimeout: 0}); err != nil {
			t.Fatal(err)
		}
	}
	if got := receive(t, c, src, 1, 30); len(got) != 0 {
		t.Fatalf("a third receive must move the message instead of returning it: %+v", got)
	}
	depth(t, c, dlq, "1", "0")
	sources, err := c.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlq)})
	if err != nil || len(sources.QueueUrls) != 1 || sources.QueueUrls[0] != src {
		t.Fatalf("dead-letter sources %v, %v", sources, err)
	}

	if _, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String("arn:aws:sqs:" + region + ":" + account + ":work")}); code(err) != "InvalidParameterValue" {
		t.Errorf("a queue that is nobody's dead-letter queue is no move source: %v", err)
	}
	task, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqArn)})
	if err != nil || aws.ToString(task.TaskHandle) == "" {
		t.Fatal(err)
	}
	waitTask(t, c, dlqArn, "COMPLETED", 1)
	got := receive(t, c, src, 1, 30)
	if len(got) != 1 || aws.ToString(got[0].Body) != "poison" || got[0].Attributes["ApproximateReceiveCount"] != "1" {
		t.Fatalf("after the move: %+v", got)
	}
	depth(t, c, dlq, "0", "0")
}

func waitTask(t *testing.T, c *sqs.Client, source, status string, moved int64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		out, err := c.ListMessageMoveTasks(context.Background(), &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(source)})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Results) > 0 && aws.ToString(out.Results[0].Status) == status && out.Results[0].ApproximateNumberOfMessagesMoved == moved {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %+v never reached %s with %d moved", out.Results, status, moved)
		}
	}
}

func TestMoveTaskToADestinationAndCancel(t *testing.T) {
	c, _, _ := emulator(t)
	ctx := context.Background()
	createQueue(t, c, "dead", nil)
	dlqArn := "arn:aws:sqs:" + region + ":" + account + ":dead"
	createQueue(t, c, "work", map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + dlqArn + `","maxReceiveCount":5}`})
	other := createQueue(t, c, "other", nil)
	dlq := createQueue(t, c, "dead", nil) // same attributes: the same queue
	for i := range 3 {
		send(t, c, dlq, "dead "+strconv.Itoa(i))
	}
	if _, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqArn), DestinationArn: aws.String("arn:aws:sqs:" + region + ":" + account + ":nope")}); code(err) != "ResourceNotFoundException" {
		t.Errorf("unknown destination: %v", err)
	}
	// One message per second: the task is still running when cancelled.
	task, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqArn), DestinationArn: aws.String("arn:aws:sqs:" + region + ":" + account + ":other"), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	held, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(dlq), AttributeNames: []types.QueueAttributeName{"All"}})
	if err != nil || held.Attributes["ApproximateNumberOfMessages"] != "0" || held.Attributes["ApproximateNumberOfMessagesDelayed"] != "0" {
		t.Errorf("while a task holds them, the messages are neither visible nor delayed: %v %v", held.Attributes, err)
	}
	if _, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqArn)}); code(err) != "AWS.SimpleQueueService.UnsupportedOperation" {
		t.Errorf("a second task on the same source: %v", err)
	}
	out, err := c.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: task.TaskHandle})
	if err != nil {
		t.Fatal(err)
	}
	waitTask(t, c, dlqArn, "CANCELLED", out.ApproximateNumberOfMessagesMoved)
	moved := len(receive(t, c, other, 10, 30))
	left := len(receive(t, c, dlq, 10, 30))
	if moved+left != 3 || int64(moved) != out.ApproximateNumberOfMessagesMoved {
		t.Fatalf("moved %d, left %d, task says %d: a cancelled task must give back what it did not move", moved, left, out.ApproximateNumberOfMessagesMoved)
	}
	if _, err := c.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: task.TaskHandle}); code(err) != "ResourceNotFoundException" {
		t.Errorf("cancelling a finished task: %v", err)
	}
}

func TestSQSRefusesWhatSQSRefuses(t *testing.T) {
	c, _, _ := emulator(t)
	ctx := context.Background()
	url := createQueue(t, c, "q", map[string]string{"VisibilityTimeout": "30"})
	entry := func(id, body string) types.SendMessageBatchRequestEntry {
		return types.SendMessageBatchRequestEntry{Id: aws.String(id), MessageBody: aws.String(body)}
	}
	many := make([]types.SendMessageBatchRequestEntry, 11)
	for i := range many {
		many[i] = entry(strconv.Itoa(i), "x")
	}
	// The SDK reports the codes SQS's query protocol used (its
	// x-amzn-query-error header), as against AWS.
	cases := []struct {
		name string
		call func() error
		want string
	}{
		{"unknown queue", func() error {
			_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url + "-nope"), MessageBody: aws.String("x")})
			return err
		}, "AWS.SimpleQueueService.NonExistentQueue"},
		{"same name, other attributes", func() error {
			_, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q"), Attributes: map[string]string{"VisibilityTimeout": "31"}})
			return err
		}, "QueueAlreadyExists"},
		{"FIFO queue", func() error {
			_, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("f.fifo"), Attributes: map[string]string{"FifoQueue": "true"}})
			return err
		}, "AWS.SimpleQueueService.UnsupportedOperation"},
		{"MessageGroupId longer than 128", func() error {
			_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("x"), MessageGroupId: aws.String(strings.Repeat("g", 129))})
			return err
		}, "InvalidParameterValue"},
		{"MessageGroupId with a space", func() error {
			_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("x"), MessageGroupId: aws.String("prj 1")})
			return err
		}, "InvalidParameterValue"},
		{"bad queue name", func() error {
			_, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("a b")})
			return err
		}, "InvalidParameterValue"},
		{"unknown attribute", func() error {
			_, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("x"), Attributes: map[string]string{"Colour": "red"}})
			return err
		}, "InvalidAttributeName"},
		{"visibility out of range", func() error {
			_, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("x"), Attributes: map[string]string{"VisibilityTimeout": "43201"}})
			return err
		}, "InvalidAttributeValue"},
		{"dead-letter target missing", func() error {
			_, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("x"), Attributes: map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:nope","maxReceiveCount":3}`}})
			return err
		}, "InvalidAttributeValue"},
		{"empty body", func() error {
			_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("")})
			return err
		}, "MissingParameter"},
		{"control character", func() error {
			_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("a\x00b")})
			return err
		}, "InvalidMessageContents"},
		{"too large", func() error {
			_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(strings.Repeat("x", awsemu.MaxMessageSize+1))})
			return err
		}, "InvalidParameterValue"},
		{"delay over 15 minutes", func() error {
			_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("x"), DelaySeconds: 901})
			return err
		}, "InvalidParameterValue"},
		{"eleven messages", func() error {
			_, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: many})
			return err
		}, "AWS.SimpleQueueService.TooManyEntriesInBatchRequest"},
		{"repeated entry id", func() error {
			_, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: []types.SendMessageBatchRequestEntry{entry("a", "x"), entry("a", "y")}})
			return err
		}, "AWS.SimpleQueueService.BatchEntryIdsNotDistinct"},
		{"bad entry id", func() error {
			_, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: []types.SendMessageBatchRequestEntry{entry("a.b", "x")}})
			return err
		}, "AWS.SimpleQueueService.InvalidBatchEntryId"},
		{"eleven to receive", func() error {
			_, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 11})
			return err
		}, "InvalidParameterValue"},
		{"a handle that is not one", func() error {
			_, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: aws.String("nonsense")})
			return err
		}, "ReceiptHandleIsInvalid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := code(tc.call()); got != tc.want {
				t.Errorf("error code %q, want %q", got, tc.want)
			}
		})
	}
	var missing *types.QueueDoesNotExist
	if _, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("nope")}); !errors.As(err, &missing) {
		t.Errorf("GetQueueUrl of a missing queue: %T %v, want *types.QueueDoesNotExist", err, err)
	}
}

// A batch answers per entry: the good ones are sent, the bad one fails.
func TestBatchesAnswerPerEntry(t *testing.T) {
	c, _, _ := emulator(t)
	ctx := context.Background()
	url := createQueue(t, c, "q", nil)
	out, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: []types.SendMessageBatchRequestEntry{
		{Id: aws.String("ok1"), MessageBody: aws.String("one")},
		{Id: aws.String("bad"), MessageBody: aws.String("\x01")},
		{Id: aws.String("ok2"), MessageBody: aws.String("two"), DelaySeconds: 600},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Successful) != 2 || len(out.Failed) != 1 || aws.ToString(out.Failed[0].Id) != "bad" || aws.ToString(out.Failed[0].Code) != "InvalidMessageContents" || !out.Failed[0].SenderFault {
		t.Fatalf("batch result %+v", out)
	}
	got := receive(t, c, url, 10, 30)
	if len(got) != 1 || aws.ToString(got[0].Body) != "one" {
		t.Fatalf("the delayed message must wait: %+v", got)
	}
	attrs, _ := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: []types.QueueAttributeName{"ApproximateNumberOfMessagesDelayed"}})
	if attrs.Attributes["ApproximateNumberOfMessagesDelayed"] != "1" {
		t.Errorf("delayed: %v", attrs.Attributes)
	}
	del, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: []types.DeleteMessageBatchRequestEntry{
		{Id: aws.String("a"), ReceiptHandle: got[0].ReceiptHandle}, {Id: aws.String("b"), ReceiptHandle: aws.String("junk")},
	}})
	if err != nil || len(del.Successful) != 1 || len(del.Failed) != 1 || aws.ToString(del.Failed[0].Code) != "ReceiptHandleIsInvalid" {
		t.Fatalf("delete batch %+v %v", del, err)
	}
}

// A long poll returns as soon as a message arrives, well before its wait
// ends (20 s here: the test would time out at 10 s otherwise).
func TestLongPollWakesOnSend(t *testing.T) {
	c, _, _ := emulator(t)
	url := createQueue(t, c, "q", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The send is waited for before the test ends: the receive can return
	// before the send's answer does, and a send still running when the
	// deferred cancel fires would fail after the test.
	sent := make(chan error, 1)
	go func() {
		time.Sleep(100 * time.Millisecond)
		_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("hello")})
		sent <- err
	}()
	out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 20})
	if err != nil || len(out.Messages) != 1 {
		t.Fatalf("%+v %v", out, err)
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
}

func TestListQueuesPages(t *testing.T) {
	c, _, _ := emulator(t)
	for _, n := range []string{"a-1", "a-2", "a-3", "b-1"} {
		createQueue(t, c, n, nil)
	}
	var names []string
	p := sqs.NewListQueuesPaginator(c, &sqs.ListQueuesInput{QueueNamePrefix: aws.String("a-"), MaxResults: aws.Int32(2)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range page.QueueUrls {
			names = append(names, u[strings.LastIndexByte(u, '/')+1:])
		}
	}
	if strings.Join(names, ",") != "a-1,a-2,a-3" {
		t.Fatalf("listed %v", names)
	}
}

// The redrive policy moves the message itself: received from the
// dead-letter queue it has its id, sent time and first receive, and its
// receive count goes on from the source queue's (moto agrees; see the
// conformance package).
func TestDeadLetteredMessageKeepsItsIdentityAndCount(t *testing.T) {
	c, _, _ := emulator(t)
	ctx := context.Background()
	dlq := createQueue(t, c, "dead", nil)
	src := createQueue(t, c, "work", map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:` + region + `:` + account + `:dead","maxReceiveCount":"2"}`})
	send(t, c, src, "poison")
	var first types.Message
	for i := 1; i <= 2; i++ {
		got := receive(t, c, src, 1, 30)
		if len(got) != 1 {
			t.Fatalf("receive %d: %+v", i, got)
		}
		if i == 1 {
			first = got[0]
		}
		if _, err := c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(src), ReceiptHandle: got[0].ReceiptHandle, VisibilityTimeout: 0}); err != nil {
			t.Fatal(err)
		}
	}
	if got := receive(t, c, src, 1, 30); len(got) != 0 {
		t.Fatalf("a third receive must move the message: %+v", got)
	}
	got := receive(t, c, dlq, 1, 30)
	if len(got) != 1 {
		t.Fatalf("dead-letter queue: %+v", got)
	}
	for _, attr := range []string{"SentTimestamp", "ApproximateFirstReceiveTimestamp"} {
		if got[0].Attributes[attr] != first.Attributes[attr] {
			t.Errorf("%s %s in the dead-letter queue, %s at the source", attr, got[0].Attributes[attr], first.Attributes[attr])
		}
	}
	if aws.ToString(got[0].MessageId) != aws.ToString(first.MessageId) || got[0].Attributes["ApproximateReceiveCount"] != "3" {
		t.Errorf("in the dead-letter queue: id %s (was %s), receive count %s, want 3", aws.ToString(got[0].MessageId), aws.ToString(first.MessageId), got[0].Attributes["ApproximateReceiveCount"])
	}
}
