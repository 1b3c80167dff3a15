package awsemu

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// ServeHTTP answers SQS's AWS JSON 1.0 protocol: POST with X-Amz-Target
// AmazonSQS.<Operation> and a JSON body. Signatures are not checked.
func (s *SQS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op, ok := strings.CutPrefix(r.Header.Get("X-Amz-Target"), "AmazonSQS.")
	h, known := sqsOperations[op]
	if !ok || !known || r.Method != http.MethodPost {
		writeSQSError(w, sqsError("UnsupportedOperation", "AWS.SimpleQueueService.UnsupportedOperation",
			"the local SQS serves %s over the JSON protocol (POST, X-Amz-Target: AmazonSQS.<Operation>); not %s %q", strings.Join(sqsOperationNames(), ", "), r.Method, r.Header.Get("X-Amz-Target")))
		return
	}
	// Read past SQS's bounds, so that an oversized batch gets SQS's
	// answer (BatchRequestTooLong) rather than a cut-off body's.
	body, err := io.ReadAll(io.LimitReader(r.Body, 32*MaxBatchSize))
	if err != nil {
		writeSQSError(w, invalidParameter("the request body could not be read"))
		return
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		body = []byte("{}")
	}
	out, err := h(r.Context(), s, body)
	if err != nil {
		e, ok := err.(*Error)
		if !ok {
			e = &Error{Code: "InternalError", QueryCode: "InternalError", Status: http.StatusInternalServerError, Message: err.Error()}
		}
		writeSQSError(w, e)
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amzn-RequestId", uuid.NewString())
	_ = json.NewEncoder(w).Encode(out)
}

func writeSQSError(w http.ResponseWriter, e *Error) {
	status := e.Status
	if status == 0 {
		status = http.StatusBadRequest
	}
	fault := "Sender"
	if status >= 500 {
		fault = "Receiver"
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amzn-RequestId", uuid.NewString())
	w.Header().Set("X-Amzn-Query-Error", e.QueryCode+";"+fault)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": "com.amazonaws.sqs#" + e.Code, "message": e.Message})
}

type sqsHandler func(ctx context.Context, s *SQS, body []byte) (any, error)

// op decodes the request into In and calls f.
func op[In any](f func(ctx context.Context, s *SQS, in *In) (any, error)) sqsHandler {
	return func(ctx context.Context, s *SQS, body []byte) (any, error) {
		in := new(In)
		if err := json.Unmarshal(body, in); err != nil {
			return nil, &Error{Code: "SerializationException", QueryCode: "SerializationException", Status: http.StatusBadRequest, Message: "the request body does not match the operation's input: " + err.Error()}
		}
		return f(ctx, s, in)
	}
}

// queueURL is the input of an operation on one queue, or part of it.
type queueURL struct {
	QueueUrl string
}

func (u queueURL) url() string { return u.QueueUrl }

// queueOp is op for an operation on the queue its input's QueueUrl names.
func queueOp[In any, P interface {
	*In
	url() string
}](f func(ctx context.Context, s *SQS, q *Queue, in P) (any, error)) sqsHandler {
	return op(func(ctx context.Context, s *SQS, in *In) (any, error) {
		q, err := s.QueueByURL(P(in).url())
		if err != nil {
			return nil, err
		}
		return f(ctx, s, q, in)
	})
}

func sqsOperationNames() []string {
	out := make([]string, 0, len(sqsOperations))
	for name := range sqsOperations {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

var sqsOperations map[string]sqsHandler

func init() {
	sqsOperations = map[string]sqsHandler{
		"CreateQueue":                  op(createQueue),
		"GetQueueUrl":                  op(getQueueURL),
		"ListQueues":                   op(listQueues),
		"DeleteQueue":                  queueOp(deleteQueue),
		"PurgeQueue":                   queueOp(purgeQueue),
		"GetQueueAttributes":           queueOp(getQueueAttributes),
		"SetQueueAttributes":           queueOp(setQueueAttributes),
		"ListDeadLetterSourceQueues":   queueOp(listDeadLetterSources),
		"SendMessage":                  queueOp(sendMessage),
		"SendMessageBatch":             queueOp(sendMessageBatch),
		"ReceiveMessage":               queueOp(receiveMessage),
		"DeleteMessage":                queueOp(deleteMessage),
		"DeleteMessageBatch":           queueOp(deleteMessageBatch),
		"ChangeMessageVisibility":      queueOp(changeVisibility),
		"ChangeMessageVisibilityBatch": queueOp(changeVisibilityBatch),
		"StartMessageMoveTask":         op(startMoveTask),
		"ListMessageMoveTasks":         op(listMoveTasks),
		"CancelMessageMoveTask":        op(cancelMoveTask),
	}
}

func createQueue(_ context.Context, s *SQS, in *struct {
	QueueName  string
	Attributes map[string]string
}) (any, error) {
	q, err := s.CreateQueue(in.QueueName, in.Attributes)
	if err != nil {
		return nil, err
	}
	return map[string]string{"QueueUrl": q.URL()}, nil
}

func getQueueURL(_ context.Context, s *SQS, in *struct{ QueueName string }) (any, error) {
	q, err := s.QueueByName(in.QueueName)
	if err != nil {
		return nil, err
	}
	return map[string]string{"QueueUrl": q.URL()}, nil
}

func listQueues(_ context.Context, s *SQS, in *struct {
	QueueNamePrefix string
	MaxResults      *int
	NextToken       string
}) (any, error) {
	if in.MaxResults != nil && (*in.MaxResults < 1 || *in.MaxResults > 1000) {
		return nil, invalidParameter("Value %d for parameter MaxResults is invalid. Reason: must be between 1 and 1000.", *in.MaxResults)
	}
	urls := []string{}
	var next string
	for _, q := range s.Queues(in.QueueNamePrefix) {
		if q.name <= in.NextToken {
			continue
		}
		if in.MaxResults != nil && len(urls) == *in.MaxResults {
			next = urls[len(urls)-1][strings.LastIndexByte(urls[len(urls)-1], '/')+1:]
			break
		}
		urls = append(urls, q.URL())
	}
	out := map[string]any{"QueueUrls": urls}
	if next != "" {
		out["NextToken"] = next
	}
	return out, nil
}

func deleteQueue(_ context.Context, s *SQS, q *Queue, in *queueURL) (any, error) {
	s.DeleteQueue(q)
	return struct{}{}, nil
}

func purgeQueue(_ context.Context, s *SQS, q *Queue, in *queueURL) (any, error) {
	q.Purge()
	return struct{}{}, nil
}

func getQueueAttributes(_ context.Context, s *SQS, q *Queue, in *struct {
	queueURL
	AttributeNames []string
}) (any, error) {
	attrs, err := q.Attributes(in.AttributeNames)
	if err != nil {
		return nil, err
	}
	return map[string]any{"Attributes": attrs}, nil
}

func setQueueAttributes(_ context.Context, s *SQS, q *Queue, in *struct {
	queueURL
	Attributes map[string]string
}) (any, error) {
	return struct{}{}, q.SetAttributes(in.Attributes)
}

func listDeadLetterSources(_ context.Context, s *SQS, q *Queue, in *queueURL) (any, error) {
	urls := []string{}
	for _, src := range s.DeadLetterSources(q) {
		urls = append(urls, src.URL())
	}
	return map[string]any{"queueUrls": urls}, nil
}

type sendEntry struct {
	Id                string
	MessageBody       string
	DelaySeconds      *int
	MessageAttributes map[string]MessageAttribute
	MessageGroupId    string
}

func (e sendEntry) send(q *Queue) (map[string]any, error) {
	var delay *time.Duration
	if e.DelaySeconds != nil {
		d := time.Duration(*e.DelaySeconds) * time.Second
		delay = &d
	}
	sent, err := q.Send(e.MessageBody, SendOptions{Attributes: e.MessageAttributes, Delay: delay, GroupID: e.MessageGroupId})
	if err != nil {
		return nil, err
	}
	out := map[string]any{"MessageId": sent.ID, "MD5OfMessageBody": sent.MD5OfBody}
	if sent.MD5OfAttrs != "" {
		out["MD5OfMessageAttributes"] = sent.MD5OfAttrs
	}
	return out, nil
}

func sendMessage(_ context.Context, s *SQS, q *Queue, in *struct {
	queueURL
	sendEntry
}) (any, error) {
	return in.send(q)
}

var batchIDRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)

// checkBatch applies SQS's rules for batch entry ids.
func checkBatch(ids []string) error {
	if len(ids) == 0 {
		return sqsError("EmptyBatchRequest", "AWS.SimpleQueueService.EmptyBatchRequest", "There should be at least one entry in the request.")
	}
	if len(ids) > MaxBatchEntries {
		return sqsError("TooManyEntriesInBatchRequest", "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", "Maximum number of entries per request are %d. You have sent %d.", MaxBatchEntries, len(ids))
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if !batchIDRe.MatchString(id) {
			return sqsError("InvalidBatchEntryId", "AWS.SimpleQueueService.InvalidBatchEntryId", "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.")
		}
		if seen[id] {
			return sqsError("BatchEntryIdsNotDistinct", "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", "Id %s repeated.", id)
		}
		seen[id] = true
	}
	return nil
}

// batch runs f on each entry and sorts the outcomes into Successful and
// Failed, as SQS's batch operations answer.
func batch[E any](ids []string, entries []E, f func(E) (map[string]any, error)) (any, error) {
	if err := checkBatch(ids); err != nil {
		return nil, err
	}
	ok, failed := []map[string]any{}, []map[string]any{}
	for i, e := range entries {
		res, err := f(e)
		if err != nil {
			code, msg := "InternalError", err.Error()
			if se, isSQS := err.(*Error); isSQS {
				code, msg = se.Code, se.Message
			}
			failed = append(failed, map[string]any{"Id": ids[i], "SenderFault": code != "InternalError", "Code": code, "Message": msg})
			continue
		}
		if res == nil {
			res = map[string]any{}
		}
		res["Id"] = ids[i]
		ok = append(ok, res)
	}
	return map[string]any{"Successful": ok, "Failed": failed}, nil
}

func sendMessageBatch(_ context.Context, s *SQS, q *Queue, in *struct {
	queueURL
	Entries []sendEntry
}) (any, error) {
	ids, size := make([]string, len(in.Entries)), 0
	for i, e := range in.Entries {
		ids[i] = e.Id
		size += len(e.MessageBody) + attributesSize(e.MessageAttributes)
	}
	if size > MaxBatchSize {
		return nil, sqsError("BatchRequestTooLong", "AWS.SimpleQueueService.BatchRequestTooLong", "Batch requests cannot be longer than %d bytes. You have sent %d bytes.", MaxBatchSize, size)
	}
	return batch(ids, in.Entries, func(e sendEntry) (map[string]any, error) { return e.send(q) })
}

func receiveMessage(ctx context.Context, s *SQS, q *Queue, in *struct {
	queueURL
	AttributeNames              []string
	MessageSystemAttributeNames []string
	MessageAttributeNames       []string
	MaxNumberOfMessages         int
	VisibilityTimeout           *int
	WaitTimeSeconds             *int
}) (any, error) {
	o := ReceiveOptions{Max: in.MaxNumberOfMessages}
	if in.VisibilityTimeout != nil {
		d := time.Duration(*in.VisibilityTimeout) * time.Second
		o.Visibility = &d
	}
	if in.WaitTimeSeconds != nil {
		d := time.Duration(*in.WaitTimeSeconds) * time.Second
		o.Wait = &d
	}
	msgs, err := q.Receive(ctx, o)
	if err != nil {
		return nil, err
	}
	system := append(in.AttributeNames, in.MessageSystemAttributeNames...)
	out := []map[string]any{}
	for _, m := range msgs {
		e := map[string]any{"MessageId": m.ID, "ReceiptHandle": m.ReceiptHandle, "Body": m.Body, "MD5OfBody": m.MD5OfBody}
		if attrs := pick(m.System, system); len(attrs) > 0 {
			e["Attributes"] = attrs
		}
		if attrs := pick(m.Attributes, in.MessageAttributeNames); len(attrs) > 0 {
			e["MessageAttributes"] = attrs
			e["MD5OfMessageAttributes"] = attributesMD5(attrs)
		}
		out = append(out, e)
	}
	return map[string]any{"Messages": out}, nil
}

// pick keeps the entries of m that names ask for: "All" or ".*" for
// every one, "prefix.*" for a prefix, or a name.
func pick[V any](m map[string]V, names []string) map[string]V {
	out := map[string]V{}
	for _, n := range names {
		for k, v := range m {
			prefix, wildcard := strings.CutSuffix(n, ".*")
			if n == "All" || n == ".*" || k == n || (wildcard && strings.HasPrefix(k, prefix+".")) {
				out[k] = v
			}
		}
	}
	return out
}

type handleEntry struct {
	Id                string
	ReceiptHandle     string
	VisibilityTimeout int
}

func deleteMessage(_ context.Context, s *SQS, q *Queue, in *struct {
	queueURL
	ReceiptHandle string
}) (any, error) {
	return struct{}{}, q.Delete(in.ReceiptHandle)
}

func deleteMessageBatch(_ context.Context, s *SQS, q *Queue, in *struct {
	queueURL
	Entries []handleEntry
}) (any, error) {
	return batch(entryIDs(in.Entries), in.Entries, func(e handleEntry) (map[string]any, error) { return nil, q.Delete(e.ReceiptHandle) })
}

func entryIDs(entries []handleEntry) []string {
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.Id
	}
	return ids
}

func changeVisibility(_ context.Context, s *SQS, q *Queue, in *struct {
	queueURL
	handleEntry
}) (any, error) {
	return struct{}{}, q.ChangeVisibility(in.ReceiptHandle, time.Duration(in.VisibilityTimeout)*time.Second)
}

func changeVisibilityBatch(_ context.Context, s *SQS, q *Queue, in *struct {
	queueURL
	Entries []handleEntry
}) (any, error) {
	return batch(entryIDs(in.Entries), in.Entries, func(e handleEntry) (map[string]any, error) {
		return nil, q.ChangeVisibility(e.ReceiptHandle, time.Duration(e.VisibilityTimeout)*time.Second)
	})
}

func startMoveTask(_ context.Context, s *SQS, in *struct {
	SourceArn                    string
	DestinationArn               string
	MaxNumberOfMessagesPerSecond int
}) (any, error) {
	src, err := s.QueueByARN(in.SourceArn)
	if err != nil {
		return nil, err
	}
	var dst *Queue
	if in.DestinationArn != "" {
		if dst, err = s.QueueByARN(in.DestinationArn); err != nil {
			return nil, err
		}
	}
	t, err := s.StartMoveTask(src, dst, in.MaxNumberOfMessagesPerSecond)
	if err != nil {
		return nil, err
	}
	return map[string]string{"TaskHandle": t.Handle}, nil
}

func listMoveTasks(_ context.Context, s *SQS, in *struct {
	SourceArn  string
	MaxResults *int
}) (any, error) {
	src, err := s.QueueByARN(in.SourceArn)
	if err != nil {
		return nil, err
	}
	max := 1
	if in.MaxResults != nil {
		max = *in.MaxResults
	}
	if max < 1 || max > 10 {
		return nil, invalidParameter("Value %d for parameter MaxResults is invalid. Reason: must be between 1 and 10.", max)
	}
	results := []map[string]any{}
	for _, t := range s.MoveTasks(src, max) {
		res := map[string]any{
			"Status": t.Status, "SourceArn": t.Source.ARN(), "ApproximateNumberOfMessagesMoved": t.Moved,
			"ApproximateNumberOfMessagesToMove": t.ToMove, "StartedTimestamp": t.Started.UnixMilli(),
		}
		if t.Status == "RUNNING" {
			res["TaskHandle"] = t.Handle
		}
		if t.Destination != nil {
			res["DestinationArn"] = t.Destination.ARN()
		}
		if t.Rate > 0 {
			res["MaxNumberOfMessagesPerSecond"] = t.Rate
		}
		if t.FailureReason != "" {
			res["FailureReason"] = t.FailureReason
		}
		results = append(results, res)
	}
	return map[string]any{"Results": results}, nil
}

func cancelMoveTask(_ context.Context, s *SQS, in *struct{ TaskHandle string }) (any, error) {
	moved, err := s.CancelMoveTask(in.TaskHandle)
	if err != nil {
		return nil, err
	}
	return map[string]int{"ApproximateNumberOfMessagesMoved": moved}, nil
}
