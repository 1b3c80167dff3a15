// Package functionenv is the environment a function gets in tests and
// benchmarks that call its builder directly (no local runtime): the tables,
// the local credentials and the pagination configuration. It is apart from
// infra/testkit/dynamotest so that a test needing only DynamoDB Local does not link
// internal/app (and with it every AWS client a function may use).
package functionenv

import (
	"strconv"
	"testing"
	"time"

	"github.com/botix/public-api/infra/run/ddblocal"
	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/pagination"
	"github.com/botix/public-api/internal/store"
)

// For returns the environment a function gets in the local runtime for
// tables, so that builders can be called directly in tests.
func For(t testing.TB, tables store.Tables, extra map[string]string) app.Env {
	env := map[string]string{
		"AWS_REGION": ddblocal.Region, "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
		"AWS_ENDPOINT_URL_DYNAMODB": dynamotest.Endpoint(t),
		app.EnvDataTable:            tables.Data, app.EnvIdempotencyTable: tables.Idempotency, app.EnvDeliveriesTable: tables.Deliveries,
	}
	for k, v := range extra {
		env[k] = v
	}
	return func(k string) string { return env[k] }
}

// CursorKeys is the cursor signing key ring of tests ("k1").
const CursorKeys = "k1:test-cursor-secret-0123456789abcdef0123"

// PaginationEnv is the pagination configuration of tests: the template's
// defaults with a test signing key.
func PaginationEnv() map[string]string {
	o := pagination.DefaultOffset
	return map[string]string{
		app.EnvCursorKeys: CursorKeys, app.EnvOffsetMax: strconv.Itoa(o.Max),
		app.EnvOffsetDeprecated: o.DeprecatedAt.Format(time.RFC3339), app.EnvOffsetSunset: o.SunsetAt.Format(time.RFC3339),
		app.EnvOffsetDocsURL: o.DocsURL, app.EnvOffsetTimeBudget: o.TimeBudget.String(),
	}
}
