package local

// EventSource is an event source mapping as the runtime plays it: what its
// stream and queue pollers do, for a test to compare with what a deploy
// creates (infra/checks/deploycheck). Settings the runtime does not play (the
// batching window, bisecting a failed batch) are not here.
type EventSource struct {
	// Function and Source are logical ids: the consumer, and the table
	// whose stream or the queue it reads.
	Function, Source string
	// Kind is "DynamoDB" or "SQS", as in the template's event types.
	Kind string
	// StartingPosition is where a stream is read from (the runtime reads
	// every shard from TRIM_HORIZON); "" for queues.
	StartingPosition string
	BatchSize        int
	// MaximumRetryAttempts bounds a stream batch's retries (-1: until the
	// records expire); 0 for queues, whose retries are the redrive policy's.
	MaximumRetryAttempts int
	// MaximumConcurrency is how many invocations a queue's pollers run at
	// once at most (after Config.MaximumConcurrency); 0 for streams.
	MaximumConcurrency int
	// ParallelizationFactor is how many batches of a stream shard run at
	// once, each partition key's records in order in one of them; 0 for
	// queues.
	ParallelizationFactor int
	// ReportBatchItemFailures: the function's BatchItemFailures are read
	// (the rest of the batch succeeded). Stream batches always are.
	ReportBatchItemFailures bool
	// Filters are the parsed filter patterns; events matching none are
	// not delivered.
	Filters []map[string]any
}

// EventSources returns the runtime's event source mappings, streams first,
// each kind in the order of the functions' names.
func (r *Runtime) EventSources() []EventSource {
	var out []EventSource
	for _, m := range r.mappings {
		out = append(out, EventSource{
			Function: m.function, Source: m.table, Kind: "DynamoDB", StartingPosition: "TRIM_HORIZON",
			BatchSize: m.batchSize, MaximumRetryAttempts: m.maxRetries, ParallelizationFactor: m.parallel, ReportBatchItemFailures: true, Filters: m.filters,
		})
	}
	for _, m := range r.sqsMaps {
		out = append(out, EventSource{
			Function: m.function, Source: m.queue, Kind: "SQS",
			BatchSize: m.batchSize, MaximumConcurrency: m.concurrency, ReportBatchItemFailures: m.partial,
		})
	}
	return out
}
