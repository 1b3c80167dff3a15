package api

import (
	"context"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
)

// MaxImportBody is the body limit of catalog imports: room for 1000 items,
// while the stored import stays far below DynamoDB's 400 KB item limit.
const MaxImportBody = 256 << 10

// Catalog serves /public/v1/catalog.
type Catalog struct {
	Deps
}

// Import is POST /public/v1/catalog/imports: the import (all its items in
// one item) and its catalog.imported event commit together; the catalog
// applier then upserts the items by SKU from the table's stream.
func (c *Catalog) Import(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	var in domain.ImportInput
	if err := httpapi.Decode(r.Body, &in); err != nil {
		return Outcome{}, err
	}
	if err := in.Validate().Err(); err != nil {
		return Outcome{}, err
	}
	now := c.now()
	imp := domain.CatalogImport{ID: ids.New(ids.Import, now), Status: store.ImportAccepted, ItemsCount: len(in.Items), CreatedAt: ids.Timestamp(now)}
	var plan store.Plan
	if err := c.Store.AddImport(&plan, r.Project, imp, in.CatalogItems()); err != nil {
		return Outcome{}, err
	}
	if err := addEvent(c.Store, &plan, r.Project, domain.EventCatalogImported, imp, now); err != nil {
		return Outcome{}, err
	}
	return accepted(imp, plan)
}
