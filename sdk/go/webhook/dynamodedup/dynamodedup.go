// Package dynamodedup is the receiver kit's Deduplicator on Amazon
// DynamoDB, for receivers that run on several instances. It is a module of
// its own (it needs the AWS SDK), so that a receiver that only verifies
// signatures with sdk/go/webhook links no AWS code.
package dynamodedup

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/sdk/go/webhook"
)

// Deduplicator remembers ids in a DynamoDB table shared by all instances
// of a receiver: partition key "event_id" (String), TTL attribute
// "expires_at" (Unix seconds). An item's "state" is "processing" (with
// "lease_until", Unix milliseconds) or "done"; an item without "state",
// written by v1.1.0's First, counts as done, so a table in use keeps its
// ids across the upgrade. Conditional writes decide every state change,
// so instances racing on one id agree.
type Deduplicator struct {
	Client *dynamodb.Client
	Table  string
	// Retention is how long an id is remembered; 0 means
	// webhook.DefaultRetention.
	Retention time.Duration
	// Lease is how long a processing claim holds; 0 means
	// webhook.DefaultLease.
	Lease time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

var _ webhook.Deduplicator = (*Deduplicator)(nil)

const (
	stateProcessing = "processing"
	stateDone       = "done"
)

func (d *Deduplicator) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

func (d *Deduplicator) expiresAt(now time.Time) types.AttributeValue {
	ret := d.Retention
	if ret == 0 {
		ret = webhook.DefaultRetention
	}
	return num(now.Add(ret).Unix())
}

// Begin implements webhook.Deduplicator with one conditional PutItem: it
// claims the id when no item exists, the item expired (TTL sweeps late),
// or it is processing with a lease that ran out; otherwise the item that
// stopped it tells processing from done.
func (d *Deduplicator) Begin(ctx context.Context, id string) (webhook.State, error) {
	now := d.now()
	lease := d.Lease
	if lease == 0 {
		lease = webhook.DefaultLease
	}
	_, err := d.Client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(d.Table),
		Item: map[string]types.AttributeValue{
			"event_id":    &types.AttributeValueMemberS{Value: id},
			"state":       &types.AttributeValueMemberS{Value: stateProcessing},
			"lease_until": num(now.Add(lease).UnixMilli()),
			"expires_at":  d.expiresAt(now),
		},
		ConditionExpression:      aws.String("attribute_not_exists(event_id) OR expires_at < :now_s OR (#state = :processing AND lease_until <= :now_ms)"),
		ExpressionAttributeNames: map[string]string{"#state": "state"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":now_s": num(now.Unix()), ":now_ms": num(now.UnixMilli()),
			":processing": &types.AttributeValueMemberS{Value: stateProcessing},
		},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var held *types.ConditionalCheckFailedException
	if errors.As(err, &held) {
		if held.Item == nil {
			return 0, fmt.Errorf("dynamodedup: the claim of %s failed its condition without the item that stopped it", id)
		}
		if s, ok := held.Item["state"].(*types.AttributeValueMemberS); ok && s.Value == stateProcessing {
			return webhook.StateProcessing, nil
		}
		return webhook.StateDone, nil
	}
	if err != nil {
		return 0, err
	}
	return webhook.StateUnseen, nil
}

// Complete implements webhook.Deduplicator: the item becomes done, for the
// retention, whoever held the claim — the event was processed.
func (d *Deduplicator) Complete(ctx context.Context, id string) error {
	_, err := d.Client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(d.Table),
		Item: map[string]types.AttributeValue{
			"event_id":   &types.AttributeValueMemberS{Value: id},
			"state":      &types.AttributeValueMemberS{Value: stateDone},
			"expires_at": d.expiresAt(d.now()),
		},
	})
	return err
}

// Forget implements webhook.Deduplicator: a delete conditioned on the item
// being processing, so that a done item stays done; a failed condition
// (done, or no item) is no error.
func (d *Deduplicator) Forget(ctx context.Context, id string) error {
	_, err := d.Client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 aws.String(d.Table),
		Key:                       map[string]types.AttributeValue{"event_id": &types.AttributeValueMemberS{Value: id}},
		ConditionExpression:       aws.String("#state = :processing"),
		ExpressionAttributeNames:  map[string]string{"#state": "state"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":processing": &types.AttributeValueMemberS{Value: stateProcessing}},
	})
	var notProcessing *types.ConditionalCheckFailedException
	if errors.As(err, &notProcessing) {
		return nil
	}
	return err
}

func num(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}
