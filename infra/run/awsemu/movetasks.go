package awsemu

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/google/uuid"
)

// moveHold hides the messages a task has taken until it moves them.
const moveHold = time.Hour

// Message move tasks: StartMessageMoveTask, ListMessageMoveTasks,
// CancelMessageMoveTask — what the console's "Start DLQ redrive" runs.
type moveTasks struct {
	tasks []*MoveTask // guarded by SQS.mu; oldest first
}

// MoveTask is one message move task, as ListMessageMoveTasks reports it.
type MoveTask struct {
	Handle        string
	Source        *Queue
	Destination   *Queue // nil: each message goes back to the queue it died in
	Rate          int    // messages per second; 0: as fast as it goes
	Status        string // RUNNING, COMPLETED, CANCELLED, FAILED
	Moved, ToMove int
	FailureReason string
	Started       time.Time
	cancel        context.CancelFunc
	pending       []string // ids of the messages it holds, still to move
	defaultOrigin string   // the one queue that names Source as its dead-letter queue
}

// StartMoveTask moves the messages that are in the dead-letter queue src
// when it starts (later ones wait for the next task) to dst, or — dst nil
// — each back to the queue whose redrive policy sent it there (the only
// such queue for a message sent to the dead-letter queue directly).
func (s *SQS) StartMoveTask(src, dst *Queue, rate int) (*MoveTask, error) {
	if rate < 0 || rate > 500 {
		return nil, invalidParameter("Value %d for parameter MaxNumberOfMessagesPerSecond is invalid. Reason: must be between 1 and 500.", rate)
	}
	sources := s.DeadLetterSources(src)
	if len(sources) == 0 {
		return nil, invalidParameter("Source queue must be configured as a Dead Letter Queue.")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.moves.tasks {
		if t.Source == src && t.Status == "RUNNING" {
			return nil, sqsError("UnsupportedOperation", "AWS.SimpleQueueService.UnsupportedOperation", "There is already a task running. Only one active task is allowed for a source queue arn at a given time.")
		}
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	ctx, cancel := context.WithCancel(s.ctx)
	t := &MoveTask{Handle: hex.EncodeToString(b), Source: src, Destination: dst, Rate: rate, Status: "RUNNING", Started: s.now(), cancel: cancel}
	if len(sources) == 1 {
		t.defaultOrigin = sources[0].name
	}
	// The visible messages of the queue now are what this task moves; it
	// holds them (hidden, their receipt handles void) until it does.
	now := s.now()
	for _, m := range src.msgs {
		if m != nil && !src.expired(m, now) && !m.visibleAt.After(now) {
			m.visibleAt, m.handle, m.delayed = now.Add(moveHold), "", false
			t.pending = append(t.pending, m.id)
		}
	}
	t.ToMove = len(t.pending)
	s.moves.tasks = append(s.moves.tasks, t)
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		s.runMoveTask(ctx, t)
	}()
	return t, nil
}

func (s *SQS) runMoveTask(ctx context.Context, t *MoveTask) {
	for _, id := range t.pending {
		if ctx.Err() != nil {
			break
		}
		if err := s.moveOne(t, id); err != nil {
			s.finish(t, "FAILED", err.Error())
			return
		}
		if t.Rate > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(time.Second / time.Duration(t.Rate)):
			}
		}
	}
	if ctx.Err() != nil {
		s.finish(t, "CANCELLED", "")
		return
	}
	s.finish(t, "COMPLETED", "")
}

// moveOne moves one of the messages the task holds, unless it was
// deleted meanwhile.
func (s *SQS) moveOne(t *MoveTask, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := t.Source.byID[id]
	if !ok {
		return nil
	}
	dst := t.Destination
	if dst == nil {
		name := m.origin
		if name == "" {
			name = t.defaultOrigin
		}
		dst = s.queues[name]
	}
	if dst == nil {
		m.visibleAt = s.now()
		return invalidParameter("the queue this message died in does not exist; name a DestinationArn")
	}
	t.Source.remove(m)
	now := s.now()
	dst.push(&message{id: uuid.NewString(), body: m.body, attrs: m.attrs, md5Body: m.md5Body, md5Attrs: m.md5Attrs, sent: now, visibleAt: now, group: m.group})
	t.Moved++
	return nil
}

// finish records how a task ended and returns the messages it still
// holds to the queue.
func (s *SQS) finish(t *MoveTask, status, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.Status == "RUNNING" {
		t.Status, t.FailureReason = status, reason
	}
	now := s.now()
	for _, id := range t.pending {
		if m, ok := t.Source.byID[id]; ok && m.handle == "" && m.visibleAt.After(now) {
			m.visibleAt = now
		}
	}
	t.pending = nil
	t.Source.notify()
}

// MoveTasks lists the most recent tasks of a source queue, newest first.
func (s *SQS) MoveTasks(src *Queue, max int) []MoveTask {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []MoveTask
	for i := len(s.moves.tasks) - 1; i >= 0 && len(out) < max; i-- {
		if t := s.moves.tasks[i]; t.Source == src {
			out = append(out, *t)
		}
	}
	return out
}

// CancelMoveTask cancels a running task and returns how many messages it
// moved.
func (s *SQS) CancelMoveTask(handle string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.moves.tasks {
		if t.Handle == handle && t.Status == "RUNNING" {
			t.cancel()
			t.Status = "CANCELLED"
			return t.Moved, nil
		}
	}
	return 0, sqsError("ResourceNotFoundException", "ResourceNotFoundException", "The task %s does not exist or is not running.", handle)
}
