package domain

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/botix/public-api/internal/apierr"
)

// Catalog import limits.
const (
	MaxImportItems = 1000
	MaxSKULength   = 64
	// MaxPriceDecimals is how many digits a price may have after its point.
	MaxPriceDecimals = 4
	DefaultCurrency  = "RUB"
)

var (
	skuPattern   = regexp.MustCompile(`^[A-Za-z0-9._:/-]{1,64}$`)
	pricePattern = regexp.MustCompile(fmt.Sprintf(`^(0|[1-9][0-9]{0,11})(\.[0-9]{1,%d})?$`, MaxPriceDecimals))
	currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)
)

// CatalogItem is a product of a project's catalog, keyed by SKU. Price is
// a decimal string: it keeps the text the client sent (no float rounding).
type CatalogItem struct {
	SKU      string `json:"sku" dynamodbav:"sku"`
	Name     string `json:"name" dynamodbav:"name"`
	Price    string `json:"price" dynamodbav:"price"`
	Currency string `json:"currency" dynamodbav:"currency"`
}

// CatalogImport is an accepted import; its items are upserted into the
// catalog asynchronously, in import order.
type CatalogImport struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	ItemsCount int    `json:"items_count"`
	CreatedAt  string `json:"created_at"`
}

// ImportInput is the body of POST /public/v1/catalog/imports.
type ImportInput struct {
	Items []ImportItemInput `json:"items"`
}

// ImportItemInput is one item of an import.
type ImportItemInput struct {
	SKU  *string `json:"sku"`
	Name *string `json:"name"`
	// Price is kept as the JSON text the client sent, so that only a JSON
	// number is taken ("1.5" as a string is refused) and no float rounding
	// happens.
	Price    json.RawMessage `json:"price"`
	Currency *string         `json:"currency"`
}

// Validate returns the problems of the input, naming items by index
// (items[3].price).
func (in ImportInput) Validate() apierr.Problems {
	p := apierr.Problems{}
	if len(in.Items) == 0 || len(in.Items) > MaxImportItems {
		p.Add("items", fmt.Sprintf("must hold 1 to %d items", MaxImportItems))
		return p
	}
	seen := map[string]int{}
	for i, it := range in.Items {
		f := fmt.Sprintf("items[%d].", i)
		switch {
		case it.SKU == nil:
			p.Add(f+"sku", "is required")
		case !skuPattern.MatchString(*it.SKU):
			p.Add(f+"sku", "must be 1-64 letters, digits or . _ : / -")
		default:
			if j, dup := seen[*it.SKU]; dup {
				p.Add(f+"sku", fmt.Sprintf("repeats items[%d].sku", j))
			}
			seen[*it.SKU] = i
		}
		switch {
		case it.Name == nil || strings.TrimSpace(*it.Name) == "":
			p.Add(f+"name", "is required")
		case utf8.RuneCountInString(*it.Name) > MaxNameLength:
			p.Add(f+"name", "must be at most 200 characters")
		case HasControl(*it.Name, false):
			p.Add(f+"name", ProblemControl)
		}
		switch {
		case it.Price == nil:
			p.Add(f+"price", "is required")
		case it.Price[0] != '-' && (it.Price[0] < '0' || it.Price[0] > '9'):
			p.Add(f+"price", "must be a JSON number such as 1990.50, not "+jsonKindOf(it.Price))
		case !pricePattern.MatchString(string(it.Price)):
			p.Add(f+"price", fmt.Sprintf("must be a non-negative decimal with at most %d decimals, e.g. 1990.50", MaxPriceDecimals))
		}
		if it.Currency != nil && !currencyCode.MatchString(*it.Currency) {
			p.Add(f+"currency", "must be an ISO 4217 code such as RUB or USD")
		}
	}
	return p
}

// CatalogItems returns the catalog items of a validated input.
func (in ImportInput) CatalogItems() []CatalogItem {
	out := make([]CatalogItem, len(in.Items))
	for i, it := range in.Items {
		out[i] = CatalogItem{SKU: *it.SKU, Name: strings.TrimSpace(*it.Name), Price: string(it.Price), Currency: DefaultCurrency}
		if it.Currency != nil {
			out[i].Currency = *it.Currency
		}
	}
	return out
}

// jsonKindOf names the JSON type of a value that is not a number, for a
// problem text.
func jsonKindOf(v json.RawMessage) string {
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	default:
		return "null"
	}
}
