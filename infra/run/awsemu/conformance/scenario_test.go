// Package conformance_test runs one scenario of SQS and EventBridge
// Scheduler calls, through the AWS SDK as the functions make them, against
// infra/run/awsemu and against moto's server (an independent emulator), and
// compares the transcripts step by step. Where they differ, AWS's
// documentation decides: a difference where moto departs from AWS is
// named as its known gap, with the page that says so; any other
// difference fails the test.
//
// kumo (github.com/sivchari/kumo), the emulator this scenario was first
// compared with, was dropped when the scenario ran against both: each of
// its 15 differences from ours was a departure from AWS's documentation,
// none a step where kumo was right and moto would have missed it.
package conformance_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	schedtypes "github.com/aws/aws-sdk-go-v2/service/scheduler/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/botix/public-api/internal/awsenv"
)

// A gap is a known way moto departs from AWS where ours does not: the
// step's line in each transcript, what it is, and the AWS documentation
// that decides it.
type gap struct {
	theirs, ours string
	what, cite   string
}

// compare checks ours against another emulator's transcript of the same
// scenario, step by step: a step agrees, or differs in a way one of the
// known gaps explains (theirs departs from AWS, ours does not), or fails
// the test. A known gap that no step shows fails it too: the other
// emulator was fixed, or ours now answers as it does, against AWS's
// documentation.
func compare(t *testing.T, name string, ours, theirs []string, known []gap) {
	t.Helper()
	if len(ours) != len(theirs) {
		t.Fatalf("transcripts differ in length:\nours:\n%s\n%s:\n%s", strings.Join(ours, "\n"), name, strings.Join(theirs, "\n"))
	}
	seen := make([]bool, len(known))
	agree := 0
steps:
	for i := range theirs {
		if ours[i] == theirs[i] {
			agree++
			continue
		}
		for k, g := range known {
			if g.theirs == theirs[i] && g.ours == ours[i] {
				seen[k] = true
				t.Logf("step %d: %s departs from AWS, ours does not: %s [%s]\nours: %s\n%s: %s", i, name, g.what, g.cite, ours[i], name, theirs[i])
				continue steps
			}
		}
		t.Errorf("step %d:\nours: %s\n%s: %s", i, ours[i], name, theirs[i])
	}
	for k, g := range known {
		if !seen[k] {
			t.Errorf("%s's known gap is not seen: %s [%s]", name, g.what, g.cite)
		}
	}
	t.Logf("%d of %d steps agree with %s; the other %d are its known gaps", agree, len(theirs), name, len(theirs)-agree)
}

// clients are SDK clients of an emulator at base, configured as the
// functions' are (checksum validation on) but for retries: one attempt,
// so that a step notes the emulator's answer, not a retry's.
func clients(base string) (*sqs.Client, *scheduler.Client) {
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""), HTTPClient: awsenv.OwnBodies(nil), RetryMaxAttempts: 1}
	return sqs.NewFromConfig(cfg, func(o *sqs.Options) { o.BaseEndpoint = aws.String(base) }),
		scheduler.NewFromConfig(cfg, func(o *scheduler.Options) { o.BaseEndpoint = aws.String(base) })
}

var accountInARN = regexp.MustCompile(`:[0-9]{12}:`)

// run is one emulator's run of the scenario: its clients and what was
// observed so far, one line per step, with the parts that differ by
// nature (ids, handles, hosts, accounts, times) left out.
type run struct {
	t     *testing.T
	ctx   context.Context
	sqs   *sqs.Client
	sched *scheduler.Client
	log   []string
}

