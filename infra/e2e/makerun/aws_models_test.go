package makerun_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/localtest"
)

// Every exchange with the local AWS reaches Config.OnAWSExchange, which
// localtest.Runtime checks against AWS's API models: the runtime's own
// DynamoDB calls (tables) and stream reads, the functions' DynamoDB
// calls (through the recording proxy), and the AWS endpoint's (SQS here).
func TestEveryAWSExchangeIsRecorded(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	rt := localtest.Runtime(t, local.Config{OnAWSExchange: func(ex local.AWSExchange) {
		mu.Lock()
		defer mu.Unlock()
		seen[ex.RequestHeader.Get("X-Amz-Target")] = true
	}})
	localtest.Project(t, rt, "") // the admin function writes the project
	client := sqs.NewFromConfig(localtest.AWSConfig(t, rt))
	if _, err := client.ListQueues(context.Background(), &sqs.ListQueuesInput{}); err != nil {
		t.Fatal(err)
	}
	writes := []string{"DynamoDB_20120810.PutItem", "DynamoDB_20120810.TransactWriteItems", "DynamoDB_20120810.UpdateItem", "DynamoDB_20120810.BatchWriteItem"}
	for _, c := range []struct {
		who     string
		targets []string
	}{
		{"the runtime's tables", []string{"DynamoDB_20120810.CreateTable"}},
		{"the runtime's stream poller", []string{"DynamoDBStreams_20120810.GetRecords"}},
		{"the admin function's write", writes},
		{"the AWS endpoint", []string{"AmazonSQS.ListQueues"}},
	} {
		deadline := time.Now().Add(60 * time.Second) // generous: streams are polled, on a busy machine
		for {
			mu.Lock()
			ok := slices.ContainsFunc(c.targets, func(s string) bool { return seen[s] })
			mu.Unlock()
			if ok {
				break
			}
			if time.Now().After(deadline) {
				mu.Lock()
				have := recordedTargets(seen)
				mu.Unlock()
				t.Fatalf("%s: none of %s recorded; seen %s", c.who, strings.Join(c.targets, ", "), have)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

func recordedTargets(m map[string]bool) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
