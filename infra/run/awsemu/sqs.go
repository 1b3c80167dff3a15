package awsemu

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/botix/public-api/internal/awslimits"
)

// Limits of SQS that the emulator enforces as SQS does (the sizes and
// batch entries are AWS's, from package awslimits).
const (
	MaxMessageSize      = awslimits.SQSMessageBytes
	MaxBatchEntries     = awslimits.SQSBatchEntries
	MaxBatchSize        = awslimits.SQSBatchBytes
	MaxWait             = 20 * time.Second
	MaxVisibility       = 12 * time.Hour
	MaxDelay            = awslimits.SQSMaxDelay
	DefaultVisibility   = 30 * time.Second
	DefaultRetention    = 4 * 24 * time.Hour
	maxQueueNameLength  = 80
	compactAfterDeleted = 64
)

// SQS is an in-process Amazon SQS: standard queues in memory. Its zero
// value is not usable; call NewSQS.
type SQS struct {
	// Clock is the time its queues go by (nil: the wall clock). Set it
	// before the SQS is used.
	Clock Clock

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

func (s *SQS) clock() Clock {
	if s.Clock == nil {
		return wallClock{}
	}
	return s.Clock
}

func (s *SQS) now() time.Time { return s.clock().Now() }

// Close ends the long polls and stops the running message move tasks.
func (s *SQS) Close() {
	s.cancel()
	s.bg.Wait()
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
