package ddblocal

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/logging"

	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/internal/awsenv"
)

// Region is the region of the local stand-in for AWS.
const Region = "us-east-1"

// Client returns a DynamoDB client of the DynamoDB Local at endpoint.
func Client(endpoint string, opts ...func(*dynamodb.Options)) *dynamodb.Client {
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion(Region), config.WithLogger(logging.Nop{}),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	if err != nil {
		panic(err) // static configuration cannot fail to load
	}
	cfg.HTTPClient = awsenv.OwnBodies(cfg.HTTPClient)
	return dynamodb.NewFromConfig(cfg, append([]func(*dynamodb.Options){func(o *dynamodb.Options) {
		o.BaseEndpoint, o.DisableValidateResponseChecksum = aws.String(endpoint), true
	}}, opts...)...)
}

// CreateTables creates every table of the template in db, named by
// nameOf(logicalID), with the template's keys, indexes, stream and TTL.
// It returns logical id -> table name.
func CreateTables(ctx context.Context, db *dynamodb.Client, tpl *template.Template, nameOf func(string) string) (map[string]string, error) {
	tables, err := tpl.Tables()
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for id, tb := range tables {
		name := nameOf(id)
		if err := createTable(ctx, db, name, tb); err != nil {
			return nil, fmt.Errorf("create table %s (%s): %w", id, name, err)
		}
		names[id] = name
	}
	return names, nil
}

func createTable(ctx context.Context, db *dynamodb.Client, name string, tb template.Table) error {
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema:   keySchema(tb.Key),
	}
	for attr, typ := range tb.Attributes {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(attr), AttributeType: types.ScalarAttributeType(typ)})
	}
	for _, ix := range tb.Indexes {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName: aws.String(ix.Name), KeySchema: keySchema(ix.Key),
			Projection: &types.Projection{ProjectionType: types.ProjectionType(ix.ProjectionType), NonKeyAttributes: ix.NonKeyAttributes},
		})
	}
	if tb.StreamView != "" {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(tb.StreamView)}
	}
	if _, err := db.CreateTable(ctx, in); err != nil {
		return err
	}
	if tb.TTLAttribute != "" {
		_, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
			TableName:               aws.String(name),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(tb.TTLAttribute), Enabled: aws.Bool(true)},
		})
		return err
	}
	return nil
}

func keySchema(k []template.KeyElement) []types.KeySchemaElement {
	out := make([]types.KeySchemaElement, len(k))
	for i, e := range k {
		out[i] = types.KeySchemaElement{AttributeName: aws.String(e.Name), KeyType: types.KeyType(e.Type)}
	}
	return out
}
