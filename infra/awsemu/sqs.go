package awsemu

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Limits of SQS that the emulator enforces as SQS does.
const (
	MaxMessageSize      = 256 * 1024
	MaxBatchEntries     = 10
	MaxWait             = 20 * time.Second
	MaxVisibility       = 12 * time.Hour
	MaxDelay            = 15 * time.Minute
	DefaultVisibility   = 30 * time.Second
	DefaultRetention    = 4 * 24 * time.Hour
	maxQueueNameLength  = 80
	compactAfterDeleted = 64
)

// SQS is an in-process Amazon SQS: standard queues in memory. Its zero
// value is not usable; call NewSQS.
type SQS struct {
	region, account string
	base            string

	mu     sync.Mutex
	queues map[string]*Queue // by name
	moves  moveTasks

	ctx    context.Context
	cancel context.CancelFunc
	bg     sync.WaitGroup
}

// NewSQS returns an empty SQS whose queue URLs start with base (the
// address clients reach it at, e.g. http://127.0.0.1:8081), in the given
// region and account.
func NewSQS(base, region, account string) *SQS {
	ctx, cancel := context.WithCancel(context.Background())
	return &SQS{region: region, account: account, base: strings.TrimSuffix(base, "/"), queues: map[string]*Queue{}, ctx: ctx, cancel: cancel}
}

// Close ends the long polls and stops the running message move tasks.
func (s *SQS) Close() {
	s.cancel()
	s.bg.Wait()
}

// Queue is one standard queue.
type Queue struct {
	s       *SQS
	name    string
	created time.Time

	// Guarded by s.mu.
	modified time.Time
	attrs    queueAttributes
	msgs     []*message // in the order they were sent; deleted ones are nil
	byID     map[string]*message
	deleted  int
	changed  chan struct{}      // closed when a message may have become visible
	tenants  map[string]*tenant // by MessageGroupId, while the group has messages
	// Recent consumer time spent on all the queue's messages.
	processing decayed
}

type message struct {
	id, body     string
	attrs        map[string]MessageAttribute
	md5Body      string
	md5Attrs     string
	sent         time.Time
	visibleAt    time.Time
	receives     int
	firstReceive time.Time
	handle       string    // of the latest receive
	index        int       // in Queue.msgs
	origin       string    // the queue whose redrive policy moved it here
	delayed      bool      // sent with a delay and not received since
	group        string    // MessageGroupId: the tenant, for fair queueing
	lastReceive  time.Time // of the latest receive
}

// MessageAttribute is a message attribute as SQS carries it.
type MessageAttribute struct {
	DataType    string `json:"DataType"`
	StringValue string `json:"StringValue,omitempty"`
	BinaryValue []byte `json:"BinaryValue,omitempty"`
}

// Message is a message as a receive returns it.
type Message struct {
	ID            string
	ReceiptHandle string
	Body          string
	MD5OfBody     string
	MD5OfAttrs    string
	Attributes    map[string]MessageAttribute
	// System attributes: SenderId, SentTimestamp, ApproximateReceiveCount,
	// ApproximateFirstReceiveTimestamp, and MessageGroupId when it was
	// sent with one.
	System map[string]string
}

// Sent is what a send returns.
type Sent struct {
	ID         string
	MD5OfBody  string
	MD5OfAttrs string
}

