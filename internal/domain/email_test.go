package domain

import (
	"strings"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/botix/public-api/sdk"
)

// TestEmailLengthIsTheDocumentsMaxLength: the e-mail limit counts
// characters (Unicode code points), as JSON Schema's maxLength in
// sdk/openapi.yaml does, not bytes: an address of exactly maxLength
// characters with multi-byte letters is taken, one more is refused.
func TestEmailLengthIsTheDocumentsMaxLength(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					MaxLength int `yaml:"maxLength"`
				} `yaml:"properties"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(sdk.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	max := doc.Components.Schemas["ContactCreate"].Properties["email"].MaxLength
	if max != MaxEmailLength {
		t.Fatalf("the document's ContactCreate.email maxLength is %d; the server's MaxEmailLength %d", max, MaxEmailLength)
	}
	// An address of n characters: a local part of "ü" (2 bytes each) and
	// ASCII labels of at most 63 characters.
	address := func(n int) string {
		local := strings.Repeat("ü", 60)
		rest := n - utf8.RuneCountInString(local) - len("@") - len(".ru")
		var labels []string
		for rest > 0 {
			if len(labels) > 0 {
				rest-- // the dot before the label
			}
			l := min(rest, 63)
			labels = append(labels, strings.Repeat("a", l))
			rest -= l
		}
		return local + "@" + strings.Join(labels, ".") + ".ru"
	}
	s := func(v string) *string { return &v }
	cases := []struct {
		name  string
		email string
		ok    bool
	}{
		{"maxLength characters, more bytes than that, is taken", address(max), true},
		{"one character more is refused", address(max + 1), false},
		{"a short non-ASCII address is taken", "иван@example.com", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := ContactInput{Phone: s("+79990000000"), Name: s("Ivan"), Email: s(c.email)}.Validate()
			if _, refused := p["email"]; refused == c.ok {
				t.Fatalf("%d characters, %d bytes: problems %v", utf8.RuneCountInString(c.email), len(c.email), p)
			}
		})
	}
}
