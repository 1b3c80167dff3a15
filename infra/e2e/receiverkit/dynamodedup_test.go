// Package receiverkit_test runs the receiver kit's DynamoDB deduplicator
// (module sdk/go/webhook/dynamodedup) against DynamoDB Local. It lives in
// the server's module because the engine helpers do; the kit's modules
// stay free of them.
package receiverkit_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/sdk/go/webhook"
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
	clock := webhooktest.NewClock(time.Now())
	d := &dynamodedup.Deduplicator{Client: db, Table: table, Now: clock.Now, Lease: time.Minute}
	webhooktest.DeduplicatorContract(t, d, webhooktest.WithLease(clock, time.Minute))

	t.Run("an id recorded by v1.1.0 (no state) is done", func(t *testing.T) {
		id := dynamotest.UniquePrefix() + "evt_v110"
		_, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
			"event_id":   &types.AttributeValueMemberS{Value: id},
			"expires_at": &types.AttributeValueMemberN{Value: strconv.FormatInt(clock.Now().Add(time.Hour).Unix(), 10)},
		}})
		if err != nil {
			t.Fatal(err)
		}
		if st, err := d.Begin(context.Background(), id); err != nil || st != webhook.StateDone {
			t.Fatalf("Begin = %v, %v; want done", st, err)
		}
		if err := d.Forget(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		if st, err := d.Begin(context.Background(), id); err != nil || st != webhook.StateDone {
			t.Fatalf("after Forget: Begin = %v, %v; want done", st, err)
		}
	})
}
