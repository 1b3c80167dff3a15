package localtest

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/testkit/awsmodel"
	"github.com/botix/public-api/infra/tools/awstools"
)

// CountsEnv names a file to which each end-to-end test appends how many
// AWS requests and answers it checked against AWS's API models, a line
// per service: "<test>\t<service>\t<requests>\t<answers>". docs/operators.md
// sums them.
const CountsEnv = "BOTIX_AWSMODEL_COUNTS"

// deviation is a known way DynamoDB Local answers outside DynamoDB's
// model. The checker stays strict; a deviation is matched here, with its
// reason, and only in the engine's answers.
type deviation struct {
	path       string // a suffix of the violation's member path
	problem    string // a prefix of its problem
	errorsOnly bool   // only in error answers ("error <Code>.<member>")
	reason     string
}

// dynamoDBLocalDeviations are the known departures of DynamoDB Local's
// answers from DynamoDB's model (DynamoDB Local is Amazon's engine, not
// the service; its answers reach the functions as they are).
var dynamoDBLocalDeviations = []deviation{
	{
		path: "ProvisionedThroughput.NumberOfDecreasesToday", problem: "value 0 < min 1",
		reason: "a table never decreased has had 0 decreases today, and DynamoDB Local says so; the model's " +
			"minimum of 1 (API reference, ProvisionedThroughputDescription: \"Valid Range: Minimum value of 1\") " +
			"cannot describe a count that starts at 0: the model's slip more than the engine's",
	},
	{
		path: "UnprocessedItems", problem: "size 0 < min 1",
		reason: "a BatchWriteItem that wrote every item answers UnprocessedItems: {}, as the model's own text " +
			"says (\"If there are no unprocessed items remaining, the response contains an empty UnprocessedItems " +
			"map\"); its shape is the request's BatchWriteItemRequestMap, whose minimum of 1 is the request's",
	},
	{
		path: ".Message", problem: "not a member of", errorsOnly: true,
		reason: "DynamoDB Local names an error's message Message (ConditionalCheckFailedException, Streams' " +
			"TrimmedDataAccessException); DynamoDB's models say message, the JSON protocol's error body " +
			"being __type and message. The SDKs read either",
	},
}

func (d deviation) matches(v awsmodel.Violation) bool {
	return v.Direction == awsmodel.Response && (v.Service == "DynamoDB" || v.Service == "DynamoDB Streams") &&
		(!d.errorsOnly || strings.HasPrefix(v.Path, "error ")) &&
		strings.HasSuffix(v.Path, d.path) && strings.HasPrefix(v.Problem, d.problem)
}

// awsLog collects what the runtime's AWS exchanges break of the models.
type awsLog struct {
	mu         sync.Mutex
	tally      awsmodel.Tally
	violations map[string]int // by text, to report each once with its count
	examples   map[string]string
	expected   []string // prefixes of violations the test provokes on purpose
	more       int      // violations past the first maxReported distinct ones
}

// maxReported bounds the distinct violations a test reports (and keeps).
const maxReported = 50

// awsLogs finds a runtime's log, for ExpectAWSViolation.
var awsLogs sync.Map // *local.Runtime -> *awsLog

// ExpectAWSViolation declares that the test sends, on purpose, an exchange
// that breaks AWS's models (a request for a service the local AWS does not
// emulate, to see its refusal): the violations whose text starts with
// prefix do not fail the test, and the test fails if none happened.
func ExpectAWSViolation(t testing.TB, rt *local.Runtime, prefix string) {
	t.Helper()
	l, ok := awsLogs.Load(rt)
	if !ok {
		t.Fatal("localtest: ExpectAWSViolation takes a runtime that localtest.Runtime started")
	}
	log := l.(*awsLog)
	log.mu.Lock()
	defer log.mu.Unlock()
	log.expected = append(log.expected, prefix)
}

// checkAWSModels makes the runtime hand every exchange with the local AWS
// (SQS, Scheduler, Lambda Invoke, DynamoDB and its streams) to botocore's
// models; the test fails at its end with what broke them.
func checkAWSModels(t testing.TB, cfg *local.Config) *awsLog {
	t.Helper()
	dir, err := awstools.ModelsDir(awstools.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	models, err := awsmodel.Default(dir)
	if err != nil {
		t.Fatal(err)
	}
	log := &awsLog{tally: awsmodel.Tally{}, violations: map[string]int{}, examples: map[string]string{}}
	next := cfg.OnAWSExchange
	cfg.OnAWSExchange = func(ex local.AWSExchange) {
		if next != nil {
			next(ex)
		}
		res := models.Check(ex)
		log.mu.Lock()
		defer log.mu.Unlock()
		log.tally.Add(res)
		for _, v := range res.Violations {
			if known(v) {
				continue
			}
			s := v.String()
			if log.violations[s] == 0 {
				if len(log.violations) >= maxReported {
					log.more++
					continue
				}
				log.examples[s] = fmt.Sprintf("%s %s %.300s -> %d %.300s", ex.Method, ex.URL, ex.RequestBody, ex.Status, ex.ResponseBody)
			}
			log.violations[s]++
		}
	}
	return log
}

func known(v awsmodel.Violation) bool {
	for _, d := range dynamoDBLocalDeviations {
		if d.matches(v) {
			return true
		}
	}
	return false
}

// report fails the test with each violation (once, with how often it
// happened and one exchange that showed it) and writes the counts.
func (l *awsLog) report(t testing.TB) {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := make([]bool, len(l.expected))
violations:
	for _, s := range slices.Sorted(maps.Keys(l.violations)) {
		n := l.violations[s]
		for i, p := range l.expected {
			if strings.HasPrefix(s, p) {
				seen[i] = true
				continue violations
			}
		}
		t.Errorf("AWS API model violated (%d times): %s\n\texchange: %s", n, s, l.examples[s])
	}
	if l.more > 0 {
		t.Errorf("AWS API model violated: %d more violations, not listed", l.more)
	}
	for i, p := range l.expected {
		if !seen[i] {
			t.Errorf("the test expected an AWS API model violation starting %q, and none happened", p)
		}
	}
	var lines strings.Builder
	for _, svc := range l.tally.Services() {
		c := l.tally[svc]
		fmt.Fprintf(&lines, "%s\t%s\t%d\t%d\n", t.Name(), svc, c.Requests, c.Responses)
	}
	if path := os.Getenv(CountsEnv); path != "" && lines.Len() > 0 {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		if _, err := f.WriteString(lines.String()); err != nil {
			t.Error(err)
		}
	}
}