// scenario runs the calls against the emulator at base and returns the
// transcript. The steps are the calls the system makes (internal/awsqueue,
// the local runtime's Lambda poller, the runbook). Message move tasks,
// which moto does not serve (a known gap), are checked by awsemu's own
// tests and infra/run/local's runbook test.
func scenario(t *testing.T, base string) []string {
	c, sc := clients(base)
	r := &run{t: t, ctx: context.Background(), sqs: c, sched: sc}
	dlqURL, dlqArn := r.redrive()
	r.fairQueue()
	r.batches()
	r.sqsErrors()
	r.schedules(dlqURL, dlqArn)
	return r.log
}

func (r *run) note(format string, args ...any) {
	r.log = append(r.log, accountInARN.ReplaceAllString(fmt.Sprintf(format, args...), ":<account>:"))
}

func (r *run) must(err error) {
	r.t.Helper()
	if err != nil {
		r.t.Fatal(err)
	}
}

// errCode notes the API error code of err (what the SDK's errors.As
// reports, as the functions see it), or the HTTP status of an answer that
// is no API error.
func (r *run) errCode(what string, err error) {
	var ae smithy.APIError
	var re *awshttp.ResponseError
	switch {
	case errors.As(err, &ae):
		r.note("%s: %s", what, ae.ErrorCode())
	case errors.As(err, &re):
		r.note("%s: no API error but HTTP %d", what, re.HTTPStatusCode())
	default:
		r.note("%s: no API error but %v", what, err)
	}
}

func (r *run) createQueue(name string, attrs map[string]string) *string {
	out, err := r.sqs.CreateQueue(r.ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	r.must(err)
	return out.QueueUrl
}

// receive notes what one ReceiveMessage returns, the first message in
// full, and returns that one.
func (r *run) receive(url *string) *types.Message {
	out, err := r.sqs.ReceiveMessage(r.ctx, &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount"}, MessageAttributeNames: []string{"All"}})
	r.must(err)
	r.note("receive: %d messages", len(out.Messages))
	if len(out.Messages) == 0 {
		return nil
	}
	m := out.Messages[0]
	r.note("  body %s md5 %s attrs-md5 %s count %s project %s attempt %s blob %x", aws.ToString(m.Body), aws.ToString(m.MD5OfBody), aws.ToString(m.MD5OfMessageAttributes),
		m.Attributes["ApproximateReceiveCount"], aws.ToString(m.MessageAttributes["project_id"].StringValue), aws.ToString(m.MessageAttributes["attempt"].StringValue), m.MessageAttributes["blob"].BinaryValue)
	return &m
}

// depth notes a queue's approximate counts.
func (r *run) depth(url *string) {
	out, err := r.sqs.GetQueueAttributes(r.ctx, &sqs.GetQueueAttributesInput{QueueUrl: url, AttributeNames: []types.QueueAttributeName{
		"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"}})
	r.must(err)
	r.note("depth %s visible, %s in flight, %s delayed", out.Attributes["ApproximateNumberOfMessages"], out.Attributes["ApproximateNumberOfMessagesNotVisible"], out.Attributes["ApproximateNumberOfMessagesDelayed"])
}

// redrive: a queue with a redrive policy, a message with attributes of
// each type received past maxReceiveCount into the dead-letter queue.
// It returns the dead-letter queue's URL and ARN.
func (r *run) redrive() (*string, string) {
	dlq := r.createQueue("conf-dlq", nil)
	arn, err := r.sqs.GetQueueAttributes(r.ctx, &sqs.GetQueueAttributesInput{QueueUrl: dlq, AttributeNames: []types.QueueAttributeName{"QueueArn"}})
	r.must(err)
	dlqArn := arn.Attributes["QueueArn"]
	r.note("dlq arn %s", dlqArn)
	tail := func(u *string) string { s := aws.ToString(u); return s[strings.LastIndexByte(s, '/')+1:] }
	attrs := map[string]string{"VisibilityTimeout": "30", "RedrivePolicy": `{"deadLetterTargetArn":"` + dlqArn + `","maxReceiveCount":"2"}`}
	work := r.createQueue("conf-work", attrs)
	again := r.createQueue("conf-work", attrs)
	r.note("create twice: %s %s", tail(work), tail(again))

	sent, err := r.sqs.SendMessage(r.ctx, &sqs.SendMessageInput{QueueUrl: work, MessageBody: aws.String(`{"delivery":"dlv_1","round":1} ✓`),
		MessageAttributes: map[string]types.MessageAttributeValue{
			"project_id": {DataType: aws.String("String"), StringValue: aws.String("prj_1")},
			"attempt":    {DataType: aws.String("Number"), StringValue: aws.String("3")},
			"blob":       {DataType: aws.String("Binary"), BinaryValue: []byte("\x00\xff")},
		}})
	r.must(err)
	r.note("send: md5 body %s, md5 attributes %s", aws.ToString(sent.MD5OfMessageBody), aws.ToString(sent.MD5OfMessageAttributes))

	m := r.receive(work)
	r.receive(work)
	r.depth(work)
	for m != nil {
		_, err := r.sqs.ChangeMessageVisibility(r.ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: work, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0})
		r.must(err)
		m = r.receive(work) // the third receive moves it to the dead-letter queue
	}
	r.depth(work)
	// Its receive count goes on in the dead-letter queue (3): SQS moves the
	// message itself, its enqueue timestamp unchanged (SQS Developer Guide,
	// "Setting-up dead-letter queue retention in Amazon SQS"). Ours reset it
	// until moto's answer here showed the difference.
	if d := r.receive(dlq); d != nil {
		_, err := r.sqs.DeleteMessage(r.ctx, &sqs.DeleteMessageInput{QueueUrl: dlq, ReceiptHandle: d.ReceiptHandle})
		r.must(err)
	}
	r.depth(dlq)

	// The runbook's redrive (infra/run/local's runbook test): a move task out
	// of the dead-letter queue, listed.
	task, err := r.sqs.StartMessageMoveTask(r.ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqArn)})
	if err != nil {
		r.errCode("start move task", err)
	} else {
		r.note("start move task: handle given %t", aws.ToString(task.TaskHandle) != "")
	}
	tasks, err := r.sqs.ListMessageMoveTasks(r.ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(dlqArn)})
	if err != nil {
		r.errCode("list move tasks", err)
	} else {
		r.note("list move tasks: %d", len(tasks.Results))
	}
	return dlq, dlqArn
}

