// Package dynamodedup is the receiver kit's Deduplicator on Amazon
// DynamoDB, for receivers that run on several instances. It is a module of
// its own (it needs the AWS SDK), so that a receiver that only verifies
// signatures with sdk/go/webhook links no AWS code.
package dynamodedup

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/sdk/go/webhook"
)

// Deduplicator remembers ids in a DynamoDB table shared by all instances
// of a receiver: partition key "event_id" (String), TTL attribute
// "expires_at". First is one conditional PutItem.
type Deduplicator struct {
	Client *dynamodb.Client
	Table  string
	// Retention is how long an id is remembered; 0 means
	// webhook.DefaultRetention.
	Retention time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

var _ webhook.Deduplicator = (*Deduplicator)(nil)

// First implements webhook.Deduplicator: the put succeeds for a new id (or
// one whose record expired but was not yet swept by TTL).
func (d *Deduplicator) First(ctx context.Context, id string) (bool, error) {
	now := time.Now()
	if d.Now != nil {
		now = d.Now()
	}
	ret := d.Retention
	if ret == 0 {
		ret = webhook.DefaultRetention
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

// Forget implements webhook.Deduplicator.
func (d *Deduplicator) Forget(ctx context.Context, id string) error {
	_, err := d.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(d.Table),
		Key:       map[string]types.AttributeValue{"event_id": &types.AttributeValueMemberS{Value: id}},
	})
	return err
}
