package localtest

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/infra/run/local"
)

// ProjectCount counts the projects in the runtime's data table.
func ProjectCount(t *testing.T, rt *local.Runtime) int {
	t.Helper()
	n := 0
	in := &dynamodb.ScanInput{
		TableName: aws.String(rt.Tables()["DataTable"]), Select: ddbtypes.SelectCount,
		FilterExpression:          aws.String("entity = :p"),
		ExpressionAttributeValues: map[string]ddbtypes.AttributeValue{":p": &ddbtypes.AttributeValueMemberS{Value: "project"}},
	}
	for {
		out, err := rt.DynamoDB().Scan(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		n += int(out.Count)
		if len(out.LastEvaluatedKey) == 0 {
			return n
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}
