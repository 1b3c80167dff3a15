package bench

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/internal/awsenv"
)

func dynamoClient(ctx context.Context, endpoint string) *dynamodb.Client {
	cfg, _ := config.LoadDefaultConfig(ctx, config.WithRegion(local.Region),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	cfg.HTTPClient = awsenv.OwnBodies(cfg.HTTPClient)
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(endpoint) })
}
