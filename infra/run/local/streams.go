package local

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/internal/app"
)

// streamMapping is a DynamoDB stream event source mapping of the template.
type streamMapping struct {
	function   string
	table      string // logical id
	batchSize  int
	maxRetries int // -1: until the record expires
	parallel   int // batches of a shard at once (ParallelizationFactor)
	filters    filterSet
	handler    app.StreamHandler
}

func streamMappings(fns map[string]template.Function) ([]*streamMapping, error) {
	return eventSources(fns, "DynamoDB", "Stream", "Table", "StreamArn", func(function, table string, e template.Event) (*streamMapping, error) {
		filters, err := parseFilters(asMap(e.Properties["FilterCriteria"]))
		if err != nil {
			return nil, err
		}
		return &streamMapping{
			function: function, table: table, filters: filters,
			batchSize: intProp(e.Properties, "BatchSize", 100), maxRetries: intProp(e.Properties, "MaximumRetryAttempts", -1),
			parallel: max(1, intProp(e.Properties, "ParallelizationFactor", 1)),
		}, nil
	})
}

// eventSources reads the events of type typ (SQS, DynamoDB) of the
// functions, in the order of the functions' names. Each event's property
// prop must be !GetAtt <resource>.<attr> (a resource of kind, for the
// error); mapping makes what the runtime polls from the function's name,
// the resource's logical id and the event.
func eventSources[M any](fns map[string]template.Function, typ, prop, kind, attr string, mapping func(function, resource string, e template.Event) (M, error)) ([]M, error) {
	var out []M
	for _, name := range slices.Sorted(maps.Keys(fns)) {
		for _, e := range fns[name].Events() {
			if e.Type != typ {
				continue
			}
			att, _ := asMap(e.Properties[prop])["Fn::GetAtt"].([]any)
			if len(att) != 2 || att[1] != attr {
				return nil, fmt.Errorf("local: %s.%s: %s must be !GetAtt <%s>.%s", name, e.Name, prop, kind, attr)
			}
			m, err := mapping(name, fmt.Sprint(att[0]), e)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
	}
	return out, nil
}

func intProp(m map[string]any, k string, def int) int {
	switch v := m[k].(type) {
	case int:
		return v
	case float64:
		return int(v)
	case string:
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return def
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// An idle shard is polled streamPollInterval after its last records,
// then less often, down to streamIdlePoll (Lambda polls a DynamoDB
// stream's shards about four times a second); the shards are listed
// (DescribeStream) every streamDescribeEvery, at once when one closes, and
// at every poll while none is open.
// Every runtime of a test package polls the one DynamoDB Local make test
// shares: two mappings listing and reading every 100 ms were 40 requests
// a second per idle runtime, a large part of what the engine served.
const (
	streamPollInterval  = 100 * time.Millisecond
	streamIdlePoll      = 250 * time.Millisecond
	streamDescribeEvery = 2 * time.Second
)

// pollStream reads the table's stream like Lambda's event source mapping:
// every shard from TRIM_HORIZON, filtered, in batches, retrying a batch
// from its first failed record.
func (r *Runtime) pollStream(ctx context.Context, m *streamMapping) {
	tableName := r.tables[m.table]
	desc, err := r.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(tableName)})
	if err != nil || desc.Table.LatestStreamArn == nil {
		r.cfg.Log.Error("local: stream not available", "function", m.function, "table", tableName, "error", fmt.Sprint(err))
		return
	}
	streamArn := aws.ToString(desc.Table.LatestStreamArn)
	type shardState struct {
		iterator string
		lastSeq  string
	}
	shards := map[string]*shardState{}
	closed := map[string]bool{}
	var described time.Time // when the shards were last listed; zero: list them
	idle := streamPollInterval
	for ctx.Err() == nil {
		if len(shards) == 0 || described.IsZero() || time.Since(described) >= streamDescribeEvery {
			out, err := r.streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(streamArn)})
			if err != nil {
				sleepCtx(ctx, streamPollInterval)
				continue
			}
			described = time.Now()
			for _, sh := range out.StreamDescription.Shards {
				id := aws.ToString(sh.ShardId)
				if shards[id] != nil || closed[id] {
					continue
				}
				if p := aws.ToString(sh.ParentShardId); p != "" && shards[p] != nil {
					continue // read the parent to its end first, to keep order
				}
				shards[id] = &shardState{}
			}
		}
		busy := false
		for id, st := range shards {
			if st.iterator == "" {
				in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(streamArn), ShardId: aws.String(id), ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon}
				if st.lastSeq != "" {
					in.ShardIteratorType, in.SequenceNumber = stypes.ShardIteratorTypeAfterSequenceNumber, aws.String(st.lastSeq)
				}
				it, err := r.streams.GetShardIterator(ctx, in)
				if err != nil {
					continue
				}
				st.iterator = aws.ToString(it.ShardIterator)
			}
			recs, err := r.streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(st.iterator), Limit: aws.Int32(1000)})
			if err != nil {
				st.iterator = "" // expired or trimmed: re-open after the last record seen
				continue
			}
			if len(recs.Records) > 0 {
				busy = true
				r.deliverStreamRecords(ctx, m, streamArn, recs.Records)
				st.lastSeq = aws.ToString(recs.Records[len(recs.Records)-1].Dynamodb.SequenceNumber)
			}
			if recs.NextShardIterator == nil {
				closed[id] = true
				delete(shards, id)
				described = time.Time{} // its children are to be read now
				continue
			}
			st.iterator = aws.ToString(recs.NextShardIterator)
		}
		if busy {
			idle = streamPollInterval
			continue
		}
		sleepCtx(ctx, idle)
		idle = min(streamIdlePoll, idle*2)
	}
}

