// Package awslimits is the hard limits and default quotas of AWS that the
// stack is built to stay under, each once: the code that must fit one
// (awsqueue's batches, the store's transactions, the local AWS that plays
// the service) and the template checks name it from here, and
// docs/operators.md ("AWS limits the stack meets") states each with the
// AWS page it comes from; a test holds the table to these constants.
//
// The figures are AWS's as documented in December 2026 (SQS raised its
// message and batch sizes from 256 KiB to 1 MiB in 2025; the pinned
// botocore models, infra/tools/awstools, document the new figures).
package awslimits

import "time"

// Amazon SQS (SQS Developer Guide, "Amazon SQS message quotas"; API
// Reference, SendMessage and SendMessageBatch).
const (
	// SQSMessageBytes is the largest message: its body and attributes
	// together, in bytes (1 MiB); one byte more and SendMessage answers
	// InvalidParameterValue.
	SQSMessageBytes = 1 << 20
	// SQSBatchEntries is the most entries of one batch request; one more
	// and it answers AWS.SimpleQueueService.TooManyEntriesInBatchRequest.
	SQSBatchEntries = 10
	// SQSBatchBytes is the most bytes of one SendMessageBatch, its
	// messages' bodies and attributes summed (1 MiB); past it
	// AWS.SimpleQueueService.BatchRequestTooLong.
	SQSBatchBytes = 1 << 20
	// SQSMaxDelay is the longest DelaySeconds of a message (900 s); one
	// second more and SendMessage answers InvalidParameterValue.
	SQSMaxDelay = 15 * time.Minute
)

// Amazon DynamoDB (DynamoDB Developer Guide, "Quotas in Amazon
// DynamoDB"; API Reference, TransactWriteItems and Query).
const (
	// DynamoDBItemBytes is the largest item, attribute names and values
	// together (400 KB); past it ValidationException.
	DynamoDBItemBytes = 400 << 10
	// DynamoDBTransactItems is the most actions of one
	// TransactWriteItems; past it ValidationException.
	DynamoDBTransactItems = 100
	// DynamoDBTransactBytes is the most bytes of one TransactWriteItems'
	// items together (4 MB).
	DynamoDBTransactBytes = 4 << 20
	// DynamoDBQueryPageBytes is the most data one Query reads before it
	// stops with a LastEvaluatedKey (1 MB), whatever its Limit.
	DynamoDBQueryPageBytes = 1 << 20
	// DynamoDBBatchWriteItems is the most put or delete requests of one
	// BatchWriteItem.
	DynamoDBBatchWriteItems = 25
)

// AWS Lambda (Lambda Developer Guide, "Lambda quotas"; API Reference,
// CreateFunction and CreateEventSourceMapping).
const (
	// LambdaPayloadBytes is the largest synchronous invocation request,
	// and response (6 MB each); past it Invoke answers
	// RequestTooLargeException (413), and a response past it is the
	// function error Function.ResponseSizeTooLarge.
	LambdaPayloadBytes = 6 << 20
	// LambdaAsyncPayloadBytes is the largest asynchronous (Event)
	// invocation request (1 MB); past it RequestTooLargeException.
	LambdaAsyncPayloadBytes = 1 << 20
	// LambdaMaxTimeout is the longest a function may run.
	LambdaMaxTimeout = 900 * time.Second
	// LambdaMinMemory and LambdaMaxMemory bound a function's memory, in
	// MB.
	LambdaMinMemory, LambdaMaxMemory = 128, 10240
	// LambdaAccountConcurrency is the default quota of concurrent
	// executions of all functions of an account in a Region.
	LambdaAccountConcurrency = 1000
	// LambdaMaxBatchSize is the largest BatchSize of a DynamoDB stream
	// or standard SQS queue event source; an SQS source above
	// LambdaSQSBatchWithoutWindow needs a batching window.
	LambdaMaxBatchSize          = 10000
	LambdaSQSBatchWithoutWindow = 10
	// LambdaMaxBatchingWindow is the longest MaximumBatchingWindowInSeconds.
	LambdaMaxBatchingWindow = 300 * time.Second
	// LambdaMinParallelization and LambdaMaxParallelization bound a
	// stream source's ParallelizationFactor (default 1): batches per
	// shard processed at once.
	LambdaMinParallelization, LambdaMaxParallelization = 1, 10
	// LambdaMinSQSConcurrency and LambdaMaxSQSConcurrency bound an SQS
	// source's ScalingConfig.MaximumConcurrency.
	LambdaMinSQSConcurrency, LambdaMaxSQSConcurrency = 2, 1000
	// LambdaMaxStreamRetries is the largest MaximumRetryAttempts of a
	// stream source (-1: until the record expires).
	LambdaMaxStreamRetries = 10000
)

// Amazon API Gateway HTTP APIs (API Gateway Developer Guide, "Amazon API
// Gateway quotas", HTTP API quotas).
const (
	// HTTPAPIPayloadBytes is the largest request body (10 MB); past it
	// 413 {"message":"Request Entity Too Large"}.
	HTTPAPIPayloadBytes = 10 << 20
	// HTTPAPIIntegrationTimeout is the longest an integration may take.
	HTTPAPIIntegrationTimeout = 30 * time.Second
)

// Amazon EventBridge Scheduler (Scheduler User Guide, "Quotas for Amazon
// EventBridge Scheduler").
const (
	// SchedulerCreateScheduleRate is CreateSchedule's default request
	// rate per second in the primary Regions (us-east-1, eu-west-1, ...;
	// fewer in the others); past it ThrottlingException.
	SchedulerCreateScheduleRate = 5000
)
