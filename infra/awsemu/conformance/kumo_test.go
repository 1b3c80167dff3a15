package conformance_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/sivchari/kumo"

	"github.com/botix/public-api/infra/awsemu"
)

// The scenario against kumo, an independent emulator in Go (a test-only
// dependency): every step agrees but kumo's known gaps.
func TestAgreesWithKumo(t *testing.T) {
	srv := awsemu.StartTestServer("us-east-1", "000000000000")
	t.Cleanup(srv.Close)
	k := kumo.NewServer()
	t.Cleanup(k.Close)
	compare(t, "kumo", scenario(t, srv.URL), scenario(t, k.URL), kumoGaps)
}

var (
	attributesDigest = regexp.MustCompile(`(md5 attributes|attrs-md5) [0-9a-f]*`)
	sentDigest       = regexp.MustCompile(`(md5 attributes|attrs-md5) [0-9a-f]{32}`)
)

// kumoGaps are where kumo departs from AWS's documentation and ours does
// not.
var kumoGaps = []gap{
	{
		match: func(theirs, ours string) bool {
			return sentDigest.MatchString(ours) && attributesDigest.ReplaceAllString(theirs, "$1") == attributesDigest.ReplaceAllString(ours, "$1")
		},
		what: "kumo sends no MD5OfMessageAttributes; TestMessageAttributesDigest checks ours against published digests",
		cite: "SQS API Reference, SendMessage, Response Elements: https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html",
	},
	{
		match: func(theirs, ours string) bool {
			code, _ := strings.CutPrefix(ours[strings.LastIndex(ours, " ")+1:], "AWS.SimpleQueueService.")
			return strings.HasSuffix(theirs, " "+code) && strings.Contains(ours, " AWS.SimpleQueueService.")
		},
		what: "kumo sends no x-amzn-query-error header, which carries SQS's query error code (AWS.SimpleQueueService.*) that the SDK reports",
		cite: "SQS Developer Guide, Interpreting Amazon SQS JSON API responses: https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-json-api-responses.html",
	},
	{
		match: func(theirs, ours string) bool {
			return strings.Contains(theirs, `group ""`) || strings.Contains(theirs, "(group , ")
		},
		what: "kumo keeps a standard queue's MessageGroupId but does not return it as the MessageGroupId system attribute",
		cite: "SQS API Reference, ReceiveMessage, MessageSystemAttributeNames: https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_ReceiveMessage.html",
	},
	{
		match: func(theirs, ours string) bool {
			return strings.Contains(theirs, " count 1 ") && strings.Contains(ours, " count 3 ") &&
				attributesDigest.ReplaceAllString(strings.Replace(theirs, " count 1 ", " count 3 ", 1), "$1") == attributesDigest.ReplaceAllString(ours, "$1")
		},
		what: "kumo resets a dead-lettered message's receive count; SQS moves the message itself (its enqueue timestamp unchanged), and moto keeps the count",
		cite: "SQS Developer Guide, Setting-up dead-letter queue retention in Amazon SQS: https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/setting-up-dead-letter-queue-retention.html",
	},
	{
		match: func(theirs, ours string) bool {
			return strings.HasSuffix(theirs, "move task: InvalidAction") || strings.HasSuffix(theirs, "move tasks: InvalidAction")
		},
		what: "kumo does not serve message move tasks",
		cite: "SQS API Reference, StartMessageMoveTask: https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_StartMessageMoveTask.html",
	},
	{
		match: func(theirs, ours string) bool {
			return theirs == "depth 0 visible, 2 in flight, 1 delayed" && ours == "depth 1 visible, 1 in flight, 1 delayed" ||
				theirs == "depth 0 visible, 1 in flight, 1 delayed" && ours == "depth 1 visible, 0 in flight, 1 delayed"
		},
		what: "kumo's ChangeMessageVisibilityBatch answers success for a VisibilityTimeout of 0 but leaves the message in flight; the timeout (minimum 0) counts from the call",
		cite: "SQS API Reference, ChangeMessageVisibility: https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_ChangeMessageVisibility.html",
	},
	{
		match: step("receive eleven: no API error but <nil>", "receive eleven: InvalidParameterValue"),
		what:  "kumo accepts MaxNumberOfMessages 11; its valid values are 1 to 10",
		cite:  "SQS API Reference, ReceiveMessage, MaxNumberOfMessages: https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_ReceiveMessage.html",
	},
}
