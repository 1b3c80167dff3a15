package store

import (
	"context"
	"errors"
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

// DecodeIdempotencyRecord decodes a record returned by a failed condition
// (ALL_OLD).
func DecodeIdempotencyRecord(item map[string]types.AttributeValue) (idempotency.Record, error) {
	var it idemItem
	if err := attributevalue.UnmarshalMap(item, &it); err != nil {
		return idempotency.Record{}, err
	}
	return it.record(), nil
}

// Capture is an attempt to take an idempotency key.
type Capture struct {
	Project, Key string
	Fingerprint  string
	LockToken    string
	RequestID    string
	Method       string
	Route        string
	LeaseUntil   time.Time
}

func idemPK(project, key string) string { return project + "#" + key }

// CaptureKey takes (project, key) as in_progress with one conditional
// PutItem. It succeeds when no record exists, the record is past its 24 h
// (even if TTL has not deleted it yet), or its holder's lease has expired.
// Otherwise it returns captured=false and the existing record, which the
// failed condition returns (ALL_OLD) — no second read.
func (s *Store) CaptureKey(ctx context.Context, c Capture) (captured bool, existing idempotency.Record, err error) {
	now := s.now()
	item, err := attributevalue.MarshalMap(idemItem{
		PK: idemPK(c.Project, c.Key), Status: string(idempotency.InProgress), Fingerprint: c.Fingerprint, LockToken: c.LockToken,
		LeaseExpiresAt: c.LeaseUntil.UnixMilli(), ExpiresAt: now.Add(idempotency.TTL).Unix(),
		RequestID: c.RequestID, Method: c.Method, Route: c.Route,
	})
	if err != nil {
		return false, idempotency.Record{}, err
	}
	_, err = s.DB.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           aws.String(s.Tables.Idempotency),
		Item:                                item,
		ConditionExpression:                 aws.String("attribute_not_exists(pk) OR expires_at < :now_s OR (#status = :in_progress AND lease_expires_at < :now_ms)"),
		ExpressionAttributeNames:            map[string]string{"#status": "status"},
		ExpressionAttributeValues:           map[string]types.AttributeValue{":now_s": num(now.Unix()), ":now_ms": num(now.UnixMilli()), ":in_progress": str(string(idempotency.InProgress))},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		rec, derr := DecodeIdempotencyRecord(failed.Item)
		return false, rec, derr
	}
	if err != nil {
		return false, idempotency.Record{}, classify(err)
	}
	return true, idempotency.Record{}, nil
}

// completion returns the update that marks a captured key completed with
// resp, conditioned on the capture still being ours.
func (s *Store) completion(project, key, token, requestID string, resp idempotency.Response) *types.Update {
	return &types.Update{
		TableName:                aws.String(s.Tables.Idempotency),
		Key:                      map[string]types.AttributeValue{"pk": str(idemPK(project, key))},
		UpdateExpression:         aws.String("SET #status = :completed, response_status = :rs, response_headers = :rh, response_body = :rb, request_id = :rid REMOVE lease_expires_at"),
		ConditionExpression:      aws.String("#status = :in_progress AND lock_token = :token"),
		ExpressionAttributeNames: map[string]string{"#status": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":completed": str(string(idempotency.Completed)), ":in_progress": str(string(idempotency.InProgress)),
			":token": str(token), ":rs": num(int64(resp.Status)), ":rh": strMap(resp.Headers),
			":rb": &types.AttributeValueMemberB{Value: orEmpty(resp.Body)}, ":rid": str(requestID),
		},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
}

// CompletionGuard returns the completion of a captured key as a
// transaction item, to commit with a plan: the operation's writes and the
// stored response land together or not at all. If another request took
// the key over, Commit returns *FencedError.
func (s *Store) CompletionGuard(project, key, token, requestID string, resp idempotency.Response) *types.TransactWriteItem {
	return &types.TransactWriteItem{Update: s.completion(project, key, token, requestID, resp)}
}

// CompleteKey stores resp for a captured key when the operation wrote
// nothing (its own 4xx answers). It returns *FencedError if the key is no
// longer ours.
func (s *Store) CompleteKey(ctx context.Context, project, key, token, requestID string, resp idempotency.Response) error {
	u := s.completion(project, key, token, requestID, resp)
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression, ConditionExpression: u.ConditionExpression,
		ExpressionAttributeNames: u.ExpressionAttributeNames, ExpressionAttributeValues: u.ExpressionAttributeValues,
		ReturnValuesOnConditionCheckFailure: u.ReturnValuesOnConditionCheckFailure,
	})
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		return &FencedError{Old: failed.Item}
	}
	return classify(err)
}

// ReleaseKey deletes a capture that is still ours and still in progress,
// so that a retry runs the operation. A key that was completed or taken
// over is left alone.
func (s *Store) ReleaseKey(ctx context.Context, project, key, token string) error {
	_, err := s.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName:                 aws.String(s.Tables.Idempotency),
		Key:                       map[string]types.AttributeValue{"pk": str(idemPK(project, key))},
		ConditionExpression:       aws.String("#status = :in_progress AND lock_token = :token"),
		ExpressionAttributeNames:  map[string]string{"#status": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":in_progress": str(string(idempotency.InProgress)), ":token": str(token)},
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
