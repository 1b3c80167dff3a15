package webhook

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Deduplicator remembers processed event ids (the processed_events
// pattern). Implementations are safe for concurrent use: of two concurrent
// First calls with one id, exactly one returns true.
type Deduplicator interface {
	// First records id and reports whether this is its first sighting.
	First(ctx context.Context, eventID string) (bool, error)
	// Forget removes id, so that a redelivery is processed again (after
	// the handler failed).
	Forget(ctx context.Context, eventID string) error
}

// DefaultRetention is how long event ids are remembered: longer than
// BOTIX's retry window (about 25 hours) and a redrive after it.
const DefaultRetention = 72 * time.Hour

// MemoryDeduplicator remembers ids in process memory: right for one
// instance and for tests.
type MemoryDeduplicator struct {
	// Retention is how long an id is remembered; 0 means DefaultRetention.
	Retention time.Duration

	mu   sync.Mutex
	seen map[string]time.Time
}

var _ Deduplicator = (*MemoryDeduplicator)(nil)

// First implements Deduplicator.
func (m *MemoryDeduplicator) First(_ context.Context, id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if m.seen == nil {
		m.seen = map[string]time.Time{}
	}
	if exp, ok := m.seen[id]; ok && now.Before(exp) {
		return false, nil
	}
	if len(m.seen) > 100000 {
		for k, exp := range m.seen {
			if now.After(exp) {
				delete(m.seen, k)
			}
		}
	}
	ret := m.Retention
	if ret == 0 {
		ret = DefaultRetention
	}
	m.seen[id] = now.Add(ret)
	return true, nil
}

// Forget implements Deduplicator.
func (m *MemoryDeduplicator) Forget(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.seen, id)
	return nil
}

// DynamoDBDeduplicator remembers ids in a DynamoDB table shared by all
// instances of a receiver: partition key "event_id" (String), TTL attribute
// "expires_at". First is one conditional PutItem.
type DynamoDBDeduplicator struct {
	Client *dynamodb.Client
	Table  string
	// Retention is how long an id is remembered; 0 means DefaultRetention.
	Retention time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

var _ Deduplicator = (*DynamoDBDeduplicator)(nil)

// First implements Deduplicator: the put succeeds for a new id (or one
// whose record expired but was not yet swept by TTL).
func (d *DynamoDBDeduplicator) First(ctx context.Context, id string) (bool, error) {
	now := time.Now()
	if d.Now != nil {
		now = d.Now()
	}
	ret := d.Retention
	if ret == 0 {
		ret = DefaultRetention
	}
	_, err := d.Client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(d.Table),
		Item: map[string]types.AttributeValue{
			"event_id":   &types.AttributeValueMemberS{Value: id},
			"expires_at": &types.AttributeValueMemberN{Value: strconv.FormatInt(now.Add(ret).Unix(), 10)},
		},
		ConditionExpression:       aws.String("attribute_not_exists(event_id) OR expires_at < :now"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":now": &types.AttributeValueMemberN{Value: strconv.FormatInt(now.Unix(), 10)}},
	})
	var seen *types.ConditionalCheckFailedException
	if errors.As(err, &seen) {
		return false, nil
	}
	return err == nil, err
}

// Forget implements Deduplicator.
func (d *DynamoDBDeduplicator) Forget(ctx context.Context, id string) error {
	_, err := d.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(d.Table),
		Key:       map[string]types.AttributeValue{"event_id": &types.AttributeValueMemberS{Value: id}},
	})
	return err
}
