package store_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/idempotency"
	"github.com/botix/public-api/internal/idempotency/idempotencytest"
	"github.com/botix/public-api/internal/store"
)

// TestIdempotencyTableMeetsTheContract runs the contract the in-memory
// store meets against DynamoDB Local: conditions, ALL_OLD and transactions
// are DynamoDB's to decide.
func TestIdempotencyTableMeetsTheContract(t *testing.T) {
	s := dynamotest.Store(t)
	marker := func(name string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "MARK#" + name}, "sk": &types.AttributeValueMemberS{Value: "MARK"}}
	}
	idempotencytest.TestStore(t, func(*testing.T) idempotencytest.Harness {
		return idempotencytest.Harness{
			Store: s.Idempotency(),
			Effects: func(name string, unique bool, conflict error) idempotency.Effects {
				put := &types.Put{TableName: aws.String(s.Tables.Data), Item: marker(name)}
				if unique {
					put.ConditionExpression = aws.String("attribute_not_exists(pk)")
				}
				var p store.Plan
				p.Add(types.TransactWriteItem{Put: put}, conflict)
				return &p
			},
			Written: func(t *testing.T, name string) bool {
				out, err := s.DB.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(s.Tables.Data), Key: marker(name), ConsistentRead: aws.Bool(true)})
				if err != nil {
					t.Fatal(err)
				}
				return out.Item != nil
			},
		}
	})
}
