package local

import (
	"sync"
	"time"
)

// Meter counts what AWS bills for the glue the local runtime plays: Lambda
// invocations and their billed duration per function, API Gateway
// requests, and the SQS requests of Lambda's queue pollers (the event
// source mapping's ReceiveMessage, empty ones included, and its
// DeleteMessageBatch). Set Config.Meter to count; a nil Meter counts
// nothing and costs nothing. The functions' own AWS calls are counted by
// client middleware (app.WithDynamoDB, app.WithSQS, app.WithScheduler).
type Meter struct {
	mu  sync.Mutex
	now Reading
}

// Reading is what a Meter counted.
type Reading struct {
	// Functions is by logical id.
	Functions map[string]Invocations
	// APIRequests is the requests the HTTP API received.
	APIRequests int
	// Receives is the pollers' ReceiveMessage requests, EmptyReceives
	// those that returned no message; ReceiveChunks bills every 64 KB of
	// a receive's payload as one request, as SQS does.
	Receives, EmptyReceives, ReceiveChunks int
	// DeleteBatches is the DeleteMessageBatch requests Lambda makes for
	// the messages a batch handled (the local poller deletes them one by
	// one; Lambda sends one request per batch).
	DeleteBatches int
}

// Invocations is how often a function ran and for how long, rounded up to
// the millisecond per invocation as Lambda bills.
type Invocations struct {
	Count    int
	BilledMS int64
}

// Read returns a copy of the counts.
func (m *Meter) Read() Reading {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.now
	out.Functions = make(map[string]Invocations, len(m.now.Functions))
	for k, v := range m.now.Functions {
		out.Functions[k] = v
	}
	return out
}

// Reset forgets the counts.
func (m *Meter) Reset() {
	m.mu.Lock()
	m.now = Reading{}
	m.mu.Unlock()
}

// invocation starts timing one invocation of fn; the returned func ends it.
func (m *Meter) invocation(fn string) func() {
	if m == nil {
		return func() {}
	}
	start := time.Now()
	return func() {
		ms := (time.Since(start) + time.Millisecond - 1) / time.Millisecond
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.now.Functions == nil {
			m.now.Functions = map[string]Invocations{}
		}
		v := m.now.Functions[fn]
		v.Count++
		v.BilledMS += int64(max(ms, 1))
		m.now.Functions[fn] = v
	}
}

func (m *Meter) apiRequest() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.now.APIRequests++
	m.mu.Unlock()
}

// sqsChunk is the payload size SQS bills as one request.
const sqsChunk = 64 << 10

// SQSChunks is how many requests SQS bills for one request carrying
// payload bytes: one per 64 KB, at least one.
func SQSChunks(payload int) int { return max(1, (payload+sqsChunk-1)/sqsChunk) }

// received counts one poller ReceiveMessage that got msgs messages of
// payload bytes in all.
func (m *Meter) received(msgs, payload int) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now.Receives++
	m.now.ReceiveChunks += SQSChunks(payload)
	if msgs == 0 {
		m.now.EmptyReceives++
	}
}

func (m *Meter) deletedBatch() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.now.DeleteBatches++
	m.mu.Unlock()
}
