package templatecheck_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/botix/public-api/infra/internal/functions"
	"github.com/botix/public-api/internal/app/registry"
)

// module is the import path of this repository's module.
const module = "github.com/botix/public-api"

var (
	depsOnce sync.Once
	depsOf   map[string][]string
	depsErr  error
)

// functionDeps lists, by import path of each functions/ main, every
// package its binary is built from (go list -deps), listing them once per
// test binary.
func functionDeps(t *testing.T, root string) map[string][]string {
	t.Helper()
	depsOnce.Do(func() {
		cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", "./functions/...")
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			depsErr = err
			return
		}
		depsOf = map[string][]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(line)
			depsOf[f[0]] = f[1:]
		}
	})
	if depsErr != nil {
		t.Fatalf("go list: %v", depsErr)
	}
	return depsOf
}

// TestEachFunctionLinksOnlyItsOwnPackages checks every function by its
// package graph (go list -deps: cheap, one command for all 37): no main
// imports internal/app/registry, which reaches every builder, and a
// package a main starts its builder from, other than the shared app and
// awsfree, is linked by that function only: the dashboard's and the API
// reference's packages, with their embedded files, and the OpenAPI
// document the reference parses when its package is initialized, which
// runs in every binary that links it. Package api holds every route's
// handler, so whether a binary links other routes' handlers is a question
// for the symbols (TestEachFunctionLinksOnlyItsOwnRoute).
func TestEachFunctionLinksOnlyItsOwnPackages(t *testing.T) {
	tpl, root := load(t)
	dirOf, err := functions.Dirs(root)
	if err != nil {
		t.Fatal(err)
	}
	own := ownPackages(t, root, dirOf)
	if len(own) == 0 {
		t.Fatal("no main starts a builder of a package of its own: the test did not test")
	}
	deps := functionDeps(t, root)
	for id := range tpl.Functions() {
		pkg := module + "/functions/" + dirOf[id]
		d, ok := deps[pkg]
		if !ok {
			t.Errorf("go list does not list %s", pkg)
			continue
		}
		for _, dep := range d {
			if dep == module+"/internal/app/registry" {
				t.Errorf("%s links internal/app/registry, and with it every function's builder; its main names its own builder", id)
			}
			if owner, ok := own[dep]; ok && owner != id {
				t.Errorf("%s links %s, which only %s needs", id, dep, owner)
			}
		}
	}
}

// ownPackages reads the mains: the package each one starts its builder
// from, by import path, to the logical id it serves, but the two every
// function shares (app, which wires the functions that call AWS, and
// awsfree, the wiring of those that do not, NotFound included).
func ownPackages(t *testing.T, root string, ids map[string]string) map[string]string {
	t.Helper()
	shared := map[string]bool{module + "/internal/app": true, module + "/internal/app/awsfree": true}
	out := map[string]string{}
	for id, dir := range ids {
		path := filepath.Join(root, "functions", dir, "main.go")
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		_, started := mainBuilder(t, path)
		pkg, _, _ := strings.Cut(started, ".")
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if filepath.Base(p) == pkg && !shared[p] {
				out[p] = id
			}
		}
	}
	return out
}

