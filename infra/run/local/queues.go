package local

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sort"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/infra/run/awsemu"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/internal/app"
)

// createQueues creates the template's SQS queues (dead-letter targets
// first) and its schedule groups in the in-process emulators.
func (r *Runtime) createQueues() error {
	r.queues = map[string]*awsemu.Queue{}
	ids := r.cfg.Template.OfType("AWS::SQS::Queue")
	res := r.resolver()
	for pending := ids; len(pending) > 0; {
		var later []string
		for _, id := range pending {
			p := r.cfg.Template.Resources[id].Properties
			attrs := map[string]string{}
			for _, a := range []string{"VisibilityTimeout", "MessageRetentionPeriod", "DelaySeconds", "ReceiveMessageWaitTimeSeconds", "MaximumMessageSize", "SqsManagedSseEnabled"} {
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
			}
			name := r.stackName() + "-" + id
			if n, ok := p["QueueName"].(string); ok {
				name = n
			}
			q, err := r.sqs.CreateQueue(name, attrs)
			if err != nil {
				return fmt.Errorf("local: create queue %s: %w", id, err)
			}
			r.queues[id] = q
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
		if err := r.sched.CreateGroup(name); err != nil {
			return fmt.Errorf("local: create schedule group %s: %w", name, err)
		}
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
	return eventSources(fns, "SQS", "Queue", "Queue", "Arn", func(function, queue string, e template.Event) (*sqsMapping, error) {
		partial := false
		for _, t := range asSlice(e.Properties["FunctionResponseTypes"]) {
			partial = partial || t == "ReportBatchItemFailures"
		}
		return &sqsMapping{
			function: function, queue: queue, batchSize: intProp(e.Properties, "BatchSize", 10),
			concurrency: intProp(asMap(e.Properties["ScalingConfig"]), "MaximumConcurrency", 5), partial: partial,
		}, nil
	})
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
	wait := time.Second
	for ctx.Err() == nil {
		msgs, err := q.Receive(ctx, awsemu.ReceiveOptions{Max: min(m.batchSize, awsemu.MaxBatchEntries), Wait: &wait})
		if err == nil && ctx.Err() == nil {
			r.cfg.Meter.received(len(msgs), payloadBytes(msgs))
		}
		if err != nil || len(msgs) == 0 {
			if err != nil {
				r.cfg.Log.Error("local: receive failed", "queue", q.Name(), "error", err.Error())
				sleepCtx(ctx, 200*time.Millisecond)
			}
			continue
		}
		ev := events.SQSEvent{}
		for _, msg := range msgs {
			ev.Records = append(ev.Records, sqsRecord(msg, q.ARN()))
		}
		failed := r.invokeQueue(ctx, m, ev)
		if len(failed) < len(msgs) {
			r.cfg.Meter.deletedBatch()
		}
		for _, msg := range msgs {
			if !failed[msg.ID] {
				_ = q.Delete(msg.ReceiptHandle)
			}
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
	defer r.cfg.Meter.invocation(m.function)()
	resp, err := m.handler(ictx, ev)
	if ictx.Err() != nil {
		r.cfg.Log.Warn("local: invocation ran to its deadline; its messages return to the queue", "function", m.function, "timeout", r.timeout(m.function).String())
		r.overran(m.function)
	}
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

// payloadBytes is the size of received messages' bodies and attributes.
func payloadBytes(msgs []awsemu.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Body)
		for k, v := range m.Attributes {
			n += len(k) + len(v.DataType) + len(v.StringValue) + len(v.BinaryValue)
		}
	}
	return n
}

func sqsRecord(msg awsemu.Message, arn string) events.SQSMessage {
	rec := events.SQSMessage{
		MessageId: msg.ID, ReceiptHandle: msg.ReceiptHandle, Body: msg.Body, Md5OfBody: msg.MD5OfBody, Attributes: msg.System,
		EventSource: "aws:sqs", EventSourceARN: arn, AWSRegion: Region,
	}
	if len(msg.Attributes) > 0 {
		rec.Md5OfMessageAttributes = msg.MD5OfAttrs
		rec.MessageAttributes = map[string]events.SQSMessageAttribute{}
		for k, v := range msg.Attributes {
			a := events.SQSMessageAttribute{DataType: v.DataType, BinaryValue: v.BinaryValue}
			if v.StringValue != "" {
				a.StringValue = &v.StringValue
			}
			rec.MessageAttributes[k] = a
		}
	}
	return rec
}

// Queue returns a queue of the template (by logical id): its URL on the
// local AWS endpoint, and its ARN.
func (r *Runtime) Queue(id string) (url, arn string) {
	q := r.queues[id]
	return q.URL(), q.ARN()
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

// QueueDepth returns how many messages a queue holds (visible, in flight
// and delayed).
func (r *Runtime) QueueDepth(_ context.Context, id string) (int, error) {
	visible, inFlight, delayed := r.queues[id].Depth()
	return visible + inFlight + delayed, nil
}

// PendingSchedules counts the schedules waiting to fire.
func (r *Runtime) PendingSchedules(context.Context) (int, error) {
	return r.sched.Pending(), nil
}
