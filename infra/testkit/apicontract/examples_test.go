package apicontract_test

import (
	"fmt"
	"regexp"
	"sort"
	"testing"

	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/pb33f/libopenapi/orderedmap"

	"github.com/botix/public-api/sdk"
)

// example is one example of the document and the schema it illustrates.
type example struct {
	where  string
	line   int
	value  *yaml.Node
	schema *base.Schema
}

// documentExamples walks the document's components and operations and
// returns every example with its schema: a schema's own example, and a
// parameter's, header's or media type's against its schema.
func documentExamples(t *testing.T, spec []byte) []example {
	t.Helper()
	doc, err := libopenapi.NewDocument(spec)
	if err != nil {
		t.Fatal(err)
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	seen := map[*base.Schema]bool{}
	var walk func(where string, sp *base.SchemaProxy)
	walk = func(where string, sp *base.SchemaProxy) {
		if sp == nil {
			return
		}
		s := sp.Schema()
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if s.Example != nil {
			out = append(out, example{where, s.Example.Line, s.Example, s})
		}
		for i, e := range s.Examples {
			out = append(out, example{fmt.Sprintf("%s examples[%d]", where, i), e.Line, e, s})
		}
		if s.Properties != nil {
			for name, p := range s.Properties.FromOldest() {
				walk(where+"."+name, p)
			}
		}
		for i, group := range [][]*base.SchemaProxy{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems} {
			for j, p := range group {
				walk(fmt.Sprintf("%s/%d.%d", where, i, j), p)
			}
		}
		if s.Items != nil && s.Items.IsA() {
			walk(where+"[]", s.Items.A)
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.IsA() {
			walk(where+"{}", s.AdditionalProperties.A)
		}
	}
	withSchema := func(where string, ex *yaml.Node, sp *base.SchemaProxy) {
		if sp == nil {
			return
		}
		if ex != nil {
			out = append(out, example{where, ex.Line, ex, sp.Schema()})
		}
		walk(where+" schema", sp)
	}
	param := func(where string, p *v3.Parameter) { withSchema(where+" "+p.Name, p.Example, p.Schema) }
	content := func(where string, c *orderedmap.Map[string, *v3.MediaType]) {
		for mt, m := range c.FromOldest() {
			withSchema(where+" "+mt, m.Example, m.Schema)
		}
	}
	c := model.Model.Components
	for name, sp := range c.Schemas.FromOldest() {
		walk("#/components/schemas/"+name, sp)
	}
	for name, p := range c.Parameters.FromOldest() {
		param("#/components/parameters/"+name, p)
	}
	for name, h := range c.Headers.FromOldest() {
		withSchema("#/components/headers/"+name, h.Example, h.Schema)
	}
	for name, r := range c.Responses.FromOldest() {
		if r.Content != nil {
			content("#/components/responses/"+name, r.Content)
		}
	}
	for path, item := range model.Model.Paths.PathItems.FromOldest() {
		for _, p := range item.Parameters {
			param(path, p)
		}
		for method, op := range item.GetOperations().FromOldest() {
			where := method + " " + path
			for _, p := range op.Parameters {
				param(where, p)
			}
			if op.RequestBody != nil && op.RequestBody.Content != nil {
				content(where+" request", op.RequestBody.Content)
			}
			if op.Responses != nil && op.Responses.Codes != nil {
				for code, r := range op.Responses.Codes.FromOldest() {
					if r.Content != nil {
						content(where+" "+code, r.Content)
					}
				}
			}
		}
	}
	return out
}

var exampleKey = regexp.MustCompile(`(?m)(^|[{,\s])examples?:`)

// TestEveryExampleFitsItsSchema: each example of sdk/openapi.yaml is valid
// against the schema it illustrates (an SDK generator or a reader copies
// examples; one that breaks its own pattern teaches the wrong shape), and
// the walk reaches every example the document's text holds.
func TestEveryExampleFitsItsSchema(t *testing.T) {
	examples := documentExamples(t, sdk.OpenAPI)
	validator := schema_validation.NewSchemaValidator()
	lines := map[int]bool{}
	for _, ex := range examples {
		lines[ex.line] = true
		var v any
		if err := ex.value.Decode(&v); err != nil {
			t.Errorf("%s (line %d): %v", ex.where, ex.line, err)
			continue
		}
		if ok, errs := validator.ValidateSchemaObject(ex.schema, v); !ok {
			var why []string
			for _, e := range errs {
				why = append(why, e.Error())
				for _, se := range e.SchemaValidationErrors {
					why = append(why, se.Reason)
				}
			}
			t.Errorf("%s (line %d): the example breaks its schema: %v", ex.where, ex.line, why)
		}
	}
	var missed []int
	for i, line := range regexp.MustCompile(`\n`).Split(string(sdk.OpenAPI), -1) {
		if exampleKey.MatchString(line) && !lines[i+1] && !lines[i+2] {
			missed = append(missed, i+1)
		}
	}
	sort.Ints(missed)
	if len(missed) > 0 {
		t.Errorf("examples at lines %v are not reached by the walk: check them too", missed)
	}
	if len(examples) == 0 {
		t.Fatal("no examples found")
	}
}

// TestTheExampleCheckCatchesABrokenExample: an example that breaks its
// pattern is reported.
func TestTheExampleCheckCatchesABrokenExample(t *testing.T) {
	spec := []byte(`openapi: 3.1.0
info: { title: t, version: '1' }
paths: {}
components:
  schemas:
    Token: { type: string, pattern: '^bxs_[a-z2-7]{4}$', example: bxs_9999 }
`)
	validator := schema_validation.NewSchemaValidator()
	bad := 0
	for _, ex := range documentExamples(t, spec) {
		var v any
		if err := ex.value.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if ok, _ := validator.ValidateSchemaObject(ex.schema, v); !ok {
			bad++
		}
	}
	if bad != 1 {
		t.Fatalf("%d broken examples reported, want 1", bad)
	}
}