// deliverStreamRecords hands a shard's records to the consumer as Lambda
// does with the mapping's ParallelizationFactor: the records split into
// that many lanes by partition key, each lane's batches in order, the
// lanes at once. A lane whose batch keeps failing holds only the keys
// hashed to it.
func (r *Runtime) deliverStreamRecords(ctx context.Context, m *streamMapping, streamArn string, in []stypes.Record) {
	var matched []events.DynamoDBEventRecord
	for _, rec := range in {
		if ev := lambdaRecord(rec, streamArn); m.filters.match(ev) {
			matched = append(matched, ev)
		}
	}
	var wg sync.WaitGroup
	for _, lane := range lanes(matched, m.parallel) {
		wg.Go(func() {
			for batch := range slices.Chunk(lane, m.batchSize) {
				r.invokeStream(ctx, m, batch)
			}
		})
	}
	wg.Wait()
}

// lanes splits records into at most n lanes by their partition key (the
// key attribute "pk"), keeping each lane's records in stream order.
func lanes(records []events.DynamoDBEventRecord, n int) [][]events.DynamoDBEventRecord {
	byLane := make([][]events.DynamoDBEventRecord, n)
	for _, rec := range records {
		h := fnv.New32a()
		if pk := rec.Change.Keys["pk"]; pk.DataType() == events.DataTypeString {
			_, _ = h.Write([]byte(pk.String()))
		}
		i := int(h.Sum32() % uint32(n))
		byLane[i] = append(byLane[i], rec)
	}
	return slices.DeleteFunc(byLane, func(l []events.DynamoDBEventRecord) bool { return len(l) == 0 })
}

// invokeStream invokes the consumer until the batch succeeds, retrying
// from the first failed record (ReportBatchItemFailures) with backoff, up
// to the mapping's MaximumRetryAttempts.
func (r *Runtime) invokeStream(ctx context.Context, m *streamMapping, batch []events.DynamoDBEventRecord) {
	for attempt := 0; len(batch) > 0 && ctx.Err() == nil; attempt++ {
		resp, err := r.callStream(ctx, m, batch)
		if err == nil && len(resp.BatchItemFailures) == 0 {
			return
		}
		from := 0
		if err == nil {
			from = firstFailed(batch, resp.BatchItemFailures)
		}
		if m.maxRetries >= 0 && attempt >= m.maxRetries {
			r.cfg.Log.Error("local: stream batch discarded after retries", "function", m.function, "records", len(batch)-from, "error", fmt.Sprint(err))
			return
		}
		batch = batch[from:]
		sleepCtx(ctx, time.Duration(attempt+1)*50*time.Millisecond)
	}
}

