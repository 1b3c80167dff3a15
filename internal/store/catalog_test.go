package store_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/store"
)

func TestApplyImportKeepsTheNewestImportPerSKU(t *testing.T) {
	ctx := context.Background()
	s := dynamotest.Store(t)
	imp := func(id, price string) store.ImportItem {
		items, _ := json.Marshal([]domain.CatalogItem{{SKU: "MUG", Name: "Mug", Price: price, Currency: "RUB"}})
		return store.ImportItem{PK: "P#prj_x#IMP", SK: id, ProjectID: "prj_x", ID: "imp_" + id, Items: string(items)}
	}
	older, newer := imp("01JDQ7X3ZV8N5W2K4R6T9Y1B30", "100"), imp("01JDQ7X3ZV8N5W2K4R6T9Y1B31", "200")
	steps := []struct {
		name  string
		apply store.ImportItem
		price string
	}{
		{"first import writes the SKU", older, "100"},
		{"a newer import updates it", newer, "200"},
		{"the older import applied late does not overwrite", older, "200"},
		{"re-applying the newest (stream redelivery) is harmless", newer, "200"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if err := s.ApplyImport(ctx, st.apply); err != nil {
				t.Fatal(err)
			}
			it, err := s.GetCatalogItem(ctx, "prj_x", "MUG")
			if err != nil || it.Price != st.price {
				t.Fatalf("price = %q, %v; want %s", it.Price, err, st.price)
			}
		})
	}
}