// fairQueue: a standard queue takes a MessageGroupId (fair queues) and
// returns it. Their ordering is not compared: moto has none
// (TestFairQueuesServeQuietGroupsFirst checks ours).
func (r *run) fairQueue() {
	fair := r.createQueue("conf-fair", nil)
	_, err := r.sqs.SendMessage(r.ctx, &sqs.SendMessageInput{QueueUrl: fair, MessageBody: aws.String("tenant"), MessageGroupId: aws.String("prj_1")})
	r.must(err)
	grouped, err := r.sqs.ReceiveMessage(r.ctx, &sqs.ReceiveMessageInput{QueueUrl: fair, MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"MessageGroupId"}})
	r.must(err)
	for _, m := range grouped.Messages {
		r.note("grouped message on a standard queue: body %s group %q", aws.ToString(m.Body), m.Attributes["MessageGroupId"])
	}
}

// batches: what the delivery queue's producers and Lambda's poller do —
// SendMessageBatch with groups and a delay (awsqueue.Defer), a long-poll
// receive with its own visibility timeout, ChangeMessageVisibilityBatch
// and DeleteMessageBatch, each with an entry that fails.
func (r *run) batches() {
	q := r.createQueue("conf-batch", nil)
	sent, err := r.sqs.SendMessageBatch(r.ctx, &sqs.SendMessageBatchInput{QueueUrl: q, Entries: []types.SendMessageBatchRequestEntry{
		{Id: aws.String("now-1"), MessageBody: aws.String("first"), MessageGroupId: aws.String("prj_1")},
		{Id: aws.String("now-2"), MessageBody: aws.String("second"), MessageGroupId: aws.String("prj_2"),
			MessageAttributes: map[string]types.MessageAttributeValue{"event_type": {DataType: aws.String("String"), StringValue: aws.String("contact.created")}}},
		{Id: aws.String("later"), MessageBody: aws.String("deferred"), MessageGroupId: aws.String("prj_1"), DelaySeconds: 900},
	}})
	r.must(err)
	noteBatch(r, "send batch", sent.Successful, func(e types.SendMessageBatchResultEntry) string {
		return fmt.Sprintf("%s md5 %s attrs-md5 %s", aws.ToString(e.Id), aws.ToString(e.MD5OfMessageBody), aws.ToString(e.MD5OfMessageAttributes))
	}, sent.Failed)
	r.depth(q)

	got, err := r.sqs.ReceiveMessage(r.ctx, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 60,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"MessageGroupId", "ApproximateReceiveCount"}})
	r.must(err)
	slices.SortFunc(got.Messages, func(a, b types.Message) int { return strings.Compare(aws.ToString(a.Body), aws.ToString(b.Body)) })
	var seen []string
	for _, m := range got.Messages {
		seen = append(seen, fmt.Sprintf("%s (group %s, count %s)", aws.ToString(m.Body), m.Attributes["MessageGroupId"], m.Attributes["ApproximateReceiveCount"]))
	}
	r.note("long-poll receive: %s", strings.Join(seen, ", "))
	if len(got.Messages) != 2 {
		r.t.Fatalf("long-poll receive got %d messages, the scenario needs the two visible ones", len(got.Messages))
	}
	back, err := r.sqs.ChangeMessageVisibilityBatch(r.ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: q, Entries: []types.ChangeMessageVisibilityBatchRequestEntry{
		{Id: aws.String("back"), ReceiptHandle: got.Messages[0].ReceiptHandle, VisibilityTimeout: 0},
		{Id: aws.String("forged"), ReceiptHandle: aws.String("not-a-receipt-handle"), VisibilityTimeout: 0},
	}})
	r.must(err)
	noteBatch(r, "change visibility batch", back.Successful, func(e types.ChangeMessageVisibilityBatchResultEntry) string { return aws.ToString(e.Id) }, back.Failed)
	r.depth(q)
	del, err := r.sqs.DeleteMessageBatch(r.ctx, &sqs.DeleteMessageBatchInput{QueueUrl: q, Entries: []types.DeleteMessageBatchRequestEntry{
		{Id: aws.String("done"), ReceiptHandle: got.Messages[1].ReceiptHandle},
		{Id: aws.String("forged"), ReceiptHandle: aws.String("not-a-receipt-handle")},
	}})
	r.must(err)
	noteBatch(r, "delete batch", del.Successful, func(e types.DeleteMessageBatchResultEntry) string { return aws.ToString(e.Id) }, del.Failed)
	r.depth(q)
}