// TestEachFunctionLinksOnlyItsOwnRoute builds a sample of the functions
// with their symbol table and reads it (go tool nm): of the handler
// methods of package api — those the builders in internal/app/functions.go
// name, (*api.Contacts).Create, ... — a binary holds its own route's only,
// and of the handler sets (the types those methods belong to) its own
// only. What it shares with other routes and may hold: its own set's Use
// (every set has it) and unexported helpers (api.(*WebhookEndpoints).decode
// serves Create and Update), and package api's helpers outside the handler
// sets (api.(*Mutations).Handler, which runs every mutation).
//
// Linking costs about half a second of CPU a binary (these 9: 4 to 6 s;
// all 37: 19 s), so it links one function of each shape: one per helper
// the API builders are made with (mutation, read, list, ...) and one per
// kind of the others (stream, queue, invoke), since a builder's shape
// decides what its binary reaches. The AWS-free functions link no package
// api at all (TestFunctionsThatCallNoAWSLinkNoAWS).
func TestEachFunctionLinksOnlyItsOwnRoute(t *testing.T) {
	_, root := load(t)
	dirOf, err := functions.Dirs(root)
	if err != nil {
		t.Fatal(err)
	}
	builders := apiBuilders(t, root)
	sample := sampleOfShapes(builders)
	handlerSets, handlers := map[string]bool{}, map[method]bool{}
	for _, b := range builders {
		for _, h := range b.handlers {
			handlerSets[h.set] = true
			handlers[h] = true
		}
	}
	if len(handlerSets) == 0 {
		t.Fatal("internal/app/functions.go names no handler method of package api: the test did not test")
	}
	// Built as make build builds them, -tags lambda.norpc included: without
	// it the Lambda runtime links net/rpc, whose reflection over methods
	// makes the linker keep every exported method of a handler set, its
	// other routes' handlers with them. Without -trimpath and for the host,
	// as infra/e2e/rie builds them, so that both share the compiled packages;
	// with the symbol table (no -s), which is all the test reads, and
	// without DWARF (-w), which would cost a third more linking.
	bin := t.TempDir()
	args := []string{"build", "-tags", "lambda.norpc", "-ldflags=-w", "-o", bin + string(filepath.Separator)}
	for _, id := range sample {
		args = append(args, "./functions/"+dirOf[id])
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, id := range sample {
		t.Run(id, func(t *testing.T) {
			methods := apiMethods(t, filepath.Join(bin, dirOf[id]))
			own := map[method]bool{}
			ownSets := map[string]bool{}
			for _, h := range builders[id].handlers {
				own[h] = true
				ownSets[h.set] = true
				if !methods[h] {
					t.Errorf("the binary does not hold its own handler api.(*%s).%s: the symbols were not read right", h.set, h.name)
				}
			}
			var others []string
			for m := range methods {
				otherSet := handlerSets[m.set] && !ownSets[m.set]
				otherHandler := handlers[m] && !own[m]
				if otherSet || otherHandler {
					others = append(others, "api.(*"+m.set+")."+m.name)
				}
			}
			sort.Strings(others)
			if len(others) > 0 {
				t.Errorf("links %d handler methods of other routes: %s", len(others), strings.Join(others, ", "))
			}
		})
	}
}

// method is a method of package api: its receiver's type and its name.
type method struct{ set, name string }

// builder is a builder of internal/app/functions.go: the helper it is made
// with ("mutation", "read", ...; "" for the functions that are not API
// routes) and the handler methods of package api it names.
type builder struct {
	helper   string
	handlers []method
}

// apiBuilders reads internal/app/functions.go: each exported builder by
// logical id, be it a function or a variable holding what a helper
// returns.
func apiBuilders(t *testing.T, root string) map[string]builder {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, "internal", "app", "functions.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]builder{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() && d.Body != nil {
				out[d.Name.Name+"Function"] = builderOf(d.Body, true)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				if vs, ok := spec.(*ast.ValueSpec); ok && len(vs.Names) == 1 && len(vs.Values) == 1 && vs.Names[0].IsExported() {
					out[vs.Names[0].Name+"Function"] = builderOf(vs.Values[0], false)
				}
			}
		}
	}
	return out
}

// builderOf reads a builder's body: the helper it is made with —
// mutation(...)(ctx, env, opts...) in a function, mutation(...) in a
// variable — and the method expressions (*api.Contacts).Create it names.
func builderOf(n ast.Node, called bool) builder {
	var b builder
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			fun := n.Fun
			if inner, ok := fun.(*ast.CallExpr); ok && called {
				fun = inner.Fun
			} else if called {
				return true
			}
			if id, ok := fun.(*ast.Ident); ok && b.helper == "" {
				b.helper = id.Name
			}
		case *ast.SelectorExpr:
			paren, ok := n.X.(*ast.ParenExpr)
			if !ok {
				return true
			}
			if star, ok := paren.X.(*ast.StarExpr); ok {
				if set, ok := strings.CutPrefix(selector(star.X), "api."); ok {
					b.handlers = append(b.handlers, method{set, n.Sel.Name})
				}
			}
		}
		return true
	})
	return b
}

// sampleOfShapes picks, in logical id order, the first API function built
// with each helper and the first function of each other kind the registry
// has.
func sampleOfShapes(builders map[string]builder) []string {
	shape := map[string]string{}
	for id, b := range builders {
		if _, ok := registry.HTTP[id]; ok && b.helper != "" {
			shape[id] = "http/" + b.helper
		}
	}
	for kind, ids := range map[string][]string{"stream": keysOf(registry.Stream), "queue": keysOf(registry.Queue), "invoke": keysOf(registry.Invoke)} {
		for _, id := range ids {
			shape[id] = kind
		}
	}
	ids := keysOf(shape)
	sort.Strings(ids)
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[shape[id]] {
			seen[shape[id]] = true
			out = append(out, id)
		}
	}
	return out
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// apiSymbol matches the symbols of package api's methods, their closures
// and method values included: api.(*Contacts).Create, .func1, -fm.
var apiSymbol = regexp.MustCompile(`^` + regexp.QuoteMeta(module+"/internal/api.") + `\(\*([A-Za-z0-9_]+)\)\.([A-Za-z0-9_]+)`)

// apiMethods reads a binary's symbol table: the methods of package api it
// links.
func apiMethods(t *testing.T, path string) map[method]bool {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "nm", path).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	methods := map[method]bool{}
	hasMain := false
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		hasMain = hasMain || f[len(f)-1] == "main.main"
		if m := apiSymbol.FindStringSubmatch(f[len(f)-1]); m != nil {
			methods[method{m[1], m[2]}] = true
		}
	}
	if !hasMain {
		// A binary without main.main in its table was stripped: an empty
		// set of methods would prove nothing.
		t.Fatalf("%s has no symbol table", filepath.Base(path))
	}
	return methods
}
