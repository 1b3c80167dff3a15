package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
)

// EntityCatalogImport is the entity of import items; the catalog applier's
// stream filter in template.yaml selects INSERTs of it.
const EntityCatalogImport = "catalog_import"

// Import statuses.
const (
	ImportAccepted = "accepted"
	ImportApplied  = "applied"
)

// ImportItem is an accepted catalog import as stored: the whole import is
// one item (at most 1000 items fit well under 400 KB), so that it commits
// atomically with its event and idempotency record.
type ImportItem struct {
	PK         string `dynamodbav:"pk"`
	SK         string `dynamodbav:"sk"`
	Entity     string `dynamodbav:"entity"`
	ProjectID  string `dynamodbav:"project_id"`
	ID         string `dynamodbav:"id"`
	Status     string `dynamodbav:"status"`
	ItemsCount int    `dynamodbav:"items_count"`
	CreatedAt  string `dynamodbav:"created_at"`
	// Items is the JSON array of domain.CatalogItem.
	Items string `dynamodbav:"items"`
}

// AddImport adds the write of an accepted import to the plan.
func (s *Store) AddImport(p *Plan, project string, imp domain.CatalogImport, items []domain.CatalogItem) error {
	u, err := ids.Parse(ids.Import, imp.ID)
	if err != nil {
		return err
	}
	raw, err := unescapedJSON(items)
	if err != nil {
		return err
	}
	w, err := put(s.Tables.Data, ImportItem{
		PK: scoped(project, "IMP"), SK: u.String(), Entity: EntityCatalogImport, ProjectID: project,
		ID: imp.ID, Status: imp.Status, ItemsCount: imp.ItemsCount, CreatedAt: imp.CreatedAt, Items: string(raw),
	}, "attribute_not_exists(pk)")
	if err != nil {
		return err
	}
	p.Add(w, nil)
	return nil
}

// unescapedJSON is v as JSON with no character escaped that JSON lets
// stand as it is: Go writes "<", ">", "&" (HTML escaping) and U+2028,
// U+2029 (always) as six-byte \uXXXX escapes, which would grow an
// import's names of them up to sixfold, past DynamoDB's 400 KB item for
// an import within the API's body limit. Unescaped, the stored items are
// no longer than the body that brought them, plus their currency.
func unescapedJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	in := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); i++ {
		if in[i] != '\\' || i+1 == len(in) {
			out = append(out, in[i])
			continue
		}
		// An escape: \u2028 and \u2029 become the character; any other
		// is kept whole, so that an escaped backslash is never read as
		// the start of one.
		switch string(in[i:min(i+6, len(in))]) {
		case `\u2028`:
			out, i = utf8.AppendRune(out, '\u2028'), i+5
			continue
		case `\u2029`:
			out, i = utf8.AppendRune(out, '\u2029'), i+5
			continue
		}
		out = append(out, in[i], in[i+1])
		i++
	}
	return out, nil
}

// applyConcurrency bounds the parallel item writes of one import.
const applyConcurrency = 16

// ApplyImport upserts the items of an import into the project's catalog.
// Each SKU keeps the item of the newest import that wrote it: a write is
// conditioned on the stored import id being older or equal, so applying an
// import twice (stream redelivery) or late (after a newer import) is safe.
func (s *Store) ApplyImport(ctx context.Context, imp ImportItem) error {
	var items []domain.CatalogItem
	if err := json.Unmarshal([]byte(imp.Items), &items); err != nil {
		return err
	}
	sem := make(chan struct{}, applyConcurrency)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for _, it := range items {
		wg.Add(1)
		sem <- struct{}{}
		go func(it domain.CatalogItem) {
			defer func() { <-sem; wg.Done() }()
			if err := s.upsertCatalogItem(ctx, imp, it); err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}(it)
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.Tables.Data),
		Key:                       keyAV(key(imp.PK, imp.SK)),
		UpdateExpression:          aws.String("SET #status = :applied"),
		ExpressionAttributeNames:  map[string]string{"#status": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":applied": str(ImportApplied)},
	})
	return classify(err)
}

func (s *Store) upsertCatalogItem(ctx context.Context, imp ImportItem, it domain.CatalogItem) error {
	_, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.Tables.Data),
		Key:                      keyAV(key(scoped(imp.ProjectID, "CATALOG"), it.SKU)),
		UpdateExpression:         aws.String("SET entity = :entity, sku = :sku, #name = :name, price = :price, currency = :currency, import_id = :imp, updated_at = :at"),
		ConditionExpression:      aws.String("attribute_not_exists(pk) OR import_id <= :imp"),
		ExpressionAttributeNames: map[string]string{"#name": "name"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":entity": str("catalog_item"), ":sku": str(it.SKU), ":name": str(it.Name), ":price": str(it.Price),
			":currency": str(it.Currency), ":imp": str(imp.ID), ":at": str(imp.CreatedAt),
		},
	})
	var older *types.ConditionalCheckFailedException
	if errors.As(err, &older) {
		return nil // a newer import already wrote this SKU
	}
	return classify(err)
}

// CatalogItem is a catalog entry with the import that last wrote it.
type CatalogItem struct {
	domain.CatalogItem
	ImportID string `dynamodbav:"import_id"`
}

// GetCatalogItem returns a project's catalog item by SKU, or ErrNotFound.
func (s *Store) GetCatalogItem(ctx context.Context, project, sku string) (CatalogItem, error) {
	var it CatalogItem
	err := s.get(ctx, s.Tables.Data, key(scoped(project, "CATALOG"), sku), &it)
	return it, err
}