// noteBatch notes a batch answer: its successful entries, by id, and its
// failed ones with their code and fault.
func noteBatch[E any](r *run, what string, ok []E, show func(E) string, failed []types.BatchResultErrorEntry) {
	var oks, fails []string
	for _, e := range ok {
		oks = append(oks, show(e))
	}
	for _, f := range failed {
		fails = append(fails, fmt.Sprintf("%s %s sender-fault %t", aws.ToString(f.Id), aws.ToString(f.Code), f.SenderFault))
	}
	slices.Sort(oks)
	slices.Sort(fails)
	r.note("%s: ok [%s] failed [%s]", what, strings.Join(oks, "; "), strings.Join(fails, "; "))
}

// sqsErrors: the error codes the system's callers see.
func (r *run) sqsErrors() {
	q := r.createQueue("conf-errors", nil)
	found, err := r.sqs.GetQueueUrl(r.ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("conf-errors")})
	r.must(err)
	r.note("queue url found: %t", aws.ToString(found.QueueUrl) == aws.ToString(q))
	_, err = r.sqs.GetQueueUrl(r.ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("conf-missing")})
	r.errCode("missing queue", err)
	_, err = r.sqs.SendMessageBatch(r.ctx, &sqs.SendMessageBatchInput{QueueUrl: q, Entries: []types.SendMessageBatchRequestEntry{
		{Id: aws.String("a"), MessageBody: aws.String("1")}, {Id: aws.String("a"), MessageBody: aws.String("2")}}})
	r.errCode("repeated batch id", err)
	// Empty but not nil: the SDK refuses a batch without Entries itself.
	_, err = r.sqs.SendMessageBatch(r.ctx, &sqs.SendMessageBatchInput{QueueUrl: q, Entries: []types.SendMessageBatchRequestEntry{}})
	r.errCode("empty batch", err)
	eleven := make([]types.SendMessageBatchRequestEntry, 11)
	for i := range eleven {
		eleven[i] = types.SendMessageBatchRequestEntry{Id: aws.String(fmt.Sprint(i)), MessageBody: aws.String("x")}
	}
	_, err = r.sqs.SendMessageBatch(r.ctx, &sqs.SendMessageBatchInput{QueueUrl: q, Entries: eleven})
	r.errCode("eleven batch entries", err)
	_, err = r.sqs.DeleteMessage(r.ctx, &sqs.DeleteMessageInput{QueueUrl: q, ReceiptHandle: aws.String("not-a-receipt-handle")})
	r.errCode("forged receipt handle", err)
	_, err = r.sqs.ReceiveMessage(r.ctx, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 11})
	r.errCode("receive eleven", err)
	_, err = r.sqs.DeleteQueue(r.ctx, &sqs.DeleteQueueInput{QueueUrl: q})
	r.must(err)
	_, err = r.sqs.SendMessage(r.ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("late")})
	r.errCode("send to a deleted queue", err)
}

