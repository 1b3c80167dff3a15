package store

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/ids"
)

// RecordEndpointSuccess ends an endpoint's failure streak.
func (s *Store) RecordEndpointSuccess(ctx context.Context, project, id string, at time.Time) (EndpointRecord, error) {
	return s.updateEndpointHealth(ctx, project, id, "SET last_success_at = :at, consecutive_failures = :zero REMOVE failing_since",
		map[string]types.AttributeValue{":at": str(ids.Timestamp(at)), ":zero": num(0)})
}

// RecordEndpointFailure extends an endpoint's failure streak and returns
// the endpoint, whose FailingSince says when the streak began.
func (s *Store) RecordEndpointFailure(ctx context.Context, project, id string, at time.Time) (EndpointRecord, error) {
	return s.updateEndpointHealth(ctx, project, id, "SET last_failure_at = :at, failing_since = if_not_exists(failing_since, :at) ADD consecutive_failures :one",
		map[string]types.AttributeValue{":at": str(ids.Timestamp(at)), ":one": num(1)})
}

func (s *Store) updateEndpointHealth(ctx context.Context, project, id, expr string, values map[string]types.AttributeValue) (EndpointRecord, error) {
	k, err := endpointKey(project, id)
	if err != nil {
		return EndpointRecord{}, err
	}
	out, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.Tables.Data), Key: keyAV(k), UpdateExpression: aws.String(expr),
		ConditionExpression: aws.String("attribute_exists(pk)"), ExpressionAttributeValues: values, ReturnValues: types.ReturnValueAllNew,
	})
	var gone *types.ConditionalCheckFailedException
	if errors.As(err, &gone) {
		return EndpointRecord{}, errEndpointNotFound
	}
	if err != nil {
		return EndpointRecord{}, classify(err)
	}
	var rec EndpointRecord
	err = attributevalue.UnmarshalMap(out.Attributes, &rec)
	return rec, err
}

// DisableEndpoint disables an enabled endpoint with a reason the owner
// sees; PATCH enabled=true re-enables it.
func (s *Store) DisableEndpoint(ctx context.Context, project, id, reason string) error {
	k, err := endpointKey(project, id)
	if err != nil {
		return err
	}
	_, err = s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.Tables.Data), Key: keyAV(k),
		UpdateExpression:          aws.String("SET enabled = :false, disabled_reason = :reason, updated_at = :now"),
		ConditionExpression:       aws.String("attribute_exists(pk) AND enabled = :true"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":false": &types.AttributeValueMemberBOOL{Value: false}, ":true": &types.AttributeValueMemberBOOL{Value: true}, ":reason": str(reason), ":now": str(ids.Timestamp(s.now()))},
	})
	var already *types.ConditionalCheckFailedException
	if errors.As(err, &already) {
		return nil
	}
	return classify(err)
}
