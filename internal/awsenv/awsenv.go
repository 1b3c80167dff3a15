// Package awsenv builds AWS SDK configuration from a function's
// environment. In Lambda that is the process environment; in the local
// runtime it is the environment template.yaml gives the function, plus the
// local endpoints. The variable names are the SDK's own
// (AWS_REGION, AWS_ENDPOINT_URL_<SERVICE>, ...).
package awsenv

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// Env looks up an environment variable ("" when unset).
type Env func(string) string

// Load returns the SDK configuration for env.
func Load(ctx context.Context, env Env) (aws.Config, error) {
	var opts []func(*config.LoadOptions) error
	if r := env("AWS_REGION"); r != "" {
		opts = append(opts, config.WithRegion(r))
	}
	if id := env("AWS_ACCESS_KEY_ID"); id != "" {
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(id, env("AWS_SECRET_ACCESS_KEY"), env("AWS_SESSION_TOKEN"))))
	}
	return config.LoadDefaultConfig(ctx, opts...)
}

// Endpoint returns the endpoint override for a service, named as the SDK
// names it in AWS_ENDPOINT_URL_<SERVICE> (e.g. "DYNAMODB", "SQS"), falling
// back to AWS_ENDPOINT_URL; nil when neither is set (the AWS endpoint).
func Endpoint(env Env, service string) *string {
	if v := env("AWS_ENDPOINT_URL_" + service); v != "" {
		return aws.String(v)
	}
	if v := env("AWS_ENDPOINT_URL"); v != "" {
		return aws.String(v)
	}
	return nil
}
