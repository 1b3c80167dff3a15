// Package catalogapply is the catalog applier: a DynamoDB stream consumer
// that upserts the items of accepted catalog imports into the catalog, by
// SKU, in import order.
package catalogapply

import (
	"context"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/botix/public-api/internal/store"
	"github.com/botix/public-api/internal/streamimage"
)

// Applier applies imports from stream records.
type Applier struct {
	Store *store.Store
	Log   *slog.Logger
}

// Handle is the Lambda handler (stream source with ReportBatchItemFailures).
// Records are applied in order; at the first failure the rest of the batch
// is reported failed too, so that Lambda retries from there and a later
// import is never applied before an earlier one.
func (a *Applier) Handle(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	var resp events.DynamoDBEventResponse
	for i, rec := range ev.Records {
		var imp store.ImportItem
		err := streamimage.Decode(rec.Change.NewImage, &imp)
		if err == nil && imp.Entity == store.EntityCatalogImport {
			err = a.Store.ApplyImport(ctx, imp)
		}
		if err != nil {
			a.Log.ErrorContext(ctx, "catalog import not applied; will retry", "import_id", imp.ID, "error", err.Error())
			for _, r := range ev.Records[i:] {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: r.Change.SequenceNumber})
			}
			return resp, nil
		}
	}
	return resp, nil
}