// schedules: a retry as awsqueue.Scheduler creates it (an at() schedule
// in a group, the universal sqs:sendMessage target, deleted after it
// fires), one with a flexible window and the queue's own ARN as target,
// and the errors a retry meets.
func (r *run) schedules(queueURL *string, queueArn string) {
	sc := r.sched
	_, err := sc.CreateScheduleGroup(r.ctx, &scheduler.CreateScheduleGroupInput{Name: aws.String("conf-group")})
	r.must(err)
	_, err = sc.CreateScheduleGroup(r.ctx, &scheduler.CreateScheduleGroupInput{Name: aws.String("conf-group")})
	r.errCode("group twice", err)
	input := fmt.Sprintf(`{"QueueUrl":%q,"MessageBody":"{\"delivery\":\"dlv_1\"}","MessageGroupId":"prj_1"}`, aws.ToString(queueURL))
	retry := &scheduler.CreateScheduleInput{
		Name: aws.String("dlv_1-r1-a2"), GroupName: aws.String("conf-group"), ScheduleExpression: aws.String("at(2099-01-02T03:04:05)"), ScheduleExpressionTimezone: aws.String("UTC"),
		FlexibleTimeWindow: &schedtypes.FlexibleTimeWindow{Mode: schedtypes.FlexibleTimeWindowModeOff}, ActionAfterCompletion: schedtypes.ActionAfterCompletionDelete,
		Target: &schedtypes.Target{Arn: aws.String("arn:aws:scheduler:::aws-sdk:sqs:sendMessage"), RoleArn: aws.String("arn:aws:iam::000000000000:role/scheduler"), Input: aws.String(input)},
	}
	created, err := sc.CreateSchedule(r.ctx, retry)
	r.must(err)
	r.note("schedule arn %s", aws.ToString(created.ScheduleArn))
	_, err = sc.CreateSchedule(r.ctx, retry)
	r.errCode("schedule twice", err)
	// Its time zone and action after completion are given: what GetSchedule
	// answers for an omitted one is not documented (the CreateSchedule and
	// GetSchedule pages of the EventBridge Scheduler API Reference give no
	// default; moto answers "UTC" for the zone where ours answers nothing,
	// and no action where ours answers NONE), and the system gives both
	// (awsqueue.Scheduler).
	flexible := &scheduler.CreateScheduleInput{
		Name: aws.String("dlv_2-r1-a2"), GroupName: aws.String("conf-group"), ScheduleExpression: aws.String("at(2099-01-02T03:04:05)"),
		ScheduleExpressionTimezone: aws.String("Europe/Paris"), ActionAfterCompletion: schedtypes.ActionAfterCompletionNone,
		FlexibleTimeWindow: &schedtypes.FlexibleTimeWindow{Mode: schedtypes.FlexibleTimeWindowModeFlexible, MaximumWindowInMinutes: aws.Int32(15)},
		Target:             &schedtypes.Target{Arn: aws.String(queueArn), RoleArn: aws.String("arn:aws:iam::000000000000:role/scheduler"), Input: aws.String(`{"delivery":"dlv_2"}`)},
	}
	_, err = sc.CreateSchedule(r.ctx, flexible)
	r.must(err)
	for _, in := range []*scheduler.CreateScheduleInput{retry, flexible} {
		s, err := sc.GetSchedule(r.ctx, &scheduler.GetScheduleInput{Name: in.Name, GroupName: in.GroupName})
		r.must(err)
		r.note("get: %s %s %s %q %s %s window %s %d target %s input as sent %t", aws.ToString(s.Name), aws.ToString(s.GroupName), aws.ToString(s.ScheduleExpression), aws.ToString(s.ScheduleExpressionTimezone),
			s.State, s.ActionAfterCompletion, s.FlexibleTimeWindow.Mode, aws.ToInt32(s.FlexibleTimeWindow.MaximumWindowInMinutes), aws.ToString(s.Target.Arn), aws.ToString(s.Target.Input) == aws.ToString(in.Target.Input))
	}
	list, err := sc.ListSchedules(r.ctx, &scheduler.ListSchedulesInput{GroupName: retry.GroupName})
	r.must(err)
	// In name order: the ListSchedules page of the API Reference promises
	// none, and the emulators differ.
	slices.SortFunc(list.Schedules, func(a, b schedtypes.ScheduleSummary) int {
		return strings.Compare(aws.ToString(a.Name), aws.ToString(b.Name))
	})
	for _, e := range list.Schedules {
		r.note("listed %s in %s, %s, target %s", aws.ToString(e.Name), aws.ToString(e.GroupName), e.State, aws.ToString(e.Target.Arn))
	}
	_, err = sc.GetSchedule(r.ctx, &scheduler.GetScheduleInput{Name: aws.String("nope"), GroupName: retry.GroupName})
	r.errCode("missing schedule", err)
	missingGroup := *retry
	missingGroup.GroupName = aws.String("conf-no-such-group")
	_, err = sc.CreateSchedule(r.ctx, &missingGroup)
	r.errCode("schedule in a missing group", err)
	for _, in := range []*scheduler.CreateScheduleInput{retry, flexible} {
		_, err = sc.DeleteSchedule(r.ctx, &scheduler.DeleteScheduleInput{Name: in.Name, GroupName: in.GroupName})
		r.must(err)
	}
	_, err = sc.DeleteSchedule(r.ctx, &scheduler.DeleteScheduleInput{Name: retry.Name, GroupName: retry.GroupName})
	r.errCode("delete a deleted schedule", err)
	list, err = sc.ListSchedules(r.ctx, &scheduler.ListSchedulesInput{GroupName: retry.GroupName})
	r.must(err)
	r.note("after delete: %d schedules", len(list.Schedules))
}
