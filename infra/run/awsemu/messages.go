package awsemu

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

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
	now := s.now()
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

// Receive takes up to Max visible messages, waiting up to Wait (on the
// SQS's Clock) for one.
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
	deadline := s.now().Add(wait)
	for {
		s.mu.Lock()
		now := s.now()
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
		// On the SQS's clock: a ManualClock's Advance past wake wakes it.
		woke := make(chan struct{})
		stop := s.clock().AfterFunc(wake.Sub(now), func() { close(woke) })
		select {
		case <-ctx.Done():
			stop()
			return nil, nil
		case <-s.ctx.Done():
			stop()
			return nil, nil
		case <-changed:
		case <-woke:
		}
		stop()
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
		case q.expired(m, now):
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
				// The message itself moves, with its id, sent time and
				// receive count: SQS keeps a moved message's enqueue
				// timestamp ("Setting-up dead-letter queue retention in
				// Amazon SQS", SQS Developer Guide), whereas a redrive
				// (movetasks.go) makes a new message.
				moved := *m
				moved.handle, moved.visibleAt, moved.origin = "", now, q.name
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
			q.processed(m, q.s.now())
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
		now := q.s.now()
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
