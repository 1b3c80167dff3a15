// Package awsqueue is pillar 3's queue side on AWS: the delivery queue and
// its dead-letter queue on SQS, retries on EventBridge Scheduler, and the
// deliver function's SQS event source (batches with partial failures).
// It implements the ports package webhook declares; the rules stay there.
package awsqueue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	schedtypes "github.com/aws/aws-sdk-go-v2/service/scheduler/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/botix/public-api/internal/awslimits"
	"github.com/botix/public-api/internal/webhook"
)

// Queue is the delivery queue, its bulk lane and the dead-letter queue on
// SQS.
type Queue struct {
	SQS *sqs.Client
	// URL is the delivery queue's, BulkURL the bulk lane's (see
	// webhook.BulkAfter): a message marked Bulk goes there.
	URL, BulkURL  string
	DeadLetterURL string
}

// lane returns the queue of a message's lane: bulk when it is marked so.
func lane(m webhook.Message, url, bulkURL string) string {
	if m.Bulk {
		return bulkURL
	}
	return url
}

var (
	_ webhook.Queue       = (*Queue)(nil)
	_ webhook.DeadLetters = (*Queue)(nil)
)

// sendConcurrency bounds the parallel SendMessageBatch calls of Enqueue.
const sendConcurrency = 16

// messageInput is the one way a delivery message is sent to a queue: its
// body, visible after delay, and MessageGroupId = the project, so that
// the standard queue is a fair queue with a tenant per project (one
// project's backlog does not delay another's deliveries; FIFO semantics
// do not apply to a standard queue's groups).
func messageInput(queueURL string, m webhook.Message, delay time.Duration) *sqs.SendMessageInput {
	return &sqs.SendMessageInput{
		QueueUrl: aws.String(queueURL), MessageBody: aws.String(m.String()),
		MessageGroupId: aws.String(m.ProjectID), DelaySeconds: delaySeconds(delay),
	}
}

// delaySeconds is a delay as SQS takes it: whole seconds, rounded up, from
// 0 to 900 (webhook.MaxDefer).
func delaySeconds(d time.Duration) int32 {
	return int32((min(max(d, 0), webhook.MaxDefer) + time.Second - 1) / time.Second)
}

// batchEntry is the message messageInput built, as entry id of a
// SendMessageBatch.
func batchEntry(id string, in *sqs.SendMessageInput) sqstypes.SendMessageBatchRequestEntry {
	return sqstypes.SendMessageBatchRequestEntry{
		Id: aws.String(id), MessageBody: in.MessageBody, MessageGroupId: in.MessageGroupId,
		DelaySeconds: in.DelaySeconds, MessageAttributes: in.MessageAttributes,
	}
}

// Enqueue implements webhook.Queue: up to ten messages per
// SendMessageBatch (see batches), calls in parallel.
func (q *Queue) Enqueue(ctx context.Context, msgs []webhook.Message) []error {
	now := make([]webhook.Deferred, len(msgs))
	for i, m := range msgs {
		now[i] = webhook.Deferred{Message: m}
	}
	return q.Defer(ctx, now)
}

// Defer implements webhook.Queue as Enqueue does, each message with its
// own DelaySeconds. A deferred message is a new message: its receive count
// starts again, so waiting for capacity never sends it to the dead-letter
// queue.
func (q *Queue) Defer(ctx context.Context, msgs []webhook.Deferred) []error {
	errs := make([]error, len(msgs))
	// Each message is encoded once: its body is sent and sized from it.
	// A SendMessageBatch goes to one queue: the lanes are sent apart.
	ins := make([]*sqs.SendMessageInput, len(msgs))
	byLane := map[string][]int{}
	for i, m := range msgs {
		u := lane(m.Message, q.URL, q.BulkURL)
		ins[i] = messageInput(u, m.Message, m.Delay)
		byLane[u] = append(byLane[u], i)
	}
	sem := make(chan struct{}, sendConcurrency)
	var wg sync.WaitGroup
	for url, idx := range byLane {
		sizes := make([]int, len(idx))
		for k, i := range idx {
			sizes[k] = len(aws.ToString(ins[i].MessageBody))
		}
		for _, chunk := range batches(idx, sizes) {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				q.sendBatch(ctx, url, ins, chunk, errs)
			}()
		}
	}
	wg.Wait()
	return errs
}