// callStream invokes a stream consumer with its own deadline; a panic is a
// failed invocation, as a crash is in Lambda.
func (r *Runtime) callStream(ctx context.Context, m *streamMapping, batch []events.DynamoDBEventRecord) (resp events.DynamoDBEventResponse, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.cfg.Log.Error("local: function crashed; the stream retries the batch", "function", m.function, "panic", fmt.Sprint(p))
			err = fmt.Errorf("function crashed: %v", p)
		}
	}()
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.timeout(m.function))
	defer cancel()
	defer r.cfg.Meter.invocation(m.function)()
	return m.handler(ictx, events.DynamoDBEvent{Records: batch})
}

func firstFailed(batch []events.DynamoDBEventRecord, failures []events.DynamoDBBatchItemFailure) int {
	failed := map[string]bool{}
	for _, f := range failures {
		failed[f.ItemIdentifier] = true
	}
	for i, rec := range batch {
		if failed[rec.Change.SequenceNumber] {
			return i
		}
	}
	return 0 // an unknown identifier fails the whole batch, as in Lambda
}

func lambdaRecord(rec stypes.Record, streamArn string) events.DynamoDBEventRecord {
	d := rec.Dynamodb
	out := events.DynamoDBEventRecord{
		AWSRegion: Region, EventID: aws.ToString(rec.EventID), EventName: string(rec.EventName),
		EventSource: "aws:dynamodb", EventVersion: "1.1", EventSourceArn: streamArn,
		Change: events.DynamoDBStreamRecord{
			Keys: image(d.Keys), NewImage: image(d.NewImage), OldImage: image(d.OldImage),
			SequenceNumber: aws.ToString(d.SequenceNumber), SizeBytes: aws.ToInt64(d.SizeBytes),
			StreamViewType: string(d.StreamViewType),
		},
	}
	if d.ApproximateCreationDateTime != nil {
		out.Change.ApproximateCreationDateTime = events.SecondsEpochTime{Time: *d.ApproximateCreationDateTime}
	}
	return out
}

func image(m map[string]stypes.AttributeValue) map[string]events.DynamoDBAttributeValue {
	if m == nil {
		return nil
	}
	out := make(map[string]events.DynamoDBAttributeValue, len(m))
	for k, v := range m {
		out[k] = attr(v)
	}
	return out
}

func attr(v stypes.AttributeValue) events.DynamoDBAttributeValue {
	switch x := v.(type) {
	case *stypes.AttributeValueMemberS:
		return events.NewStringAttribute(x.Value)
	case *stypes.AttributeValueMemberN:
		return events.NewNumberAttribute(x.Value)
	case *stypes.AttributeValueMemberB:
		return events.NewBinaryAttribute(x.Value)
	case *stypes.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(x.Value)
	case *stypes.AttributeValueMemberNULL:
		return events.NewNullAttribute()
	case *stypes.AttributeValueMemberSS:
		return events.NewStringSetAttribute(x.Value)
	case *stypes.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(x.Value)
	case *stypes.AttributeValueMemberBS:
		return events.NewBinarySetAttribute(x.Value)
	case *stypes.AttributeValueMemberL:
		l := make([]events.DynamoDBAttributeValue, len(x.Value))
		for i, e := range x.Value {
			l[i] = attr(e)
		}
		return events.NewListAttribute(l)
	case *stypes.AttributeValueMemberM:
		return events.NewMapAttribute(image(x.Value))
	}
	return events.NewNullAttribute()
}

func sleepCtx(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
