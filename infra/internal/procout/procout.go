// Package procout collects what a child process (DynamoDB Local, the Lambda
// Runtime Interface Emulator) writes, for error messages and log checks.
package procout

import (
	"bytes"
	"sync"
)

// Limit is how much a Buffer keeps: a long-running child's chatter must not
// grow the parent without bound. Writes past it are dropped.
const Limit = 1 << 20

// Buffer is an io.Writer safe for concurrent use (a child's stdout and
// stderr copied by two goroutines) whose contents can be read at any time.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write keeps p while the buffer holds less than Limit bytes.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() > Limit {
		return len(p), nil
	}
	return l.b.Write(p)
}

// String returns what was kept.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
