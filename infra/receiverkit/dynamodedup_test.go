// Package receiverkit_test runs the receiver kit's DynamoDB deduplicator
// (module sdk/go/webhook/dynamodedup) against DynamoDB Local. It lives in
// the server's module because the engine helpers do; the kit's modules
// stay free of them.
package receiverkit_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/infra/dynamotest"
	"github.com/botix/public-api/sdk/go/webhook/dynamodedup"
	"github.com/botix/public-api/sdk/go/webhook/webhooktest"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

func TestDynamoDBDeduplicator(t *testing.T) {
	db := dynamotest.Client(t)
	table := dynamotest.UniquePrefix() + "processed-events"
	_, err := db.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("event_id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("event_id"), KeyType: types.KeyTypeHash}},
	})
	if err != nil {
		t.Fatal(err)
	}
	webhooktest.DeduplicatorContract(t, &dynamodedup.Deduplicator{Client: db, Table: table})
}
