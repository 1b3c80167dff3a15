package webhook

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestPackageDocIsTheMap: the package comment in doc.go lists every port
// (an exported interface, declared in ports.go) and every orchestrator (an
// exported struct type with a field of a port type), and nothing else, so
// the map cannot fall behind the code again.
func TestPackageDocIsTheMap(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var ports, orchestrators []string
	var doc string
	structs := map[string]*ast.StructType{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc != nil {
			if name != "doc.go" {
				t.Errorf("%s carries a package comment: the package's doc is doc.go's alone", name)
			}
			doc = f.Doc.Text()
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !ts.Name.IsExported() {
				return true
			}
			switch typ := ts.Type.(type) {
			case *ast.InterfaceType:
				ports = append(ports, ts.Name.Name)
				if name != "ports.go" {
					t.Errorf("port %s is declared in %s, not in ports.go", ts.Name.Name, name)
				}
			case *ast.StructType:
				structs[ts.Name.Name] = typ
			}
			return true
		})
	}
	for name, st := range structs {
		for _, field := range st.Fields.List {
			typ := field.Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if id, ok := typ.(*ast.Ident); ok && slices.Contains(ports, id.Name) {
				orchestrators = append(orchestrators, name)
				break
			}
		}
	}
	for _, c := range []struct {
		section string
		want    []string
	}{
		{"Ports", ports},
		{"Orchestrators", orchestrators},
	} {
		t.Run(c.section, func(t *testing.T) {
			listed, ok := docList(doc, c.section)
			if !ok {
				t.Fatalf("the package doc has no %q section", c.section)
			}
			slices.Sort(listed)
			want := slices.Sorted(slices.Values(c.want))
			if !slices.Equal(listed, want) {
				t.Errorf("doc.go's %s lists %v; the code has %v", c.section, listed, want)
			}
		})
	}
}

// TestDocListReadsTheSections: the parser of the map finds the items of
// one section, stops at the next heading, and reports a missing section
// (a map test that read nothing would pass with any code).
func TestDocListReadsTheSections(t *testing.T) {
	doc := "Intro.\n\n# Ports\n\nText.\n\n  - A: a.\n  - B: b.\n\n# Orchestrators\n\n  - C: c.\n"
	for _, c := range []struct {
		section string
		want    []string
		found   bool
	}{
		{"Ports", []string{"A", "B"}, true},
		{"Orchestrators", []string{"C"}, true},
		{"Missing", nil, false},
	} {
		t.Run(c.section, func(t *testing.T) {
			got, found := docList(doc, c.section)
			if found != c.found || !slices.Equal(got, c.want) {
				t.Errorf("got %v (found: %v), want %v (found: %v)", got, found, c.want, c.found)
			}
		})
	}
}

var docItem = regexp.MustCompile(`^\s+- (\w+):`)

// docList returns the names of a "# section" heading's list items
// ("  - Name: ..."), up to the next heading, and whether the section is
// there.
func docList(doc, section string) ([]string, bool) {
	_, rest, ok := strings.Cut(doc, "# "+section+"\n")
	if !ok {
		return nil, false
	}
	var names []string
	for _, line := range strings.Split(rest, "\n") {
		if strings.HasPrefix(line, "# ") {
			break
		}
		if m := docItem.FindStringSubmatch(line); m != nil {
			names = append(names, m[1])
		}
	}
	return names, true
}
