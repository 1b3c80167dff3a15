package domain

import (
	"encoding/json"
	"testing"

	"github.com/botix/public-api/internal/apierr"
)

func TestHumanTextRefusesControlCharacters(t *testing.T) {
	s := func(v string) *string { return &v }
	phone, contact := s("+79990000000"), s("ct_01JDQ7X3ZV8N5W2K4R6T9Y1B3C")
	cases := []struct {
		name     string
		problems apierr.Problems
		field    string
	}{
		{"a contact name with a NUL", ContactInput{Phone: phone, Name: s("Iv\x00an")}.Validate(), "name"},
		{"a contact name with a line feed", ContactInput{Phone: phone, Name: s("Ivan\nAdmin")}.Validate(), "name"},
		{"a contact name with a C1 control", ContactInput{Phone: phone, Name: s("Ivan\u0085")}.Validate(), "name"},
		{"a contact name with an escape sequence", ContactInput{Phone: phone, Name: s("\x1b[31mIvan")}.Validate(), "name"},
		{"a message text with a bell", MessageInput{ContactID: contact, Text: s("hi\a")}.Validate(), "text"},
		{"a catalog item name with a tab", ImportInput{Items: []ImportItemInput{{SKU: s("MUG"), Name: s("Mug\t2"), Price: priceOf("590")}}}.Validate(), "items[0].name"},
		{"a scenario variable with a NUL", RunInput{ContactID: contact, Variables: map[string]json.RawMessage{"greeting": json.RawMessage(`"hi\u0000"`)}}.Validate(), "variables.greeting"},
		{"a scenario variable name that is not a name", RunInput{ContactID: contact, Variables: map[string]json.RawMessage{"a\nb": json.RawMessage(`1`)}}.Validate(), "variables"},
		{"a malformed contact id in a message", MessageInput{ContactID: s("ct_nope"), Text: s("hi")}.Validate(), "contact_id"},
		{"a contact id of another type in a run", RunInput{ContactID: s("msg_01JDQ7X3ZV8N5W2K4R6T9Y1B3C")}.Validate(), "contact_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, ok := c.problems[c.field]; !ok {
				t.Fatalf("problems %v, want one with %s", c.problems, c.field)
			}
		})
	}
	t.Run("multi-line text keeps its line breaks and tabs", func(t *testing.T) {
		if p := (MessageInput{ContactID: contact, Text: s("line 1\r\n\tline 2")}).Validate(); len(p) != 0 {
			t.Fatalf("problems %v", p)
		}
		if p := (RunInput{ContactID: contact, Variables: map[string]json.RawMessage{"note": json.RawMessage(`"a\nb"`)}}).Validate(); len(p) != 0 {
			t.Fatalf("problems %v", p)
		}
	})
}

func priceOf(v string) json.RawMessage { return json.RawMessage(v) }

// TestPriceIsAJSONNumber: price is a JSON number with at most 4 decimals;
// any other JSON type is a validation problem naming the field (422), not
// a syntax error, and a number in a string is not taken.
func TestPriceIsAJSONNumber(t *testing.T) {
	for _, c := range []struct {
		name, price string
		ok          bool
	}{
		{"an integer", `590`, true},
		{"a decimal", `1990.5`, true},
		{"four decimals", `0.0001`, true},
		{"five decimals", `0.00001`, false},
		{"a number in a string", `"1.5"`, false},
		{"a word in a string", `"abc"`, false},
		{"a boolean", `true`, false},
		{"an object", `{"amount":1}`, false},
		{"an array", `[1]`, false},
		{"negative", `-1`, false},
		{"an exponent", `1e3`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var in ImportInput
			if err := json.Unmarshal([]byte(`{"items":[{"sku":"MUG","name":"Mug","price":`+c.price+`}]}`), &in); err != nil {
				t.Fatalf("decoding must not judge the price: %v", err)
			}
			problems := in.Validate()
			if _, bad := problems["items[0].price"]; bad == c.ok {
				t.Fatalf("price %s: problems %v", c.price, problems)
			}
			if c.ok && in.CatalogItems()[0].Price != c.price {
				t.Fatalf("price %s stored as %s", c.price, in.CatalogItems()[0].Price)
			}
		})
	}
}
