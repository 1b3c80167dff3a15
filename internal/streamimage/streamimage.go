// Package streamimage converts the item images of DynamoDB stream records,
// as Lambda delivers them (aws-lambda-go events), into SDK attribute
// values, so that stream consumers decode them with attributevalue like
// any other read.
package streamimage

import (
	"fmt"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Decode unmarshals a stream image into out (a struct with dynamodbav tags).
func Decode(image map[string]events.DynamoDBAttributeValue, out any) error {
	m, err := Convert(image)
	if err != nil {
		return err
	}
	return attributevalue.UnmarshalMap(m, out)
}

// Convert turns a stream image into an SDK attribute value map.
func Convert(image map[string]events.DynamoDBAttributeValue) (map[string]types.AttributeValue, error) {
	out := make(map[string]types.AttributeValue, len(image))
	for k, v := range image {
		av, err := value(v)
		if err != nil {
			return nil, fmt.Errorf("streamimage: attribute %s: %w", k, err)
		}
		out[k] = av
	}
	return out, nil
}

func value(v events.DynamoDBAttributeValue) (types.AttributeValue, error) {
	switch v.DataType() {
	case events.DataTypeString:
		return &types.AttributeValueMemberS{Value: v.String()}, nil
	case events.DataTypeNumber:
		return &types.AttributeValueMemberN{Value: v.Number()}, nil
	case events.DataTypeBinary:
		return &types.AttributeValueMemberB{Value: v.Binary()}, nil
	case events.DataTypeBoolean:
		return &types.AttributeValueMemberBOOL{Value: v.Boolean()}, nil
	case events.DataTypeNull:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case events.DataTypeStringSet:
		return &types.AttributeValueMemberSS{Value: v.StringSet()}, nil
	case events.DataTypeNumberSet:
		return &types.AttributeValueMemberNS{Value: v.NumberSet()}, nil
	case events.DataTypeBinarySet:
		return &types.AttributeValueMemberBS{Value: v.BinarySet()}, nil
	case events.DataTypeList:
		var l []types.AttributeValue
		for _, e := range v.List() {
			av, err := value(e)
			if err != nil {
				return nil, err
			}
			l = append(l, av)
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	case events.DataTypeMap:
		m, err := Convert(v.Map())
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	}
	return nil, fmt.Errorf("unknown data type %v", v.DataType())
}
