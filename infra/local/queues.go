package local

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"runtime/debug"
	"sort"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/botix/public-api/infra/template"
	"github.com/botix/public-api/internal/app"
)

type queue struct {
	url, arn string
}

// createQueues creates the template's SQS queues in kumo (dead-letter
// targets first) and its schedule groups.
func (r *Runtime) createQueues(ctx context.Context) error {
	r.queues = map[string]queue{}
	r.deadLetterTargets = map[string]string{}
	ids := r.cfg.Template.OfType("AWS::SQS::Queue")
	res := r.resolver()
	for pending := ids; len(pending) > 0; {
		var later []string
		for _, id := range pending {
			p := r.cfg.Template.Resources[id].Properties
			attrs := map[string]string{}
			for _, a := range []string{"VisibilityTimeout", "MessageRetentionPeriod", "DelaySeconds", "ReceiveMessageWaitTimeSeconds", "MaximumMessageSize"} {
				if v, ok := p[a]; ok {
					attrs[a] = fmt.Sprint(v)
				}
			}
			if v, ok := r.cfg.VisibilityTimeout[id]; ok {
				attrs["VisibilityTimeout"] = strconv.Itoa(int(v / time.Second))
			}
			if rp := asMap(p["RedrivePolicy"]); rp != nil {
				target, err := res.String(rp["deadLetterTargetArn"])
				if err != nil {
					later = append(later, id) // its dead-letter queue is not created yet
					continue
				}
				b, _ := json.Marshal(map[string]string{"deadLetterTargetArn": target, "maxReceiveCount": fmt.Sprint(rp["maxReceiveCount"])})
				attrs["RedrivePolicy"] = string(b)
				r.deadLetterTargets[id] = target
			}
			name := r.stackName() + "-" + id
			if n, ok := p["QueueName"].(string); ok {
				name = n
			}
			out, err := r.sqs.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
			if err != nil {
				return fmt.Errorf("local: create queue %s: %w", id, err)
			}
			a, err := r.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: out.QueueUrl, AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn}})
			if err != nil {
				return err
			}
			r.queues[id] = queue{url: aws.ToString(out.QueueUrl), arn: a.Attributes["QueueArn"]}
		}
		if len(later) == len(pending) {
			return fmt.Errorf("local: queues %v reference dead-letter queues that cannot be created", later)
		}
		pending = later
	}
	for _, id := range r.cfg.Template.OfType("AWS::Scheduler::ScheduleGroup") {
		name, err := res.String(r.cfg.Template.Resources[id].Properties["Name"])
		if err != nil {
			return err
		}
		if _, err := r.sched.CreateScheduleGroup(ctx, &scheduler.CreateScheduleGroupInput{Name: aws.String(name)}); err != nil {
			return fmt.Errorf("local: create schedule group %s: %w", name, err)
		}
		r.groups = append(r.groups, name)
	}
	return nil
}

// sqsMapping is an SQS event source mapping of the template.
type sqsMapping struct {
	function    string
	queue       string
	batchSize   int
	concurrency int
	partial     bool
	handler     app.QueueHandler
}