// batches splits idx, in order, into SendMessageBatch calls within SQS's
// bounds: at most awslimits.SQSBatchEntries messages, and at most
// awslimits.SQSBatchBytes of bodies (sizes[k] is idx[k]'s; the messages
// carry no attributes), which messages that carry their delivery's
// payload (a bulk lane's first ones, webhook.Message.Pending) can reach
// before ten.
func batches(idx, sizes []int) [][]int {
	var out [][]int
	start, bytes := 0, 0
	for k := range idx {
		if k > start && (k-start == awslimits.SQSBatchEntries || bytes+sizes[k] > awslimits.SQSBatchBytes) {
			out, start, bytes = append(out, idx[start:k]), k, 0
		}
		bytes += sizes[k]
	}
	if start < len(idx) {
		out = append(out, idx[start:])
	}
	return out
}

// sendBatch sends ins[chunk] (at most ten, built by messageInput for the
// queue at url) in one SendMessageBatch, writing each one's error to errs.
func (q *Queue) sendBatch(ctx context.Context, url string, ins []*sqs.SendMessageInput, chunk []int, errs []error) {
	entries := make([]sqstypes.SendMessageBatchRequestEntry, len(chunk))
	for k, i := range chunk {
		entries[k] = batchEntry(strconv.Itoa(k), ins[i])
	}
	out, err := q.SQS.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
	if err != nil {
		for _, i := range chunk {
			errs[i] = err
		}
		return
	}
	for _, f := range out.Failed {
		k, _ := strconv.Atoi(aws.ToString(f.Id))
		errs[chunk[k]] = fmt.Errorf("awsqueue: message not sent: %s", aws.ToString(f.Message))
	}
}

// DeadLetter implements webhook.Queue. The project, endpoint and event
// type are also message attributes, for people filtering the queue.
func (q *Queue) DeadLetter(ctx context.Context, m webhook.Message) error {
	in := messageInput(q.DeadLetterURL, m, 0)
	in.MessageAttributes = map[string]sqstypes.MessageAttributeValue{
		"project_id":  {DataType: aws.String("String"), StringValue: aws.String(m.ProjectID)},
		"endpoint_id": {DataType: aws.String("String"), StringValue: aws.String(m.EndpointID)},
		"event_type":  {DataType: aws.String("String"), StringValue: aws.String(m.EventType)},
	}
	_, err := q.SQS.SendMessage(ctx, in)
	return err
}

// Receive implements webhook.DeadLetters (a one-second long poll).
func (q *Queue) Receive(ctx context.Context, max int, hold time.Duration) ([]webhook.DeadLetter, error) {
	res, err := q.SQS.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl: aws.String(q.DeadLetterURL), MaxNumberOfMessages: int32(min(max, 10)),
		WaitTimeSeconds: 1, VisibilityTimeout: int32(hold / time.Second),
	})
	if err != nil {
		return nil, err
	}
	out := make([]webhook.DeadLetter, len(res.Messages))
	for i, m := range res.Messages {
		out[i] = webhook.DeadLetter{Body: aws.ToString(m.Body), Handle: aws.ToString(m.ReceiptHandle)}
	}
	return out, nil
}

// Requeue implements webhook.DeadLetters. A body that is not a delivery
// message is refused (the redriver leaves those to a human).
func (q *Queue) Requeue(ctx context.Context, l webhook.DeadLetter) error {
	m, err := webhook.ParseMessage(l.Body)
	if err != nil {
		return fmt.Errorf("awsqueue: requeue: not a delivery message: %w", err)
	}
	if _, err := q.SQS.SendMessage(ctx, messageInput(lane(m, q.URL, q.BulkURL), m, 0)); err != nil {
		return err
	}
	return q.Delete(ctx, l)
}

