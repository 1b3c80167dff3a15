package store

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/tracing"
)

// Plan is the set of writes of one operation. It commits in a single
// TransactWriteItems, together with the caller's guard item (the
// idempotency record's completion), or not at all.
type Plan struct {
	Items []types.TransactWriteItem
	// conflicts maps the index of an item to the error reported when that
	// item's condition fails (e.g. CONTACT_ALREADY_EXISTS).
	conflicts map[int]error
}

// Add appends a write; onConflict, if not nil, is the error reported when
// the write's condition fails.
func (p *Plan) Add(w types.TransactWriteItem, onConflict error) {
	if onConflict != nil {
		if p.conflicts == nil {
			p.conflicts = map[int]error{}
		}
		p.conflicts[len(p.Items)] = onConflict
	}
	p.Items = append(p.Items, w)
}

// Empty reports whether the plan writes nothing.
func (p *Plan) Empty() bool { return p == nil || len(p.Items) == 0 }

// guardFailed reports that the guard's condition failed: the caller no
// longer holds the lock it committed under. old is the guard item as it
// is now (ALL_OLD), so the caller can tell what happened without a read.
type guardFailed struct {
	old map[string]types.AttributeValue
}

func (e *guardFailed) Error() string { return "store: commit fenced: the lock is no longer held" }

// maxConflictRetries bounds how often a transaction that lost a race with
// another transaction on a shared item (TransactionConflict) is re-sent.
const maxConflictRetries = 6

// Commit writes the plan atomically: nil on success, the plan's conflict
// error when one of its conditions failed, SERVICE_UNAVAILABLE when
// DynamoDB throttles or fails (see commit).
func (s *Store) Commit(ctx context.Context, p Plan) error { return s.commit(ctx, p, nil) }

// commit writes the plan and the guard atomically. It returns nil on
// success, the plan's conflict error when one of its conditions failed,
// *guardFailed when the guard's condition failed, SERVICE_UNAVAILABLE when
// DynamoDB throttles, fails, or other transactions keep conflicting after
// maxConflictRetries, and the SDK's error for a transaction DynamoDB
// refuses (a 500: it can never succeed). Re-sending is safe: nothing was
// written.
func (s *Store) commit(ctx context.Context, p Plan, guard *types.TransactWriteItem) error {
	items := traced(ctx, p.Items)
	if guard != nil {
		items = append(append([]types.TransactWriteItem(nil), items...), *guard)
	}
	if len(items) == 0 {
		return nil
	}
	for attempt := 0; ; attempt++ {
		_, err := s.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if err == nil {
			return nil
		}
		var canceled *types.TransactionCanceledException
		if !errors.As(err, &canceled) {
			return classify(err)
		}
		reasons := canceled.CancellationReasons
		if guard != nil && len(reasons) == len(items) && code(reasons[len(items)-1]) == "ConditionalCheckFailed" {
			return &guardFailed{old: reasons[len(items)-1].Item}
		}
		retry := false
		for i, r := range reasons {
			switch code(r) {
			case "None", "":
			case "ConditionalCheckFailed":
				if e, ok := p.conflicts[i]; ok {
					return e
				}
				return err
			case "TransactionConflict":
				retry = true
			case "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded":
				return apierr.Unavailable(err)
			default:
				// ValidationError, ItemCollectionSizeLimitExceeded, ...: a
				// transaction that can never succeed is our bug, not an outage.
				return err
			}
		}
		switch {
		case !retry:
			return err
		case attempt >= maxConflictRetries:
			return apierr.Unavailable(err)
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return apierr.Unavailable(err)
		}
	}
}

// traced returns items with the trace context of ctx's request on each
// outbox item (events, delivery requests), which the dispatcher hands on
// to the deliveries' messages (package tracing). The plan's items are not
// changed.
func traced(ctx context.Context, items []types.TransactWriteItem) []types.TransactWriteItem {
	tp := tracing.Traceparent(ctx)
	if tp == "" {
		return items
	}
	out := make([]types.TransactWriteItem, len(items))
	for i, it := range items {
		out[i] = it
		if it.Put == nil || !outboxEntity(it.Put.Item["entity"]) {
			continue
		}
		put := *it.Put
		put.Item = make(map[string]types.AttributeValue, len(it.Put.Item)+1)
		for k, v := range it.Put.Item {
			put.Item[k] = v
		}
		put.Item["traceparent"] = &types.AttributeValueMemberS{Value: tp}
		out[i].Put = &put
	}
	return out
}

func outboxEntity(v types.AttributeValue) bool {
	s, ok := v.(*types.AttributeValueMemberS)
	return ok && (s.Value == EntityEvent || s.Value == EntityDeliveryRequest)
}

func code(r types.CancellationReason) string { return aws.ToString(r.Code) }

// backoff is a full-jitter exponential delay: 5 ms, 10 ms, ... up to 320 ms.
func backoff(attempt int) time.Duration {
	ceiling := 5 * time.Millisecond << attempt
	return time.Duration(rand.Int64N(int64(ceiling))) + time.Millisecond
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// put returns a Put of item (marshalled with attributevalue) into table,
// guarded by condition when it is not empty.
func put(table string, item any, condition string) (types.TransactWriteItem, error) {
	av, err := attributevalue.MarshalMap(item)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	p := &types.Put{TableName: aws.String(table), Item: av}
	if condition != "" {
		p.ConditionExpression = aws.String(condition)
	}
	return types.TransactWriteItem{Put: p}, nil
}

// keyAV marshals a string key map.
func keyAV(k map[string]string) map[string]types.AttributeValue {
	out := make(map[string]types.AttributeValue, len(k))
	for n, v := range k {
		out[n] = &types.AttributeValueMemberS{Value: v}
	}
	return out
}