func sqsMappings(fns map[string]template.Function) ([]*sqsMapping, error) {
	var out []*sqsMapping
	for name, fn := range fns {
		for _, e := range fn.Events() {
			if e.Type != "SQS" {
				continue
			}
			att, _ := asMap(e.Properties["Queue"])["Fn::GetAtt"].([]any)
			if len(att) != 2 || att[1] != "Arn" {
				return nil, fmt.Errorf("local: %s.%s: Queue must be !GetAtt <Queue>.Arn", name, e.Name)
			}
			partial := false
			for _, t := range asSlice(e.Properties["FunctionResponseTypes"]) {
				partial = partial || t == "ReportBatchItemFailures"
			}
			out = append(out, &sqsMapping{
				function: name, queue: fmt.Sprint(att[0]), batchSize: intProp(e.Properties, "BatchSize", 10),
				concurrency: intProp(asMap(e.Properties["ScalingConfig"]), "MaximumConcurrency", 5), partial: partial,
			})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].function < out[j].function })
	return out, nil
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// pollQueue plays Lambda's SQS event source mapping: it receives batches,
// invokes the function, and deletes what succeeded (all of the batch, or
// all but the reported BatchItemFailures). Failed messages return after
// their visibility timeout, as in AWS.
func (r *Runtime) pollQueue(ctx context.Context, m *sqsMapping) {
	q := r.queues[m.queue]
	for ctx.Err() == nil {
		out, err := r.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(q.url), MaxNumberOfMessages: int32(min(m.batchSize, 10)), WaitTimeSeconds: 1,
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
			MessageAttributeNames:       []string{"All"},
		})
		if err != nil || len(out.Messages) == 0 {
			if err != nil {
				sleepCtx(ctx, 200*time.Millisecond)
			}
			continue
		}
		ev := events.SQSEvent{}
		for _, msg := range out.Messages {
			ev.Records = append(ev.Records, sqsRecord(msg, q.arn))
		}
		failed := r.invokeQueue(ctx, m, ev)
		var entries []sqstypes.DeleteMessageBatchRequestEntry
		for i, msg := range out.Messages {
			if !failed[aws.ToString(msg.MessageId)] {
				entries = append(entries, sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: msg.ReceiptHandle})
			}
		}
		if len(entries) > 0 {
			_, _ = r.sqs.DeleteMessageBatch(context.WithoutCancel(ctx), &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(q.url), Entries: entries})
		}
	}
}

// invokeQueue invokes the consumer and returns the ids of the messages
// that must stay in the queue. A panic or error fails the whole batch.
func (r *Runtime) invokeQueue(ctx context.Context, m *sqsMapping, ev events.SQSEvent) (failed map[string]bool) {
	all := func() map[string]bool {
		f := map[string]bool{}
		for _, rec := range ev.Records {
			f[rec.MessageId] = true
		}
		return f
	}
	defer func() {
		if p := recover(); p != nil {
			r.cfg.Log.Error("local: function crashed; its batch returns to the queue", "function", m.function, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			failed = all()
		}
	}()
	// Like Lambda, an invocation runs to its own deadline even when the
	// runtime is stopping.
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.timeout(m.function))
	defer cancel()
	resp, err := m.handler(ictx, ev)
	if err != nil {
		return all()
	}
	failed = map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		if !m.partial {
			return all()
		}
		failed[f.ItemIdentifier] = true
	}
	return failed
}

func sqsRecord(msg sqstypes.Message, arn string) events.SQSMessage {
	rec := events.SQSMessage{
		MessageId: aws.ToString(msg.MessageId), ReceiptHandle: aws.ToString(msg.ReceiptHandle), Body: aws.ToString(msg.Body),
		Md5OfBody: aws.ToString(msg.MD5OfBody), Attributes: msg.Attributes, EventSource: "aws:sqs", EventSourceARN: arn, AWSRegion: Region,
	}
	if len(msg.MessageAttributes) > 0 {
		rec.MessageAttributes = map[string]events.SQSMessageAttribute{}
		for k, v := range msg.MessageAttributes {
			rec.MessageAttributes[k] = events.SQSMessageAttribute{DataType: aws.ToString(v.DataType), StringValue: v.StringValue}
		}
	}
	return rec
}

// Queue returns a queue of the template (by logical id) as the local AWS
// endpoint names it: its URL there, and its ARN.
func (r *Runtime) Queue(id string) (url, arn string) {
	q := r.queues[id]
	return onBase(q.url, r.AWSURL), q.arn
}

// onBase moves a URL to another scheme and host, keeping its path.
func onBase(raw, base string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" {
		return raw
	}
	return base + u.Path
}

// QueueIDs returns the logical ids of the template's queues, sorted.
func (r *Runtime) QueueIDs() []string {
	out := make([]string, 0, len(r.queues))
	for id := range r.queues {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// QueueDepth returns how many messages a queue holds (visible and in
// flight).
func (r *Runtime) QueueDepth(ctx context.Context, id string) (int, error) {
	out, err := r.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(r.queues[id].url), AttributeNames: []sqstypes.QueueAttributeName{
		sqstypes.QueueAttributeNameApproximateNumberOfMessages, sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
	}})
	if err != nil {
		return 0, err
	}
	a, _ := strconv.Atoi(out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessages)])
	b, _ := strconv.Atoi(out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible)])
	return a + b, nil
}