// Delete implements webhook.DeadLetters.
func (q *Queue) Delete(ctx context.Context, l webhook.DeadLetter) error {
	_, err := q.SQS.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(q.DeadLetterURL), ReceiptHandle: aws.String(l.Handle)})
	return err
}

// Release implements webhook.DeadLetters.
func (q *Queue) Release(ctx context.Context, ls []webhook.DeadLetter) error {
	var errs []error
	for _, l := range ls {
		_, err := q.SQS.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(q.DeadLetterURL), ReceiptHandle: aws.String(l.Handle), VisibilityTimeout: 0})
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Scheduler schedules retries as EventBridge Scheduler one-shot schedules
// whose target puts the message on the delivery queue.
//
// The target is Scheduler's universal target for SQS SendMessage, whose
// input is the request messageInput builds: Scheduler's templated SQS
// target passes a MessageGroupId (SqsParameters) for FIFO queues only,
// and a retry without the project's group would escape the fair queue's
// noisy-neighbour protection. The role needs sqs:SendMessage on the
// queue either way.
type Scheduler struct {
	Client *scheduler.Client
	Group  string
	// QueueURL and QueueARN name the delivery queue (the ARN gives the
	// partition of the target), BulkQueueURL its bulk lane, where a retry
	// of a message marked Bulk goes.
	QueueURL, BulkQueueURL string
	QueueARN               string
	// RoleARN is the role Scheduler assumes to send to the queue.
	RoleARN string
}

var _ webhook.Scheduler = (*Scheduler)(nil)

// Schedule implements webhook.Scheduler: an at() schedule named after the
// delivery, round and attempt (so creating it twice is a harmless
// conflict), deleted after it fires.
func (s *Scheduler) Schedule(ctx context.Context, m webhook.Message, at time.Time) error {
	input, err := sendMessageRequest(messageInput(lane(m, s.QueueURL, s.BulkQueueURL), m, 0))
	if err != nil {
		return err
	}
	_, err = s.Client.CreateSchedule(ctx, &scheduler.CreateScheduleInput{
		Name:                       aws.String(fmt.Sprintf("%s-r%d-a%d", m.DeliveryID, m.Round, m.Attempt)),
		GroupName:                  aws.String(s.Group),
		ScheduleExpression:         aws.String("at(" + at.UTC().Format("2006-01-02T15:04:05") + ")"),
		ScheduleExpressionTimezone: aws.String("UTC"),
		FlexibleTimeWindow:         &schedtypes.FlexibleTimeWindow{Mode: schedtypes.FlexibleTimeWindowModeOff},
		ActionAfterCompletion:      schedtypes.ActionAfterCompletionDelete,
		Target:                     &schedtypes.Target{Arn: aws.String(sendMessageTarget(s.QueueARN)), RoleArn: aws.String(s.RoleARN), Input: aws.String(input)},
	})
	var conflict *schedtypes.ConflictException
	if errors.As(err, &conflict) {
		return nil
	}
	return err
}

// sendMessageTarget is the ARN of Scheduler's universal target that calls
// SQS SendMessage, in the partition of the queue's ARN.
func sendMessageTarget(queueARN string) string {
	partition := "aws"
	if parts := strings.SplitN(queueARN, ":", 3); len(parts) == 3 && parts[0] == "arn" {
		partition = parts[1]
	}
	return "arn:" + partition + ":scheduler:::aws-sdk:sqs:sendMessage"
}

// sendMessageRequest is a SendMessage request as a universal target's
// input: the API's parameters by their names.
func sendMessageRequest(in *sqs.SendMessageInput) (string, error) {
	b, err := json.Marshal(struct {
		QueueUrl       string
		MessageBody    string
		MessageGroupId string `json:",omitempty"`
		DelaySeconds   int32  `json:",omitempty"`
	}{aws.ToString(in.QueueUrl), aws.ToString(in.MessageBody), aws.ToString(in.MessageGroupId), in.DelaySeconds})
	return string(b), err
}
