// Package kumoconformance_test compares infra/awsemu with kumo, an
// independent emulator of SQS and Scheduler. It is a package of its own
// so that awsemu's tests, and go vet of awsemu, do not compile kumo (~95
// packages, most of the package's test build).
package kumoconformance_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	schedtypes "github.com/aws/aws-sdk-go-v2/service/scheduler/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/sivchari/kumo"

	"github.com/botix/public-api/infra/awsemu"
	"github.com/botix/public-api/internal/awsenv"
)

// The same calls, through the AWS SDK, against this package and against
// kumo (an independent emulator) must get the same answers: digests,
// attributes, receive counts, redrive, error codes, schedules. kumo is
// only a test dependency: it is what the local runtime used before this
// package, and a second opinion on SQS's and Scheduler's wire behaviour.
func TestConformsToAnIndependentEmulator(t *testing.T) {
	srv := awsemu.StartTestServer("us-east-1", "000000000000")
	t.Cleanup(srv.Close)
	ours, oursSched := clients(srv.URL)
	k := kumo.NewServer()
	t.Cleanup(k.Close)
	theirs, theirsSched := clients(k.URL)

	want := conformanceScenario(t, theirs, theirsSched)
	got := conformanceScenario(t, ours, oursSched)
	if len(got) != len(want) {
		t.Fatalf("transcripts differ in length:\nours:\n%s\nkumo:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	agree := 0
	for i := range want {
		if got[i] == want[i] {
			agree++
			continue
		}
		if gap := kumoGap(want[i], got[i]); gap != "" {
			t.Logf("step %d: kumo differs from SQS, ours does not (%s):\nours: %s\nkumo: %s", i, gap, got[i], want[i])
			continue
		}
		t.Errorf("step %d:\nours: %s\nkumo: %s", i, got[i], want[i])
	}
	t.Logf("%d of %d steps agree; the others are kumo's known gaps", agree, len(want))
}

// clients are SDK clients of an emulator at base, configured as the
// functions' are (checksum validation on).
func clients(base string) (*sqs.Client, *scheduler.Client) {
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""), HTTPClient: awsenv.OwnBodies(nil)}
	return sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = aws.String(base) }),
		scheduler.NewFromConfig(cfg, func(o *scheduler.Options) { o.BaseEndpoint = aws.String(base) })
}

var attributesDigest = regexp.MustCompile(`(md5 attributes|attrs-md5) ([0-9a-f]*)`)

// kumoGap names the way kumo departs from SQS that explains a difference,
// if one does and ours is what SQS answers.
func kumoGap(kumo, ours string) string {
	if d := attributesDigest.FindStringSubmatch(ours); d != nil && d[2] != "" &&
		attributesDigest.ReplaceAllString(kumo, "$1") == attributesDigest.ReplaceAllString(ours, "$1") {
		return "kumo sends no MD5OfMessageAttributes; TestMessageAttributesDigest checks ours against published digests"
	}
	if kumo == "repeated batch id: BatchEntryIdsNotDistinct" && ours == "repeated batch id: AWS.SimpleQueueService.BatchEntryIdsNotDistinct" {
		return "the SDK's SQS model gives this error the query code AWS.SimpleQueueService.BatchEntryIdsNotDistinct"
	}
	if strings.Contains(kumo, " count 1 ") && strings.Contains(ours, " count 3 ") &&
		attributesDigest.ReplaceAllString(strings.Replace(kumo, " count 1 ", " count 3 ", 1), "$1") == attributesDigest.ReplaceAllString(ours, "$1") {
		// SQS Developer Guide, "Setting-up dead-letter queue retention in Amazon SQS":
		// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/setting-up-dead-letter-queue-retention.html
		return "kumo resets a dead-lettered message's receive count; SQS moves the message itself, its enqueue timestamp unchanged"
	}
	if kumo == `grouped message on a standard queue: body tenant group ""` && ours == `grouped message on a standard queue: body tenant group "prj_1"` {
		return "kumo keeps a standard queue's MessageGroupId but does not return it; SQS returns it as the MessageGroupId system attribute"
	}
	return ""
}

