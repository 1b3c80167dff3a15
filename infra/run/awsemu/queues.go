package awsemu

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

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
	now := s.now()
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
	now := s.now()
	for _, m := range q.msgs {
		switch {
		case m == nil || q.expired(m, now):
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

// expired reports whether m has outlived the queue's retention period:
// it is gone, though only a receive drops it. The caller holds s.mu.
func (q *Queue) expired(m *message, now time.Time) bool {
	return now.Sub(m.sent) >= q.attrs.retention
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
	q.attrs, q.modified = a, s.now()
	q.notify()
	return nil
}
