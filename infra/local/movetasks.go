package local

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// moveTasks plays SQS message move tasks (StartMessageMoveTask,
// ListMessageMoveTasks, CancelMessageMoveTask): what the console's "Start
// DLQ redrive" runs, which kumo does not serve.
type moveTasks struct {
	mu    sync.Mutex
	tasks []*moveTask
}

type moveTask struct {
	handle              string
	source, destination queue
	destinationGiven    bool
	rate                int
	status              string // RUNNING, COMPLETED, CANCELLED, FAILED
	moved, toMove       int
	failure             string
	started             time.Time
	cancel              context.CancelFunc
}

func (m *moveTasks) serve(r *Runtime, op string, in map[string]any) (any, int, *awsError) {
	str := func(k string) string { s, _ := in[k].(string); return s }
	num := func(k string) int { f, _ := in[k].(float64); return int(f) }
	switch op {
	case "StartMessageMoveTask":
		return m.start(r, str("SourceArn"), str("DestinationArn"), num("MaxNumberOfMessagesPerSecond"))
	case "ListMessageMoveTasks":
		return m.list(str("SourceArn"), num("MaxResults"))
	default:
		return m.cancelTask(str("TaskHandle"))
	}
}

func notFound(what string) *awsError {
	return &awsError{code: "com.amazonaws.sqs#ResourceNotFoundException", message: what + " does not exist"}
}

func (m *moveTasks) start(r *Runtime, sourceARN, destinationARN string, rate int) (any, int, *awsError) {
	src, ok := r.queueByARN(sourceARN)
	if !ok {
		return nil, http.StatusBadRequest, notFound("the source queue " + sourceARN)
	}
	dst, given := queue{}, destinationARN != ""
	if given {
		if dst, ok = r.queueByARN(destinationARN); !ok {
			return nil, http.StatusBadRequest, notFound("the destination queue " + destinationARN)
		}
	} else if dst, ok = r.redriveSourceOf(sourceARN); !ok {
		return nil, http.StatusBadRequest, &awsError{code: "com.amazonaws.sqs#InvalidParameterValue", message: "the source queue is not the dead-letter queue of a queue: name a DestinationArn"}
	}
	if rate < 0 || rate > 500 {
		return nil, http.StatusBadRequest, &awsError{code: "com.amazonaws.sqs#InvalidParameterValue", message: "MaxNumberOfMessagesPerSecond is 1 to 500"}
	}
	m.mu.Lock()
	for _, t := range m.tasks {
		if t.source.arn == sourceARN && t.status == "RUNNING" {
			m.mu.Unlock()
			return nil, http.StatusBadRequest, &awsError{code: "com.amazonaws.sqs#UnsupportedOperation", message: "a message move task is already running for this queue"}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	t := &moveTask{handle: hex.EncodeToString(b), source: src, destination: dst, destinationGiven: given, rate: rate,
		status: "RUNNING", started: time.Now(), cancel: cancel}
	m.tasks = append(m.tasks, t)
	m.mu.Unlock()
	r.background(func() { m.run(ctx, r, t) })
	return map[string]any{"TaskHandle": t.handle}, http.StatusOK, nil
}

// moveHold hides the messages a task has taken while it moves them.
const moveHold = 5 * time.Minute

// run moves the messages that are in the source when the task starts: it
// first takes them all (that is ApproximateNumberOfMessagesToMove), then
// sends each to the destination and deletes it. A message that arrives
// later — a redriven delivery that died again — waits for the next task.
func (m *moveTasks) run(ctx context.Context, r *Runtime, t *moveTask) {
	var taken []sqstypes.Message
	status, failure := "COMPLETED", ""
	for empty := 0; empty < 2; {
		out, err := r.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(t.source.url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1,
			VisibilityTimeout: int32(moveHold / time.Second), MessageAttributeNames: []string{"All"}})
		if err != nil {
			status, failure = "FAILED", err.Error()
			break
		}
		if len(out.Messages) == 0 {
			empty++
			continue
		}
		empty = 0
		taken = append(taken, out.Messages...)
	}
	m.mu.Lock()
	t.toMove = len(taken)
	m.mu.Unlock()
	for _, msg := range taken {
		if status != "COMPLETED" {
			break
		}
		if err := moveOne(ctx, r, t, msg); err != nil {
			status, failure = "FAILED", err.Error()
			break
		}
		m.mu.Lock()
		t.moved++
		m.mu.Unlock()
		if t.rate > 0 {
			sleepCtx(ctx, time.Second/time.Duration(t.rate))
		}
	}
	if ctx.Err() != nil {
		status, failure = "CANCELLED", ""
	}
	m.mu.Lock()
	if t.status == "RUNNING" {
		t.status, t.failure = status, failure
	}
	m.mu.Unlock()
}

func moveOne(ctx context.Context, r *Runtime, t *moveTask, msg sqstypes.Message) error {
	if _, err := r.sqs.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(t.destination.url), MessageBody: msg.Body, MessageAttributes: msg.MessageAttributes}); err != nil {
		return err
	}
	_, err := r.sqs.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(t.source.url), ReceiptHandle: msg.ReceiptHandle})
	return err
}

func (m *moveTasks) list(sourceARN string, max int) (any, int, *awsError) {
	if max <= 0 {
		max = 1
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	results := []map[string]any{}
	for i := len(m.tasks) - 1; i >= 0 && len(results) < min(max, 10); i-- {
		t := m.tasks[i]
		if t.source.arn != sourceARN {
			continue
		}
		res := map[string]any{
			"Status": t.status, "SourceArn": t.source.arn, "ApproximateNumberOfMessagesMoved": t.moved,
			"ApproximateNumberOfMessagesToMove": t.toMove, "StartedTimestamp": t.started.UnixMilli(),
		}
		if t.status == "RUNNING" {
			res["TaskHandle"] = t.handle
		}
		if t.destinationGiven {
			res["DestinationArn"] = t.destination.arn
		}
		if t.rate > 0 {
			res["MaxNumberOfMessagesPerSecond"] = t.rate
		}
		if t.failure != "" {
			res["FailureReason"] = t.failure
		}
		results = append(results, res)
	}
	return map[string]any{"Results": results}, http.StatusOK, nil
}

func (m *moveTasks) cancelTask(handle string) (any, int, *awsError) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.tasks {
		if t.handle == handle && t.status == "RUNNING" {
			t.cancel()
			t.status = "CANCELLED"
			return map[string]any{"ApproximateNumberOfMessagesMoved": t.moved}, http.StatusOK, nil
		}
	}
	return nil, http.StatusBadRequest, notFound("a running task " + handle)
}

// queueByARN finds a queue of the template by ARN.
func (r *Runtime) queueByARN(arn string) (queue, bool) {
	for _, q := range r.queues {
		if q.arn == arn {
			return q, true
		}
	}
	return queue{}, false
}

// redriveSourceOf is the queue whose redrive policy names the dead-letter
// queue dlqARN.
func (r *Runtime) redriveSourceOf(dlqARN string) (queue, bool) {
	for id, q := range r.queues {
		if r.deadLetterTargets[id] == dlqARN {
			return q, true
		}
	}
	return queue{}, false
}