// Error is an SQS error: its code (the JSON protocol's __type without the
// namespace), the code the query protocol used (x-amzn-query-error), the
// HTTP status, and a message.
type Error struct {
	Code, QueryCode string
	Status          int
	Message         string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func sqsError(code, queryCode, format string, args ...any) *Error {
	return &Error{Code: code, QueryCode: queryCode, Status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

func invalidParameter(format string, args ...any) *Error {
	return sqsError("InvalidParameterValue", "InvalidParameterValue", format, args...)
}

func errNoQueue() *Error {
	return sqsError("QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", "The specified queue does not exist.")
}

func errHandle(handle string) *Error {
	return sqsError("ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid", "The input receipt handle %q is not a valid receipt handle.", handle)
}

var queueNameRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)

// CreateQueue creates a standard queue, or returns the existing one when
// its attributes are the same (as SQS does); other attributes are
// QueueNameExists. FIFO queues are refused: the emulator has none.
func (s *SQS) CreateQueue(name string, attrs map[string]string) (*Queue, error) {
	if strings.HasSuffix(name, ".fifo") || attrs["FifoQueue"] == "true" {
		return nil, sqsError("UnsupportedOperation", "AWS.SimpleQueueService.UnsupportedOperation", "FIFO queues are not emulated locally")
	}
	if !queueNameRe.MatchString(name) {
		return nil, invalidParameter("Can only include alphanumeric characters, hyphens, or underscores. 1 to %d in length", maxQueueNameLength)
	}
	a := defaultAttributes()
	if err := a.set(s, attrs); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if q, ok := s.queues[name]; ok {
		if !q.attrs.same(a, attrs) {
			return nil, sqsError("QueueNameExists", "QueueAlreadyExists", "A queue already exists with the same name and a different value for attribute(s)")
		}
		return q, nil
	}
	now := time.Now()
	q := &Queue{s: s, name: name, created: now, modified: now, attrs: a, byID: map[string]*message{}, changed: make(chan struct{}), tenants: map[string]*tenant{}}
	s.queues[name] = q
	return q, nil
}

// DeleteQueue deletes a queue and its messages.
func (s *SQS) DeleteQueue(q *Queue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.queues, q.name)
	q.notify()
}

// QueueByName finds a queue.
func (s *SQS) QueueByName(name string) (*Queue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q, ok := s.queues[name]; ok {
		return q, nil
	}
	return nil, errNoQueue()
}

// QueueByURL finds a queue by its URL, whatever host the URL names (the
// clients of one emulator may reach it by different addresses).
func (s *SQS) QueueByURL(u string) (*Queue, error) {
	if u == "" {
		return nil, invalidParameter("Value for parameter QueueUrl is invalid. Reason: it is missing.")
	}
	i := strings.LastIndexByte(strings.TrimSuffix(u, "/"), '/')
	return s.QueueByName(strings.TrimSuffix(u, "/")[i+1:])
}

// QueueByARN finds a queue by its ARN.
func (s *SQS) QueueByARN(arn string) (*Queue, error) {
	name, ok := strings.CutPrefix(arn, s.arnPrefix())
	if !ok {
		return nil, sqsError("ResourceNotFoundException", "ResourceNotFoundException", "The resource %s does not exist.", arn)
	}
	q, err := s.QueueByName(name)
	if err != nil {
		return nil, sqsError("ResourceNotFoundException", "ResourceNotFoundException", "The resource %s does not exist.", arn)
	}
	return q, nil
}

// Queues lists the queues whose names start with prefix, sorted by name.
func (s *SQS) Queues(prefix string) []*Queue {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Queue
	for name, q := range s.queues {
		if strings.HasPrefix(name, prefix) {
			out = append(out, q)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// DeadLetterSources lists the queues whose redrive policy names q.
func (s *SQS) DeadLetterSources(q *Queue) []*Queue {
	var out []*Queue
	for _, src := range s.Queues("") {
		s.mu.Lock()
		rp := src.attrs.redrive
		s.mu.Unlock()
		if rp != nil && rp.target == q.ARN() {
			out = append(out, src)
		}
	}
	return out
}

// Name is the queue's name.
func (q *Queue) Name() string { return q.name }

// URL is the queue's URL.
func (q *Queue) URL() string { return q.s.base + "/" + q.s.account + "/" + q.name }

// arnPrefix is what the ARNs of this SQS's queues start with.
func (s *SQS) arnPrefix() string { return fmt.Sprintf("arn:aws:sqs:%s:%s:", s.region, s.account) }

// ARN is the queue's ARN.
func (q *Queue) ARN() string {
	return q.s.arnPrefix() + q.name
}

// notify wakes the long polls of q. The caller holds s.mu.
func (q *Queue) notify() {
	close(q.changed)
	q.changed = make(chan struct{})
}

// SendOptions are a send's optional parameters.
type SendOptions struct {
	Attributes map[string]MessageAttribute
	// Delay hides the message for this long (nil: the queue's
	// DelaySeconds).
	Delay *time.Duration
	// GroupID is the MessageGroupId. On a standard queue it names the
	// message's tenant for fair queueing (see take); it neither orders
	// nor locks the group's messages, as it would on a FIFO queue.
	GroupID string
}

// Send puts a message on the queue.
func (q *Queue) Send(body string, o SendOptions) (Sent, error) {
	attrs, delay := o.Attributes, o.Delay
	if err := validateMessage(body, attrs); err != nil {
		return Sent{}, err
	}
	if err := validateGroupID(o.GroupID); err != nil {
		return Sent{}, err
	}
	if delay != nil && (*delay < 0 || *delay > MaxDelay) {
		return Sent{}, invalidParameter("Value %d for parameter DelaySeconds is invalid. Reason: must be between 0 and 900, if provided.", int(*delay/time.Second))
	}
	s := q.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if size := len(body) + attributesSize(attrs); size > q.attrs.maxSize {
		return Sent{}, invalidParameter("One or more parameters are invalid. Reason: Message must be shorter than %d bytes.", q.attrs.maxSize)
	}
	d := q.attrs.delay
	if delay != nil {
		d = *delay
	}
	now := time.Now()
	m := &message{id: uuid.NewString(), body: body, attrs: attrs, md5Body: md5Hex(body), md5Attrs: attributesMD5(attrs), sent: now, visibleAt: now.Add(d), delayed: d > 0, group: o.GroupID}
	q.push(m)
	return Sent{ID: m.id, MD5OfBody: m.md5Body, MD5OfAttrs: m.md5Attrs}, nil
}

// push appends m to q. The caller holds s.mu.
func (q *Queue) push(m *message) {
	m.index = len(q.msgs)
	q.msgs = append(q.msgs, m)
	q.byID[m.id] = m
	if m.group != "" {
		q.tenant(m.group).lastSent = m.sent
	}
	q.notify()
}

// remove drops m from q. The caller holds s.mu.
func (q *Queue) remove(m *message) {
	delete(q.byID, m.id)
	q.msgs[m.index] = nil
	q.deleted++
	if q.deleted > compactAfterDeleted && q.deleted > len(q.msgs)/2 {
		kept := q.msgs[:0]
		for _, m := range q.msgs {
			if m != nil {
				m.index = len(kept)
				kept = append(kept, m)
			}
		}
		clear(q.msgs[len(kept):])
		q.msgs, q.deleted = kept, 0
	}
}

// ReceiveOptions are a receive's parameters.
type ReceiveOptions struct {
	// Max is 1 to 10 (0: 1).
	Max int
	// Wait is the long poll, up to 20 s (nil: the queue's
	// ReceiveMessageWaitTimeSeconds).
	Wait *time.Duration
	// Visibility hides the received messages for this long (nil: the
	// queue's VisibilityTimeout).
	Visibility *time.Duration
}

// Receive takes up to Max visible messages, waiting up to Wait for one.
// A message received more often than the redrive policy's
// maxReceiveCount goes to the dead-letter queue instead, as in SQS. A
// cancelled context ends the wait with what it has (nothing).
func (q *Queue) Receive(ctx context.Context, o ReceiveOptions) ([]Message, error) {
	if o.Max == 0 {
		o.Max = 1
	}
	if o.Max < 1 || o.Max > MaxBatchEntries {
		return nil, invalidParameter("Value %d for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided.", o.Max)
	}
	if o.Wait != nil && (*o.Wait < 0 || *o.Wait > MaxWait) {
		return nil, invalidParameter("Value %d for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided.", int(*o.Wait/time.Second))
	}
	if o.Visibility != nil && (*o.Visibility < 0 || *o.Visibility > MaxVisibility) {
		return nil, invalidParameter("Value %d for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <= 43200, if provided.", int(*o.Visibility/time.Second))
	}
	s := q.s
	s.mu.Lock()
	wait := q.attrs.wait
	s.mu.Unlock()
	if o.Wait != nil {
		wait = *o.Wait
	}
	deadline := time.Now().Add(wait)
	for {
		s.mu.Lock()
		now := time.Now()
		got, next := q.take(now, o)
		changed := q.changed
		s.mu.Unlock()
		if len(got) > 0 || !now.Before(deadline) {
			return got, nil
		}
		wake := deadline
		if !next.IsZero() && next.Before(wake) {
			wake = next
		}
		t := time.NewTimer(time.Until(wake))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, nil
		case <-s.ctx.Done():
			t.Stop()
			return nil, nil
		case <-changed:
		case <-t.C:
		}
		t.Stop()
	}
}

// take receives up to o.Max visible messages, and returns when the next
// hidden one becomes visible. The caller holds s.mu.
//
// It serves tenants fairly, as SQS fair queues do (see fair.go): the
// visible messages of quiet tenants first, in the order they were sent;
// then those of noisy tenants, the tenant with the fewest messages in
// flight first. Messages without a MessageGroupId are each a tenant of
// their own, so they are always quiet: a queue without groups is served
// in send order, as before fair queues.
func (q *Queue) take(now time.Time, o ReceiveOptions) (got []Message, next time.Time) {
	visibility := q.attrs.visibility
	if o.Visibility != nil {
		visibility = *o.Visibility
	}
	var expired []*message
	f := newFairness(q, now)
	for _, m := range q.msgs {
		switch {
		case m == nil:
		case now.Sub(m.sent) >= q.attrs.retention:
			expired = append(expired, m)
		case m.visibleAt.After(now):
			if next.IsZero() || m.visibleAt.Before(next) {
				next = m.visibleAt
			}
			f.hidden(m)
		default:
			f.visible(m)
		}
	}
	for _, m := range expired {
		q.remove(m)
	}
	f.forgetDrained()
	for len(got) < o.Max {
		m := f.pick()
		if m == nil {
			break
		}
		if rp := q.attrs.redrive; rp != nil && m.receives >= rp.maxReceives {
			if dlq, ok := q.s.queues[rp.queue]; ok {
				q.remove(m)
				moved := *m
				moved.receives, moved.firstReceive, moved.handle, moved.visibleAt, moved.origin = 0, time.Time{}, "", now, q.name
				dlq.push(&moved)
				continue
			}
		}
		m.receives++
		m.delayed = false
		if m.firstReceive.IsZero() {
			m.firstReceive = now
		}
		m.lastReceive = now
		m.visibleAt = now.Add(visibility)
		m.handle = newHandle(q.name, m.id)
		f.flying(m)
		got = append(got, m.received())
	}
	return got, next
}

func (m *message) received() Message {
	out := Message{
		ID: m.id, ReceiptHandle: m.handle, Body: m.body, MD5OfBody: m.md5Body, MD5OfAttrs: m.md5Attrs, Attributes: m.attrs,
		System: map[string]string{
			"SenderId":                         "AIDALOCAL",
			"SentTimestamp":                    strconv.FormatInt(m.sent.UnixMilli(), 10),
			"ApproximateReceiveCount":          strconv.Itoa(m.receives),
			"ApproximateFirstReceiveTimestamp": strconv.FormatInt(m.firstReceive.UnixMilli(), 10),
		},
	}
	if m.group != "" {
		out.System["MessageGroupId"] = m.group
	}
	return out
}

// A receipt handle names the queue, the message and one receive of it.
func newHandle(queue, id string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString([]byte(queue + "\n" + id + "\n" + hex.EncodeToString(b)))
}

// withHandle runs f, holding s.mu, on the message a receipt handle
// names: nil when it was deleted; current reports whether the handle is
// of its latest receive.
func (q *Queue) withHandle(handle string, f func(m *message, current bool) error) error {
	raw, err := base64.RawURLEncoding.DecodeString(handle)
	parts := strings.Split(string(raw), "\n")
	if err != nil || len(parts) != 3 || parts[0] != q.name {
		return errHandle(handle)
	}
	q.s.mu.Lock()
	defer q.s.mu.Unlock()
	m := q.byID[parts[1]]
	return f(m, m != nil && m.handle == handle)
}

// Delete deletes the message a receipt handle names. As in SQS, a handle
// of an earlier receive succeeds without deleting (the message was
// received again since), and deleting twice succeeds.
func (q *Queue) Delete(handle string) error {
	return q.withHandle(handle, func(m *message, current bool) error {
		if current {
			q.processed(m, time.Now())
			q.remove(m)
		}
		return nil
	})
}

// ChangeVisibility makes an in-flight message visible again after d
// (counted from now).
func (q *Queue) ChangeVisibility(handle string, d time.Duration) error {
	if d < 0 || d > MaxVisibility {
		return invalidParameter("Value %d for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <= 43200.", int(d/time.Second))
	}
	return q.withHandle(handle, func(m *message, current bool) error {
		now := time.Now()
		if !current {
			return invalidParameter("Value %s for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout change.", handle)
		}
		if !m.visibleAt.After(now) {
			return sqsError("MessageNotInflight", "AWS.SimpleQueueService.MessageNotInflight", "The message referred to isn't in flight.")
		}
		m.visibleAt = now.Add(d)
		q.notify()
		return nil
	})
}

// Purge deletes every message of the queue.
func (q *Queue) Purge() {
	s := q.s
	s.mu.Lock()
	defer s.mu.Unlock()
	q.msgs, q.byID, q.deleted, q.tenants = nil, map[string]*message{}, 0, map[string]*tenant{}
	q.notify()
}

// Depth counts the queue's messages: visible, in flight, and delayed
// (sent with a delay that has not passed).
func (q *Queue) Depth() (visible, inFlight, delayed int) {
	s := q.s
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	for _, m := range q.msgs {
		switch {
		case m == nil:
		case !m.visibleAt.After(now):
			visible++
		case m.delayed:
			delayed++
		default:
			inFlight++
		}
	}
	return visible, inFlight, delayed
}

// validateMessage applies SQS's rules for bodies and attributes.
func validateMessage(body string, attrs map[string]MessageAttribute) error {
	if body == "" {
		return sqsError("MissingParameter", "MissingParameter", "The request must contain the parameter MessageBody.")
	}
	if !validChars(body) {
		return sqsError("InvalidMessageContents", "InvalidMessageContents", "Invalid characters found in the message body.")
	}
	if len(attrs) > 10 {
		return invalidParameter("Number of message attributes [%d] exceeds the allowed maximum [10].", len(attrs))
	}
	for name, a := range attrs {
		if name == "" || len(name) > 256 || strings.HasPrefix(strings.ToLower(name), "aws.") || strings.HasPrefix(strings.ToLower(name), "amazon.") {
			return invalidParameter("Message attribute name '%s' is invalid.", name)
		}
		base, _, _ := strings.Cut(a.DataType, ".")
		switch base {
		case "String", "Number":
			if a.StringValue == "" {
				return invalidParameter("Message (user) attribute '%s' must contain a non-empty value of type '%s'.", name, base)
			}
			if !validChars(a.StringValue) {
				return sqsError("InvalidMessageContents", "InvalidMessageContents", "Invalid characters found in the message attribute %s.", name)
			}
		case "Binary":
			if len(a.BinaryValue) == 0 {
				return invalidParameter("Message (user) attribute '%s' must contain a non-empty value of type 'Binary'.", name)
			}
		default:
			return invalidParameter("The type of message (user) attribute '%s' is invalid. You must use only the following supported type prefixes: Binary, Number, String.", name)
		}
	}
	return nil
}

// validChars: #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF.
func validChars(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		ok := r == 0x9 || r == 0xA || r == 0xD || (r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
		if !ok {
			return false
		}
	}
	return true
}

func attributesSize(attrs map[string]MessageAttribute) int {
	n := 0
	for name, a := range attrs {
		n += len(name) + len(a.DataType) + len(a.StringValue) + len(a.BinaryValue)
	}
	return n
}

// queueAttributes are a queue's settable attributes.
type queueAttributes struct {
	visibility, retention, delay, wait time.Duration
	maxSize                            int
	redrive                            *redrivePolicy
	// Accepted and reported back, with no effect locally.
	stored map[string]string
}

type redrivePolicy struct {
	target      string // the dead-letter queue's ARN
	queue       string // and its name
	maxReceives int
	raw         string
}

func defaultAttributes() queueAttributes {
	return queueAttributes{visibility: DefaultVisibility, retention: DefaultRetention, maxSize: MaxMessageSize, stored: map[string]string{}}
}

// settable lists the attributes CreateQueue and SetQueueAttributes take:
// name -> the range of its value in seconds/bytes (nil: a string).
var settable = map[string]*[2]int{
	"VisibilityTimeout":             {0, 43200},
	"MessageRetentionPeriod":        {60, 1209600},
	"DelaySeconds":                  {0, 900},
	"ReceiveMessageWaitTimeSeconds": {0, 20},
	"MaximumMessageSize":            {1024, MaxMessageSize},
	"RedrivePolicy":                 nil,
	"RedriveAllowPolicy":            nil,
	"Policy":                        nil,
	"SqsManagedSseEnabled":          nil,
	"KmsMasterKeyId":                nil,
	"KmsDataKeyReusePeriodSeconds":  nil,
}

// set applies attrs to a, checking names and values.
func (a *queueAttributes) set(s *SQS, attrs map[string]string) error {
	for name, v := range attrs {
		bounds, ok := settable[name]
		if !ok {
			if name == "FifoQueue" || name == "ContentBasedDeduplication" {
				return sqsError("UnsupportedOperation", "AWS.SimpleQueueService.UnsupportedOperation", "FIFO queues are not emulated locally")
			}
			return sqsError("InvalidAttributeName", "InvalidAttributeName", "Unknown Attribute %s.", name)
		}
		if bounds != nil {
			n, err := strconv.Atoi(v)
			if err != nil || n < bounds[0] || n > bounds[1] {
				return sqsError("InvalidAttributeValue", "InvalidAttributeValue", "Invalid value for the parameter %s.", name)
			}
			d := time.Duration(n) * time.Second
			switch name {
			case "VisibilityTimeout":
				a.visibility = d
			case "MessageRetentionPeriod":
				a.retention = d
			case "DelaySeconds":
				a.delay = d
			case "ReceiveMessageWaitTimeSeconds":
				a.wait = d
			case "MaximumMessageSize":
				a.maxSize = n
			}
			continue
		}
		if name == "RedrivePolicy" {
			if v == "" {
				a.redrive = nil
				continue
			}
			rp, err := parseRedrivePolicy(s, v)
			if err != nil {
				return err
			}
			a.redrive = rp
			continue
		}
		a.stored[name] = v
	}
	return nil
}

func parseRedrivePolicy(s *SQS, v string) (*redrivePolicy, error) {
	var raw struct {
		Target string `json:"deadLetterTargetArn"`
		Max    any    `json:"maxReceiveCount"`
	}
	if err := json.Unmarshal([]byte(v), &raw); err != nil {
		return nil, sqsError("InvalidAttributeValue", "InvalidAttributeValue", "Invalid value for the parameter RedrivePolicy. Reason: Redrive policy is not a valid JSON map.")
	}
	n, err := strconv.Atoi(strings.TrimSuffix(fmt.Sprint(raw.Max), ".0"))
	if err != nil || n < 1 || n > 1000 {
		return nil, sqsError("InvalidAttributeValue", "InvalidAttributeValue", "Value %v for parameter RedrivePolicy is invalid. Reason: Invalid value for maxReceiveCount: must be 1 to 1000.", raw.Max)
	}
	dlq, err := s.QueueByARN(raw.Target)
	if err != nil {
		return nil, sqsError("InvalidAttributeValue", "InvalidAttributeValue", "Value %s for parameter RedrivePolicy is invalid. Reason: Dead letter target does not exist.", v)
	}
	b, _ := json.Marshal(map[string]any{"deadLetterTargetArn": raw.Target, "maxReceiveCount": n})
	return &redrivePolicy{target: raw.Target, queue: dlq.name, maxReceives: n, raw: string(b)}, nil
}

// same reports whether a CreateQueue of an existing queue asks for what
// it has.
func (a queueAttributes) same(b queueAttributes, asked map[string]string) bool {
	if a.visibility != b.visibility || a.retention != b.retention || a.delay != b.delay || a.wait != b.wait || a.maxSize != b.maxSize {
		return false
	}
	if (a.redrive == nil) != (b.redrive == nil) || (a.redrive != nil && a.redrive.raw != b.redrive.raw) {
		return false
	}
	for k, v := range asked {
		if _, ok := a.stored[k]; ok && a.stored[k] != v {
			return false
		}
	}
	return true
}

// Attributes returns the queue's attributes by name ("All" for every
// one), as GetQueueAttributes does.
func (q *Queue) Attributes(names []string) (map[string]string, error) {
	visible, inFlight, delayed := q.Depth()
	s := q.s
	s.mu.Lock()
	a := q.attrs
	modified := q.modified
	s.mu.Unlock()
	all := map[string]string{
		"QueueArn":                              q.ARN(),
		"ApproximateNumberOfMessages":           strconv.Itoa(visible),
		"ApproximateNumberOfMessagesNotVisible": strconv.Itoa(inFlight),
		"ApproximateNumberOfMessagesDelayed":    strconv.Itoa(delayed),
		"CreatedTimestamp":                      strconv.FormatInt(q.created.Unix(), 10),
		"LastModifiedTimestamp":                 strconv.FormatInt(modified.Unix(), 10),
		"VisibilityTimeout":                     strconv.Itoa(int(a.visibility / time.Second)),
		"MessageRetentionPeriod":                strconv.Itoa(int(a.retention / time.Second)),
		"DelaySeconds":                          strconv.Itoa(int(a.delay / time.Second)),
		"ReceiveMessageWaitTimeSeconds":         strconv.Itoa(int(a.wait / time.Second)),
		"MaximumMessageSize":                    strconv.Itoa(a.maxSize),
	}
	if a.redrive != nil {
		all["RedrivePolicy"] = a.redrive.raw
	}
	for k, v := range a.stored {
		all[k] = v
	}
	out := map[string]string{}
	for _, name := range names {
		if name == "All" {
			return all, nil
		}
		v, ok := all[name]
		if !ok {
			if _, known := settable[name]; known {
				continue // settable but not set
			}
			return nil, sqsError("InvalidAttributeName", "InvalidAttributeName", "Unknown Attribute %s.", name)
		}
		out[name] = v
	}
	return out, nil
}

// SetAttributes changes the queue's attributes.
func (q *Queue) SetAttributes(attrs map[string]string) error {
	s := q.s
	s.mu.Lock()
	a := q.attrs
	a.stored = maps.Clone(a.stored)
	s.mu.Unlock()
	if err := a.set(s, attrs); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q.attrs, q.modified = a, time.Now()
	q.notify()
	return nil
}
