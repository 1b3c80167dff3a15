package makerun_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/internal/awslimits"
)

// jsonOfSize is a JSON object of exactly n bytes (n >= 32).
func jsonOfSize(n int) []byte {
	const head, tail = `{"action":"nope","pad":"`, `"}`
	return []byte(head + strings.Repeat("x", n-len(head)-len(tail)) + tail)
}

// TestLocalAWSKeepsAWSLimits: the local AWS endpoint's Lambda Invoke and
// the local API Gateway take a request exactly at AWS's bound and refuse
// one byte more as AWS does — Invoke with RequestTooLargeException (413),
// synchronous and asynchronous each at its own bound; the HTTP API with
// its own 413 before any function runs.
func TestLocalAWSKeepsAWSLimits(t *testing.T) {
	rt := localtest.Runtime(t, local.Config{})
	lambdas := lambda.NewFromConfig(localtest.AWSConfig(t, rt))
	ctx := context.Background()

	invoke := func(typ lambdatypes.InvocationType, size int) func() error {
		return func() error {
			_, err := lambdas.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String("botix-local-AdminFunction"), InvocationType: typ, Payload: jsonOfSize(size)})
			return err
		}
	}
	for _, tc := range []struct {
		name     string
		call     func() error
		tooLarge bool
	}{
		{"a synchronous request of exactly 6 MB is invoked", invoke(lambdatypes.InvocationTypeRequestResponse, awslimits.LambdaPayloadBytes), false},
		{"one byte more → RequestTooLargeException", invoke(lambdatypes.InvocationTypeRequestResponse, awslimits.LambdaPayloadBytes+1), true},
		{"an asynchronous request of exactly 1 MB is queued", invoke(lambdatypes.InvocationTypeEvent, awslimits.LambdaAsyncPayloadBytes), false},
		{"one byte more → RequestTooLargeException", invoke(lambdatypes.InvocationTypeEvent, awslimits.LambdaAsyncPayloadBytes+1), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var tooLarge *lambdatypes.RequestTooLargeException
			if got := errors.As(err, &tooLarge); got != tc.tooLarge {
				t.Fatalf("Invoke: %v; want RequestTooLargeException: %v", err, tc.tooLarge)
			}
		})
	}

	// The gateway's own answer is its message; past the gateway, a
	// function answers (here 401: no API key).
	const gatewayTooLarge = `{"message":"Request Entity Too Large"}`
	post := func(t *testing.T, size int) (int, string) {
		t.Helper()
		res, err := http.Post(rt.URL+"/public/v1/contacts", "application/json", bytes.NewReader(bytes.Repeat([]byte("x"), size)))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, strings.TrimSpace(string(body))
	}
	t.Run("an HTTP API request of exactly 10 MB reaches its function", func(t *testing.T) {
		if status, body := post(t, awslimits.HTTPAPIPayloadBytes); body == gatewayTooLarge {
			t.Fatalf("%d %s: refused by the gateway", status, body)
		}
	})
	t.Run("one byte more → 413 Request Entity Too Large from the gateway", func(t *testing.T) {
		if status, body := post(t, awslimits.HTTPAPIPayloadBytes+1); status != http.StatusRequestEntityTooLarge || body != gatewayTooLarge {
			t.Fatalf("%d %s, want 413 %s", status, body, gatewayTooLarge)
		}
	})
}
