// Package awsenv builds AWS SDK configuration from a function's
// environment. In Lambda that is the process environment; in the local
// runtime it is the environment template.yaml gives the function, plus the
// local endpoints. The variable names are the SDK's own
// (AWS_REGION, AWS_ENDPOINT_URL_<SERVICE>, ...).
package awsenv

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go/logging"
)

// Env looks up an environment variable ("" when unset).
type Env func(string) string

// Load returns the SDK configuration for env; the SDK's own log lines go
// to log.
func Load(ctx context.Context, env Env, log *slog.Logger) (aws.Config, error) {
	opts := []func(*config.LoadOptions) error{config.WithLogger(sdkLogger{log})}
	if r := env("AWS_REGION"); r != "" {
		opts = append(opts, config.WithRegion(r))
	}
	if id := env("AWS_ACCESS_KEY_ID"); id != "" {
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(id, env("AWS_SECRET_ACCESS_KEY"), env("AWS_SESSION_TOKEN"))))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	cfg.HTTPClient = OwnBodies(cfg.HTTPClient)
	return cfg, err
}

// sdkLogger writes the SDK's log lines as structured warnings/debug lines.
type sdkLogger struct{ log *slog.Logger }

func (l sdkLogger) Logf(c logging.Classification, format string, v ...any) {
	level := slog.LevelDebug
	if c == logging.Warn {
		level = slog.LevelWarn
	}
	l.log.Log(context.Background(), level, "aws sdk: "+fmt.Sprintf(format, v...))
}

// LocalDynamoDB reports whether DynamoDB is a local engine (an endpoint
// override). DynamoDB Local answers some requests with X-Amz-Crc32: 0, so
// response checksum validation is off there, and only there.
func LocalDynamoDB(env Env) bool { return Endpoint(env, "DYNAMODB") != nil }

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
