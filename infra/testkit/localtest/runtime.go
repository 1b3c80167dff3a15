// Package localtest starts the local runtime for end-to-end tests and
// talks to it: projects through the admin function, HTTP calls, webhook
// receivers, and the sample events of events/.
package localtest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/testkit/apicontract"
	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/admin"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/awsenv"
)

// Runtime starts the local runtime on a free port over fresh tables and
// stops it when the test ends. cfg's Template, DynamoDBEndpoint and
// TablePrefix are filled in.
func Runtime(t testing.TB, cfg local.Config) *local.Runtime {
	t.Helper()
	tpl, err := template.LoadRepo()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Template = tpl
	cfg.DynamoDBEndpoint = dynamotest.Endpoint(t)
	cfg.TablePrefix = dynamotest.UniquePrefix()
	if os.Getenv("BOTIX_TEST_LOGS") == "" {
		// Function logs are noise in test output unless asked for.
		cfg.Options = append([]app.Option{app.WithLogger(slog.New(slog.DiscardHandler))}, cfg.Options...)
	}
	contract := checkContract(t, &cfg)
	models := checkAWSModels(t, &cfg)
	rt, err := local.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	awsLogs.Store(rt, models)
	t.Cleanup(func() {
		_ = rt.Close()
		awsLogs.Delete(rt)
		contract.report(t)
		models.report(t)
		// Every call a function made must be one its IAM policy allows.
		for _, c := range rt.UndeclaredCalls() {
			t.Errorf("undeclared AWS call (add it to registry.Permissions and template.yaml, or remove it): %s", c)
		}
	})
	return rt
}

// Project creates a project through the admin function and returns its id
// and a fresh API key (or apiKey when given).
func Project(t testing.TB, rt *local.Runtime, apiKey string) (string, string) {
	t.Helper()
	out, err := rt.Invoke(context.Background(), "AdminFunction", admin.Request{Action: "create_project", Name: "test", APIKey: apiKey})
	if err != nil {
		t.Fatal(err)
	}
	var resp admin.Response
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatal(err)
	}
	return resp.Project.ID, resp.APIKey
}

// AWSConfig is what the AWS CLI gets from the Quickstart's local settings:
// the runtime's AWS endpoint, region us-east-1, credentials local/local.
func AWSConfig(t testing.TB, rt *local.Runtime) aws.Config {
	t.Helper()
	return AWSConfigAt(t, rt.AWSURL)
}

// AWSConfigAt is that configuration for another AWS endpoint at url (moto's
// server, in the deploy rehearsal).
func AWSConfigAt(t testing.TB, url string) aws.Config {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion(local.Region), config.WithBaseEndpoint(url),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	if err != nil {
		t.Fatal(err)
	}
	cfg.HTTPClient = awsenv.OwnBodies(cfg.HTTPClient)
	return cfg
}

// contractLog collects the exchanges that break the OpenAPI document.
type contractLog struct {
	mu       sync.Mutex
	problems []string
}

// checkContract makes the runtime check every exchange against
// sdk/openapi.yaml; the test fails at its end with what broke it.
func checkContract(t testing.TB, cfg *local.Config) *contractLog {
	t.Helper()
	v, err := apicontract.Shared()
	if err != nil {
		t.Fatal(err)
	}
	log := &contractLog{}
	next := cfg.OnExchange
	cfg.OnExchange = func(ex apicontract.Exchange) {
		if next != nil {
			next(ex)
		}
		problems := v.Check(ex)
		log.mu.Lock()
		defer log.mu.Unlock()
		for _, p := range problems {
			if len(log.problems) < 20 {
				log.problems = append(log.problems, fmt.Sprintf("%s %s -> %d %.300s: %s", ex.Method, ex.URL, ex.Status, ex.ResponseBody, p))
			}
		}
	}
	return log
}

func (l *contractLog) report(t testing.TB) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.problems {
		t.Errorf("the exchange breaks sdk/openapi.yaml: %s", p)
	}
}
