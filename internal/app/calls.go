package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/scheduler"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/middleware"
)

// Permission is an IAM action on a resource. In the registry the resource
// is a template logical id; a CallRecorder receives the physical name the
// call used (table name, queue URL, schedule group, role ARN).
type Permission struct {
	Action   string
	Resource string
}

// CallRecorder receives the IAM permissions each AWS call of a function
// needs.
type CallRecorder func(Permission)

// WithCallRecorder makes the function report every AWS call it makes.
func WithCallRecorder(rec CallRecorder) Option { return func(x *options) { x.calls = rec } }

// recordCalls is a client option that reports the permissions of each call
// from its input, before it is sent.
func recordCalls(rec CallRecorder) func(*middleware.Stack) error {
	return func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("app.recordCalls", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			for _, p := range permissionsOf(in.Parameters) {
				rec(p)
			}
			return next.HandleInitialize(ctx, in)
		}), middleware.Before)
	}
}

// permissionsOf names the IAM permissions an SDK input needs.
func permissionsOf(input any) []Permission {
	ddb := func(action string, table *string) Permission {
		return Permission{Action: "dynamodb:" + action, Resource: aws.ToString(table)}
	}
	switch in := input.(type) {
	case *dynamodb.GetItemInput:
		return []Permission{ddb("GetItem", in.TableName)}
	case *dynamodb.PutItemInput:
		return []Permission{ddb("PutItem", in.TableName)}
	case *dynamodb.UpdateItemInput:
		return []Permission{ddb("UpdateItem", in.TableName)}
	case *dynamodb.DeleteItemInput:
		return []Permission{ddb("DeleteItem", in.TableName)}
	case *dynamodb.QueryInput:
		p := ddb("Query", in.TableName)
		if in.IndexName != nil {
			p.Resource += "/index/" + *in.IndexName
		}
		return []Permission{p}
	case *dynamodb.TransactWriteItemsInput:
		var out []Permission
		for _, it := range in.TransactItems {
			switch {
			case it.Put != nil:
				out = append(out, ddb("PutItem", it.Put.TableName))
			case it.Update != nil:
				out = append(out, ddb("UpdateItem", it.Update.TableName))
			case it.Delete != nil:
				out = append(out, ddb("DeleteItem", it.Delete.TableName))
			case it.ConditionCheck != nil:
				out = append(out, ddb("ConditionCheckItem", it.ConditionCheck.TableName))
			}
		}
		return out
	case *dynamodb.BatchWriteItemInput:
		var out []Permission
		for table, reqs := range in.RequestItems {
			for _, r := range reqs {
				if r.PutRequest != nil {
					out = append(out, Permission{Action: "dynamodb:PutItem", Resource: table})
				} else {
					out = append(out, Permission{Action: "dynamodb:DeleteItem", Resource: table})
				}
			}
		}
		return out
	case *sqs.SendMessageInput:
		return []Permission{{Action: "sqs:SendMessage", Resource: aws.ToString(in.QueueUrl)}}
	case *sqs.SendMessageBatchInput:
		return []Permission{{Action: "sqs:SendMessage", Resource: aws.ToString(in.QueueUrl)}}
	case *sqs.ReceiveMessageInput:
		return []Permission{{Action: "sqs:ReceiveMessage", Resource: aws.ToString(in.QueueUrl)}}
	case *sqs.DeleteMessageInput:
		return []Permission{{Action: "sqs:DeleteMessage", Resource: aws.ToString(in.QueueUrl)}}
	case *sqs.ChangeMessageVisibilityInput:
		return []Permission{{Action: "sqs:ChangeMessageVisibility", Resource: aws.ToString(in.QueueUrl)}}
	case *scheduler.CreateScheduleInput:
		out := []Permission{{Action: "scheduler:CreateSchedule", Resource: aws.ToString(in.GroupName) + "/*"}}
		if in.Target != nil {
			out = append(out, Permission{Action: "iam:PassRole", Resource: aws.ToString(in.Target.RoleArn)})
		}
		return out
	}
	name := strings.TrimPrefix(strings.TrimSuffix(typeName(input), "Input"), "*")
	return []Permission{{Action: "unknown:" + name, Resource: "?"}}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
