package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/idempotency"
)

type idemItem struct {
	PK             string            `dynamodbav:"pk"`
	Status         string            `dynamodbav:"status"`
	Fingerprint    string            `dynamodbav:"fingerprint"`
	LockToken      string            `dynamodbav:"lock_token"`
	LeaseExpiresAt int64             `dynamodbav:"lease_expires_at"` // epoch ms
	ExpiresAt      int64             `dynamodbav:"expires_at"`       // epoch s, the TTL attribute
	RequestID      string            `dynamodbav:"request_id"`
	Method         string            `dynamodbav:"method"`
	Route          string            `dynamodbav:"route"`
	RespStatus     int               `dynamodbav:"response_status,omitempty"`
	RespHeaders    map[string]string `dynamodbav:"response_headers,omitempty"`
	RespBody       []byte            `dynamodbav:"response_body,omitempty"`
}

func (it idemItem) record() idempotency.Record {
	r := idempotency.Record{
		Status: idempotency.Status(it.Status), Fingerprint: it.Fingerprint, LockToken: it.LockToken,
		LeaseExpiresAt: time.UnixMilli(it.LeaseExpiresAt), ExpiresAt: time.Unix(it.ExpiresAt, 0), RequestID: it.RequestID,
	}
	if it.RespStatus != 0 {
		r.Response = &idempotency.Response{Status: it.RespStatus, Headers: it.RespHeaders, Body: it.RespBody}
	}
	return r
}

func decodeIdempotencyRecord(item map[string]types.AttributeValue) (*idempotency.Record, error) {
	return decodeAs(item, idemItem.record)
}

// IdempotencyRecords is the idempotency table: the DynamoDB side of
// idempotency.Store. Capture is one conditional PutItem that returns the
// holder (ALL_OLD) when it fails; Commit is one TransactWriteItems of the
// effects (a *Plan) and the completion, conditioned on the lock token.
type IdempotencyRecords struct{ s *Store }

var _ idempotency.Store = IdempotencyRecords{}

// Idempotency returns the idempotency table's adapter.
func (s *Store) Idempotency() IdempotencyRecords { return IdempotencyRecords{s} }

func idemPK(project, key string) string { return project + "#" + key }

// Capture implements idempotency.Store.
func (r IdempotencyRecords) Capture(ctx context.Context, c idempotency.Capture) (*idempotency.Record, error) {
	item, err := attributevalue.MarshalMap(idemItem{
		PK: idemPK(c.Scope, c.Key), Status: string(idempotency.InProgress), Fingerprint: c.Fingerprint, LockToken: c.Token,
		LeaseExpiresAt: c.LeaseUntil.UnixMilli(), ExpiresAt: c.ExpiresAt.Unix(),
		RequestID: c.RequestID, Method: c.Method, Route: c.Route,
	})
	if err != nil {
		return nil, err
	}
	_, err = r.s.DB.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           aws.String(r.s.Tables.Idempotency),
		Item:                                item,
		ConditionExpression:                 aws.String("attribute_not_exists(pk) OR expires_at < :now_s OR (#status = :in_progress AND lease_expires_at < :now_ms)"),
		ExpressionAttributeNames:            map[string]string{"#status": "status"},
		ExpressionAttributeValues:           map[string]types.AttributeValue{":now_s": num(c.Now.Unix()), ":now_ms": num(c.Now.UnixMilli()), ":in_progress": str(string(idempotency.InProgress))},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		return decodeIdempotencyRecord(failed.Item)
	}
	return nil, classify(err)
}

// completion returns the update that marks a captured key completed,
// conditioned on the capture still being ours.
func (r IdempotencyRecords) completion(lock idempotency.Lock, done idempotency.Completion) *types.Update {
	resp := done.Response
	return &types.Update{
		TableName:                aws.String(r.s.Tables.Idempotency),
		Key:                      map[string]types.AttributeValue{"pk": str(idemPK(lock.Scope, lock.Key))},
		UpdateExpression:         aws.String("SET #status = :completed, response_status = :rs, response_headers = :rh, response_body = :rb, request_id = :rid REMOVE lease_expires_at"),
		ConditionExpression:      aws.String("#status = :in_progress AND lock_token = :token"),
		ExpressionAttributeNames: map[string]string{"#status": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":completed": str(string(idempotency.Completed)), ":in_progress": str(string(idempotency.InProgress)),
			":token": str(lock.Token), ":rs": num(int64(resp.Status)), ":rh": strMap(resp.Headers),
			":rb": &types.AttributeValueMemberB{Value: orEmpty(resp.Body)}, ":rid": str(done.RequestID),
		},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
}

// Commit implements idempotency.Store; effects must be a *Plan.
func (r IdempotencyRecords) Commit(ctx context.Context, lock idempotency.Lock, done idempotency.Completion, effects idempotency.Effects) error {
	plan, ok := effects.(*Plan)
	if !ok {
		return fmt.Errorf("store: effects of type %T are not a *store.Plan", effects)
	}
	return r.fenced(r.s.commit(ctx, *plan, &types.TransactWriteItem{Update: r.completion(lock, done)}))
}

// Complete implements idempotency.Store.
func (r IdempotencyRecords) Complete(ctx context.Context, lock idempotency.Lock, done idempotency.Completion) error {
	u := r.completion(lock, done)
	_, err := r.s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression, ConditionExpression: u.ConditionExpression,
		ExpressionAttributeNames: u.ExpressionAttributeNames, ExpressionAttributeValues: u.ExpressionAttributeValues,
		ReturnValuesOnConditionCheckFailure: u.ReturnValuesOnConditionCheckFailure,
	})
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		return r.fenced(&guardFailed{old: failed.Item})
	}
	return classify(err)
}

// fenced turns a failed guard into *idempotency.FencedError with the
// record as the failed write saw it.
func (r IdempotencyRecords) fenced(err error) error {
	var g *guardFailed
	if !errors.As(err, &g) {
		return err
	}
	rec, derr := decodeIdempotencyRecord(g.old)
	if derr != nil {
		return derr
	}
	return &idempotency.FencedError{Record: rec}
}

// Release implements idempotency.Store.
func (r IdempotencyRecords) Release(ctx context.Context, lock idempotency.Lock) error {
	_, err := r.s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 aws.String(r.s.Tables.Idempotency),
		Key:                       map[string]types.AttributeValue{"pk": str(idemPK(lock.Scope, lock.Key))},
		ConditionExpression:       aws.String("#status = :in_progress AND lock_token = :token"),
		ExpressionAttributeNames:  map[string]string{"#status": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":in_progress": str(string(idempotency.InProgress)), ":token": str(lock.Token)},
	})
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		return nil
	}
	return classify(err)
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func num(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: itoa(n)}
}

func strMap(m map[string]string) types.AttributeValue {
	out := make(map[string]types.AttributeValue, len(m))
	for k, v := range m {
		out[k] = str(v)
	}
	return &types.AttributeValueMemberM{Value: out}
}

// orEmpty turns a nil body into an empty one: the SDK would send nil as
// no value, and the expression needs one.
func orEmpty(b []byte) []byte {
	if len(b) == 0 {
		return []byte{}
	}
	return b
}
