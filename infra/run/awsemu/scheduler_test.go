package awsemu_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/scheduler/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

func at(t time.Time) *string { return aws.String("at(" + t.UTC().Format("2006-01-02T15:04:05") + ")") }

func schedule(name, group string, when time.Time, queueArn, input string, after types.ActionAfterCompletion) *scheduler.CreateScheduleInput {
	return &scheduler.CreateScheduleInput{
		Name: aws.String(name), GroupName: aws.String(group), ScheduleExpression: at(when), ScheduleExpressionTimezone: aws.String("UTC"),
		FlexibleTimeWindow: &types.FlexibleTimeWindow{Mode: types.FlexibleTimeWindowModeOff}, ActionAfterCompletion: after,
		Target: &types.Target{Arn: aws.String(queueArn), RoleArn: aws.String("arn:aws:iam::000000000000:role/scheduler"), Input: aws.String(input)},
	}
}

// One-shot schedules fire once, at their time on the Scheduler's clock,
// into their SQS target; DELETE removes them afterwards, NONE keeps them;
// disabled ones wait.
func TestSchedulesFireIntoTheirQueue(t *testing.T) {
	q, sc, clock := emulatorOn(t)
	ctx := context.Background()
	url := createQueue(t, q, "retries", nil)
	arn := "arn:aws:sqs:" + region + ":" + account + ":retries"
	if _, err := sc.CreateScheduleGroup(ctx, &scheduler.CreateScheduleGroupInput{Name: aws.String("webhooks")}); err != nil {
		t.Fatal(err)
	}
	soon := epoch.Add(time.Minute)
	for _, in := range []*scheduler.CreateScheduleInput{
		schedule("gone-after", "webhooks", soon, arn, "one", types.ActionAfterCompletionDelete),
		schedule("kept-after", "webhooks", soon, arn, "two", types.ActionAfterCompletionNone),
		schedule("later", "webhooks", epoch.Add(time.Hour), arn, "later", types.ActionAfterCompletionDelete),
	} {
		if _, err := sc.CreateSchedule(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	disabled := schedule("off", "webhooks", soon, arn, "off", types.ActionAfterCompletionDelete)
	disabled.State = types.ScheduleStateDisabled
	if _, err := sc.CreateSchedule(ctx, disabled); err != nil {
		t.Fatal(err)
	}
	fired := func() []string { // since the last call
		t.Helper()
		var out []string
		for _, m := range receive(t, q, url, 10, 0) {
			out = append(out, aws.ToString(m.Body))
			if _, err := q.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
		}
		slices.Sort(out)
		return out
	}

	clock.Advance(time.Minute - time.Second)
	if got := fired(); len(got) != 0 {
		t.Fatalf("fired %v a second before their time", got)
	}
	clock.Advance(time.Second)
	if got, want := fired(), []string{"one", "two"}; !slices.Equal(got, want) {
		t.Fatalf("fired %v at their time, want %v", got, want)
	}
	// More ticks: nothing fires twice, nothing early, nothing disabled.
	clock.Advance(time.Minute)
	if got := fired(); len(got) != 0 {
		t.Fatalf("fired again: %v", got)
	}
	var names []string
	p := scheduler.NewListSchedulesPaginator(sc, &scheduler.ListSchedulesInput{GroupName: aws.String("webhooks"), MaxResults: aws.Int32(1)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range page.Schedules {
			names = append(names, aws.ToString(s.Name))
		}
	}
	if strings.Join(names, ",") != "kept-after,later,off" {
		t.Fatalf("schedules left %v", names)
	}
	got, err := sc.GetSchedule(ctx, &scheduler.GetScheduleInput{Name: aws.String("later"), GroupName: aws.String("webhooks")})
	if err != nil || aws.ToString(got.Target.Input) != "later" || aws.ToString(got.Target.Arn) != arn || got.ActionAfterCompletion != types.ActionAfterCompletionDelete ||
		!strings.HasSuffix(aws.ToString(got.Arn), ":schedule/webhooks/later") || got.CreationDate == nil {
		t.Fatalf("GetSchedule %+v %v", got, err)
	}
	clock.Advance(time.Hour)
	if got, want := fired(), []string{"later"}; !slices.Equal(got, want) {
		t.Fatalf("fired %v an hour in, want %v", got, want)
	}
	if _, err := sc.GetSchedule(ctx, &scheduler.GetScheduleInput{Name: aws.String("later"), GroupName: aws.String("webhooks")}); err == nil {
		t.Error("a fired DELETE schedule is still there")
	}
}

func TestSchedulerRefusesWhatItCannotDo(t *testing.T) {
	q, sc, _ := emulator(t)
	ctx := context.Background()
	createQueue(t, q, "retries", nil)
	arn := "arn:aws:sqs:" + region + ":" + account + ":retries"
	if _, err := sc.CreateSchedule(ctx, schedule("dup", "default", time.Now().Add(time.Hour), arn, "x", "")); err != nil {
		t.Fatal(err)
	}
	recurring := schedule("every", "default", time.Now(), arn, "x", "")
	recurring.ScheduleExpression = aws.String("rate(5 minutes)")
	lambda := schedule("fn", "default", time.Now(), "arn:aws:lambda:us-east-1:000000000000:function:f", "x", "")
	var conflict *types.ConflictException
	var notFound *types.ResourceNotFoundException
	var invalid *types.ValidationException
	cases := []struct {
		name string
		call func() error
		want any
	}{
		{"same name twice", func() error {
			_, err := sc.CreateSchedule(ctx, schedule("dup", "default", time.Now(), arn, "x", ""))
			return err
		}, &conflict},
		{"group twice", func() error {
			_, err := sc.CreateScheduleGroup(ctx, &scheduler.CreateScheduleGroupInput{Name: aws.String("default")})
			return err
		}, &conflict},
		{"unknown group", func() error {
			_, err := sc.CreateSchedule(ctx, schedule("x", "nope", time.Now(), arn, "x", ""))
			return err
		}, &notFound},
		{"unknown schedule", func() error {
			_, err := sc.GetSchedule(ctx, &scheduler.GetScheduleInput{Name: aws.String("nope")})
			return err
		}, &notFound},
		{"recurring schedule", func() error { _, err := sc.CreateSchedule(ctx, recurring); return err }, &invalid},
		{"target that is not a queue", func() error { _, err := sc.CreateSchedule(ctx, lambda); return err }, &invalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var ok bool
			switch target := tc.want.(type) {
			case **types.ConflictException:
				ok = errors.As(err, target)
			case **types.ResourceNotFoundException:
				ok = errors.As(err, target)
			case **types.ValidationException:
				ok = errors.As(err, target)
			}
			if !ok {
				t.Errorf("got %T %v, want %T", err, err, tc.want)
			}
		})
	}
}

// The universal target sqs:sendMessage sends the SendMessage request its
// input is: to the queue it names, with its MessageGroupId (the templated
// SQS target has no way to give a standard queue's message a group). It
// runs on the wall clock, as the local runtime does: the one test of Run
// ticking in real time.
func TestUniversalSendMessageTargetCarriesTheGroup(t *testing.T) {
	q, sc, _ := emulator(t)
	ctx := context.Background()
	url := createQueue(t, q, "fair-retries", nil)
	input := `{"QueueUrl":"` + url + `","MessageBody":"retry","MessageGroupId":"prj_1"}`
	in := schedule("universal", "default", time.Now().Add(-time.Second), "arn:aws:scheduler:::aws-sdk:sqs:sendMessage", input, types.ActionAfterCompletionDelete)
	if _, err := sc.CreateSchedule(ctx, in); err != nil {
		t.Fatal(err)
	}
	var got []string
	for deadline := time.Now().Add(10 * time.Second); len(got) == 0 && time.Now().Before(deadline); {
		out, err := q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 1, MaxNumberOfMessages: 10,
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{"MessageGroupId"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.Messages {
			got = append(got, aws.ToString(m.Body)+" in "+m.Attributes["MessageGroupId"])
		}
	}
	if strings.Join(got, ",") != "retry in prj_1" {
		t.Fatalf("fired %v, want the body in group prj_1", got)
	}
}
