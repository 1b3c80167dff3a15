package apicontract_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/botix/public-api/infra/testkit/docs"
	"github.com/botix/public-api/internal/awslimits"
)

// awsLimits are the rows of docs/operators.md's "AWS limits the stack
// meets", by the limit's name (its first column up to the AWS link), and
// the figure package awslimits holds for each.
var awsLimits = map[string]any{
	"SQS message size":              size(awslimits.SQSMessageBytes),
	"SQS batch entries":             awslimits.SQSBatchEntries,
	"SQS batch size":                size(awslimits.SQSBatchBytes),
	"SQS message delay":             awslimits.SQSMaxDelay,
	"DynamoDB item size":            size(awslimits.DynamoDBItemBytes),
	"TransactWriteItems actions":    awslimits.DynamoDBTransactItems,
	"TransactWriteItems size":       size(awslimits.DynamoDBTransactBytes),
	"Query page":                    size(awslimits.DynamoDBQueryPageBytes),
	"BatchWriteItem requests":       awslimits.DynamoDBBatchWriteItems,
	"Lambda synchronous payload":    size(awslimits.LambdaPayloadBytes),
	"Lambda asynchronous payload":   size(awslimits.LambdaAsyncPayloadBytes),
	"Lambda timeout":                awslimits.LambdaMaxTimeout,
	"HTTP API payload":              size(awslimits.HTTPAPIPayloadBytes),
	"HTTP API integration timeout":  awslimits.HTTPAPIIntegrationTimeout,
	"event source batch size":       awslimits.LambdaMaxBatchSize,
	"stream ParallelizationFactor":  []int{awslimits.LambdaMinParallelization, awslimits.LambdaMaxParallelization},
	"SQS source MaximumConcurrency": []int{awslimits.LambdaMinSQSConcurrency, awslimits.LambdaMaxSQSConcurrency},
	"account concurrency":           awslimits.LambdaAccountConcurrency,
	"Scheduler CreateSchedule rate": awslimits.SchedulerCreateScheduleRate,
}

var (
	limitsSection = regexp.MustCompile(`(?s)\n### AWS limits the stack meets\n(.*?)\n### `)
	limitRow      = regexp.MustCompile(`(?m)^\| ([^|]+?) \| ([^|]+?) \| ([^|]+?) \| ([^|]+?) \|$`)
	// A figure leads its cell: a number, a range, a size or a duration.
	leadingFigure = regexp.MustCompile(`^(\d+(?: to \d+)?(?: (?:KB|KiB|MB|MiB|s))?)\b`)
	// What names rather than states: code in backticks, link targets.
	named = regexp.MustCompile("`[^`]*`|\\]\\([^)]*\\)")
)

// TestAWSLimitsTableIsTheCodes: each row of the operators' table of AWS
// limits states the figure package awslimits declares, every limit has
// its row, and no other cell states a figure no constant holds.
func TestAWSLimitsTableIsTheCodes(t *testing.T) {
	m := limitsSection.FindStringSubmatch(docs.Read(t, docs.Operators))
	if m == nil {
		t.Fatal(`docs/operators.md has no "### AWS limits the stack meets" section`)
	}
	seen := map[string]bool{}
	for _, row := range limitRow.FindAllStringSubmatch(m[1], -1) {
		name, _, _ := strings.Cut(row[1], " (")
		if name == "limit" || strings.HasPrefix(name, "---") {
			continue
		}
		want, ok := awsLimits[name]
		if !ok {
			t.Errorf("row %q: no constant of awslimits is bound to it (add it to awsLimits)", name)
			continue
		}
		seen[name] = true
		fig := leadingFigure.FindString(row[2])
		got, err := value(strings.ReplaceAll(fig, " to ", " "), want)
		if fig == "" || err != nil {
			t.Errorf("row %q: %q does not start with a figure (%v)", name, row[2], err)
		} else if !same(got, want) {
			t.Errorf("row %q says %q; awslimits says %v", name, fig, want)
		}
		for i, cell := range []string{row[1], row[2][len(fig):], row[3], row[4]} {
			if d := regexp.MustCompile(`\d+`).FindString(named.ReplaceAllString(cell, "")); d != "" {
				t.Errorf("row %q, column %d: the figure %s is bound to no constant", name, []int{1, 2, 3, 4}[i], d)
			}
		}
	}
	for name := range awsLimits {
		if !seen[name] {
			t.Errorf("the table has no row %q", name)
		}
	}
}
