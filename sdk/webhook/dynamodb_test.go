package webhook_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/infra/dynamotest"
	"github.com/botix/public-api/sdk/webhook"
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
	d := &webhook.DynamoDBDeduplicator{Client: db, Table: table}
	t.Run("two goroutines, one event: processed once", func(t *testing.T) { testOnce(t, d) })
	t.Run("forget lets a redelivery through", func(t *testing.T) {
		ctx := context.Background()
		if ok, _ := d.First(ctx, "evt_forget"); !ok {
			t.Fatal("first sighting not first")
		}
		if err := d.Forget(ctx, "evt_forget"); err != nil {
			t.Fatal(err)
		}
		if ok, _ := d.First(ctx, "evt_forget"); !ok {
			t.Fatal("forgotten id not first again")
		}
	})
}
