// Package layout_test keeps the contributors' guide's map of infra/ equal to
// the tree: one row per folder of Go code, in the order of the folders, each
// with the first sentence of its package documentation, under the kind of
// thing its top folder says it is. `go test ./infra/checks/layout -update`
// rewrites the map from the tree.
package layout_test

import (
	"flag"
	"fmt"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/botix/public-api/infra/testkit/docs"
)

var update = flag.Bool("update", false, "rewrite the map in docs/contributors.md from the tree")

// kinds are infra/'s top folders, the kind of thing each holds; a new top
// folder needs its line here, so that the map says what it is.
var kinds = []struct{ dir, what string }{
	{"run", "what `make run` is made of: the local runtime, its AWS emulators, DynamoDB Local, the template reader and the commands that start them"},
	{"testkit", "libraries tests import: the runtime started for a test, DynamoDB Local with fresh tables, HTTP and webhook helpers, and the checkers every exchange goes through"},
	{"e2e", "end-to-end suites, each a test-only package `go test` runs beside the others: the API, the webhook pipeline, the local runtime as a developer uses it, the dashboard in Chromium, the SDKs"},
	{"checks", "test-only packages that hold the repository together: template ↔ code ↔ Makefile, AWS's own deploy tools, the Go SDK as a module, this map"},
	{"tools", "what `make bench`, `make lint` and the Makefile's long steps use: the benchmarks, AWS's pinned tools, the contract probe, progress lines, artifact sizes"},
	{"internal", "small helpers only infra/ imports"},
}

const (
	begin = "<!-- infra layout: generated from the package docs by go test ./infra/checks/layout -update -->"
	end   = "<!-- end of infra layout -->"
)

// TestLayoutMapIsTheTree: the map in docs/contributors.md is the one the
// tree gives; a moved, added or undocumented folder fails here.
func TestLayoutMapIsTheTree(t *testing.T) {
	root, err := docs.Root()
	if err != nil {
		t.Fatal(err)
	}
	want, err := layoutMap(filepath.Join(root, "infra"))
	if err != nil {
		t.Fatal(err)
	}
	text := docs.Read(t, docs.Contributors)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no map between %q and %q", docs.Contributors, begin, end)
	}
	got := text[i+len(begin) : j]
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(filepath.Join(root, docs.Contributors), []byte(text[:i+len(begin)]+want+text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the map of infra/ in %s is not the tree's; run go test ./infra/checks/layout -update\n--- the guide's\n%s\n--- the tree's\n%s", docs.Contributors, got, want)
}

// layoutMap is the Markdown table of infra/: a row per kind, then a row per
// folder of Go code under it.
func layoutMap(infra string) (string, error) {
	var b strings.Builder
	b.WriteString("\n| Folder | What it is |\n| --- | --- |\n")
	known := map[string]bool{}
	for _, k := range kinds {
		known[k.dir] = true
		fmt.Fprintf(&b, "| **`infra/%s/`** | %s. |\n", k.dir, capitalize(k.what))
		rows, err := packages(filepath.Join(infra, k.dir), "infra/"+k.dir)
		if err != nil {
			return "", err
		}
		for _, r := range rows {
			fmt.Fprintf(&b, "| `%s` | %s |\n", r[0], r[1])
		}
	}
	entries, err := os.ReadDir(infra)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if !known[e.Name()] {
			return "", fmt.Errorf("infra/%s is no kind the map knows; put it under one (%v) or add its kind to kinds in this test", e.Name(), kinds)
		}
	}
	b.WriteString("\n")
	return b.String(), nil
}

// packages lists the folders of Go code under dir with the first sentence
// of each one's package documentation (from any of its files, tests too:
// a test-only package documents itself in its test files).
func packages(dir, rel string) ([][2]string, error) {
	var rows [][2]string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") {
			return filepath.SkipDir
		}
		text, ok, err := packageDoc(path)
		if err != nil || !ok {
			return err
		}
		sub, _ := filepath.Rel(dir, path)
		if text == "" {
			return fmt.Errorf("%s has no package documentation: write one, its first sentence is its line in the map", filepath.ToSlash(filepath.Join(rel, sub)))
		}
		rows = append(rows, [2]string{filepath.ToSlash(filepath.Join(rel, sub)), cellEscaper.Replace(new(doc.Package).Synopsis(text))})
		return nil
	})
	sort.Slice(rows, func(i, j int) bool { return rows[i][0] < rows[j][0] })
	return rows, err
}

// packageDoc is the package documentation of the Go files in dir (the
// first file, by name, that has one); ok is false when dir has no Go file.
func packageDoc(dir string) (text string, ok bool, err error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(names) == 0 {
		return "", false, err
	}
	sort.Strings(names)
	for _, name := range names {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return "", true, err
		}
		if f.Doc != nil {
			return f.Doc.Text(), true, nil
		}
	}
	return "", true, nil
}

func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// TestGuidesRunTestsThatExist: every `go test ... -run TestX ./dir/` of
// the guides names a test of that folder, so that a moved or renamed test
// leaves no recipe pointing at nothing.
func TestGuidesRunTestsThatExist(t *testing.T) {
	root, err := docs.Root()
	if err != nil {
		t.Fatal(err)
	}
	command := regexp.MustCompile("go test [^`]*?-run '?\\^?((?:Test|Fuzz)[A-Za-z0-9_]*)\\$?'?[^`]*? \\./([a-z0-9/._-]+?)/?(?:[ `]|$)")
	checked := 0
	for _, guide := range docs.ReadingOrder {
		// Commands wrap across lines in the guides' prose.
		text := strings.Join(strings.Fields(docs.Read(t, guide)), " ")
		for _, m := range command.FindAllStringSubmatch(text, -1) {
			name, dir := m[1], m[2]
			if name == "TestX" { // a recipe's placeholder for the reader's test
				continue
			}
			checked++
			if !definesTest(t, filepath.Join(root, dir), name) {
				t.Errorf("%s runs %s in ./%s/, which has no such test", guide, name, dir)
			}
		}
	}
	if checked < 5 {
		t.Fatalf("found %d go test -run commands in the guides; the pattern no longer reads them", checked)
	}
	t.Logf("%d go test -run commands checked", checked)
}

// definesTest reports whether a _test.go file of dir declares func name.
func definesTest(t *testing.T, dir, name string) bool {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), "\nfunc "+name+"(") {
			return true
		}
	}
	return false
}

// cellEscaper keeps a sentence one Markdown table cell of plain text.
var cellEscaper = strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;")