var accountInARN = regexp.MustCompile(`:[0-9]{12}:`)

// conformanceScenario runs the calls and returns what was observed, one
// line per step, with the parts that differ by nature (ids, handles,
// hosts, times) left out.
func conformanceScenario(t *testing.T, c *sqs.Client, sc *scheduler.Client) []string {
	ctx := context.Background()
	var log []string
	note := func(format string, args ...any) {
		log = append(log, accountInARN.ReplaceAllString(fmt.Sprintf(format, args...), ":<account>:"))
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	tail := func(u *string) string { s := aws.ToString(u); return s[strings.LastIndexByte(s, '/')+1:] }

	dlq, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("conf-dlq")})
	must(err)
	arn, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: dlq.QueueUrl, AttributeNames: []types.QueueAttributeName{"QueueArn"}})
	must(err)
	dlqArn := arn.Attributes["QueueArn"]
	note("dlq arn %s", dlqArn)
	attrs := map[string]string{"VisibilityTimeout": "30", "RedrivePolicy": `{"deadLetterTargetArn":"` + dlqArn + `","maxReceiveCount":"2"}`}
	work, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("conf-work"), Attributes: attrs})
	must(err)
	again, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("conf-work"), Attributes: attrs})
	must(err)
	note("create twice: %s %s", tail(work.QueueUrl), tail(again.QueueUrl))

	sent, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: work.QueueUrl, MessageBody: aws.String(`{"delivery":"dlv_1","round":1} ✓`),
		MessageAttributes: map[string]types.MessageAttributeValue{
			"project_id": {DataType: aws.String("String"), StringValue: aws.String("prj_1")},
			"attempt":    {DataType: aws.String("Number"), StringValue: aws.String("3")},
			"blob":       {DataType: aws.String("Binary"), BinaryValue: []byte("\x00\xff")},
		}})
	must(err)
	note("send: md5 body %s, md5 attributes %s", aws.ToString(sent.MD5OfMessageBody), aws.ToString(sent.MD5OfMessageAttributes))

	recv := func(url *string) *types.Message {
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount"}, MessageAttributeNames: []string{"All"}})
		must(err)
		note("receive: %d messages", len(out.Messages))
		if len(out.Messages) == 0 {
			return nil
		}
		m := out.Messages[0]
		note("  body %s md5 %s attrs-md5 %s count %s project %s attempt %s blob %x", aws.ToString(m.Body), aws.ToString(m.MD5OfBody), aws.ToString(m.MD5OfMessageAttributes),
			m.Attributes["ApproximateReceiveCount"], aws.ToString(m.MessageAttributes["project_id"].StringValue), aws.ToString(m.MessageAttributes["attempt"].StringValue), m.MessageAttributes["blob"].BinaryValue)
		return &m
	}
	depth := func(url *string) {
		out, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: url, AttributeNames: []types.QueueAttributeName{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"}})
		must(err)
		note("depth %s visible, %s in flight", out.Attributes["ApproximateNumberOfMessages"], out.Attributes["ApproximateNumberOfMessagesNotVisible"])
	}
	m := recv(work.QueueUrl)
	recv(work.QueueUrl)
	depth(work.QueueUrl)
	for m != nil {
		_, err := c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: work.QueueUrl, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0})
		must(err)
		m = recv(work.QueueUrl) // the third receive moves it to the dead-letter queue
	}
	depth(work.QueueUrl)
	if d := recv(dlq.QueueUrl); d != nil {
		_, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: dlq.QueueUrl, ReceiptHandle: d.ReceiptHandle})
		must(err)
	}
	depth(dlq.QueueUrl)

	// A standard queue takes a MessageGroupId (fair queues). Their
	// ordering is not compared: kumo has none (TestFairQueuesServeQuietGroupsFirst).
	fair, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("conf-fair")})
	must(err)
	_, err = c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: fair.QueueUrl, MessageBody: aws.String("tenant"), MessageGroupId: aws.String("prj_1")})
	must(err)
	grouped, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: fair.QueueUrl, MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"MessageGroupId"}})
	must(err)
	for _, m := range grouped.Messages {
		note("grouped message on a standard queue: body %s group %q", aws.ToString(m.Body), m.Attributes["MessageGroupId"])
	}

	errCode := func(what string, err error) {
		var ae smithy.APIError
		if errors.As(err, &ae) {
			note("%s: %s", what, ae.ErrorCode())
		} else {
			note("%s: no API error but %v", what, err)
		}
	}
	_, err = c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("conf-missing")})
	errCode("missing queue", err)
	_, err = c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: work.QueueUrl, Entries: []types.SendMessageBatchRequestEntry{
		{Id: aws.String("a"), MessageBody: aws.String("1")}, {Id: aws.String("a"), MessageBody: aws.String("2")}}})
	errCode("repeated batch id", err)
	_, err = c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: work.QueueUrl})
	errCode("empty batch", err)

	_, err = sc.CreateScheduleGroup(ctx, &scheduler.CreateScheduleGroupInput{Name: aws.String("conf-group")})
	must(err)
	_, err = sc.CreateScheduleGroup(ctx, &scheduler.CreateScheduleGroupInput{Name: aws.String("conf-group")})
	errCode("group twice", err)
	in := &scheduler.CreateScheduleInput{
		Name: aws.String("dlv_1-r1-a2"), GroupName: aws.String("conf-group"), ScheduleExpression: aws.String("at(2099-01-02T03:04:05)"), ScheduleExpressionTimezone: aws.String("UTC"),
		FlexibleTimeWindow: &schedtypes.FlexibleTimeWindow{Mode: schedtypes.FlexibleTimeWindowModeOff}, ActionAfterCompletion: schedtypes.ActionAfterCompletionDelete,
		Target: &schedtypes.Target{Arn: aws.String(dlqArn), RoleArn: aws.String("arn:aws:iam::000000000000:role/scheduler"), Input: aws.String(`{"delivery":"dlv_1"}`)},
	}
	created, err := sc.CreateSchedule(ctx, in)
	must(err)
	note("schedule arn %s", aws.ToString(created.ScheduleArn))
	_, err = sc.CreateSchedule(ctx, in)
	errCode("schedule twice", err)
	s, err := sc.GetSchedule(ctx, &scheduler.GetScheduleInput{Name: in.Name, GroupName: in.GroupName})
	must(err)
	note("get: %s %s %s %s %s %s %s %s", aws.ToString(s.Name), aws.ToString(s.GroupName), aws.ToString(s.ScheduleExpression), aws.ToString(s.ScheduleExpressionTimezone),
		s.State, s.ActionAfterCompletion, aws.ToString(s.Target.Arn), aws.ToString(s.Target.Input))
	list, err := sc.ListSchedules(ctx, &scheduler.ListSchedulesInput{GroupName: in.GroupName})
	must(err)
	for _, e := range list.Schedules {
		note("listed %s in %s, %s, target %s", aws.ToString(e.Name), aws.ToString(e.GroupName), e.State, aws.ToString(e.Target.Arn))
	}
	_, err = sc.GetSchedule(ctx, &scheduler.GetScheduleInput{Name: aws.String("nope"), GroupName: in.GroupName})
	errCode("missing schedule", err)
	_, err = sc.DeleteSchedule(ctx, &scheduler.DeleteScheduleInput{Name: in.Name, GroupName: in.GroupName})
	must(err)
	list, err = sc.ListSchedules(ctx, &scheduler.ListSchedulesInput{GroupName: in.GroupName})
	must(err)
	note("after delete: %d schedules", len(list.Schedules))
	return log
}
