package apicontract_test

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/cha"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/httpapi"
)

const module = "github.com/botix/public-api/"

// codeFinder derives, from the code, which error codes a handler can
// return: every apierr.Code constant in a function reachable from it
// (class-hierarchy call graph, interface calls included, within this
// module), and the codes of the error variables those functions use
// (var ErrX = apierr.New(apierr.Code, ...)).
type codeFinder struct {
	prog    *ssa.Program
	graph   *callgraph.Graph
	globals map[*ssa.Global]map[apierr.Code]bool
}

func newCodeFinder(t *testing.T, root string, patterns ...string) *codeFinder {
	t.Helper()
	pkgs, err := packages.Load(&packages.Config{Mode: packages.LoadAllSyntax, Dir: root, Tests: false}, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatal("the packages do not load")
	}
	prog, _ := ssautil.AllPackages(pkgs, ssa.InstantiateGenerics)
	prog.Build()
	f := &codeFinder{prog: prog, graph: cha.CallGraph(prog), globals: map[*ssa.Global]map[apierr.Code]bool{}}
	for _, p := range prog.AllPackages() {
		init := p.Func("init")
		if init == nil || !strings.HasPrefix(p.Pkg.Path(), module) {
			continue
		}
		pending := map[apierr.Code]bool{}
		for _, b := range init.Blocks {
			for _, ins := range b.Instrs {
				for c := range constCodes(ins) {
					pending[c] = true
				}
				if st, ok := ins.(*ssa.Store); ok {
					if g, ok := st.Addr.(*ssa.Global); ok {
						if len(pending) > 0 {
							f.globals[g] = pending
						}
						pending = map[apierr.Code]bool{}
					}
				}
			}
		}
	}
	return f
}

// constCodes are the apierr.Code constants an instruction uses.
func constCodes(ins ssa.Instruction) map[apierr.Code]bool {
	out := map[apierr.Code]bool{}
	for _, op := range ins.Operands(nil) {
		c, ok := (*op).(*ssa.Const)
		if !ok || c.Value == nil || c.Value.Kind() != constant.String {
			continue
		}
		if n, ok := c.Type().(*types.Named); ok && n.Obj().Name() == "Code" && n.Obj().Pkg().Path() == module+"internal/apierr" {
			out[apierr.Code(constant.StringVal(c.Value))] = true
		}
	}
	return out
}

// codes of the method recv.method of package pkg (a path under the module).
func (f *codeFinder) codes(t *testing.T, pkg, recv, method string) map[apierr.Code]bool {
	t.Helper()
	p := f.prog.ImportedPackage(module + pkg)
	if p == nil {
		t.Fatalf("package %s not loaded", pkg)
	}
	obj := p.Pkg.Scope().Lookup(recv)
	if obj == nil {
		t.Fatalf("no type %s in %s", recv, pkg)
	}
	sel := f.prog.MethodSets.MethodSet(types.NewPointer(obj.Type())).Lookup(p.Pkg, method)
	if sel == nil {
		t.Fatalf("no method %s.%s", recv, method)
	}
	out := map[apierr.Code]bool{}
	seen := map[*ssa.Function]bool{}
	var visit func(fn *ssa.Function)
	visit = func(fn *ssa.Function) {
		if fn == nil || seen[fn] {
			return
		}
		seen[fn] = true
		if fn.Pkg != nil && !strings.HasPrefix(fn.Pkg.Pkg.Path(), module) {
			return
		}
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				for c := range constCodes(ins) {
					out[c] = true
				}
				for _, op := range ins.Operands(nil) {
					if g, ok := (*op).(*ssa.Global); ok {
						for c := range f.globals[g] {
							out[c] = true
						}
					}
				}
			}
		}
		if node := f.graph.Nodes[fn]; node != nil {
			for _, e := range node.Out {
				visit(e.Callee.Func)
			}
		}
		for _, anon := range fn.AnonFuncs {
			visit(anon)
		}
	}
	visit(f.prog.MethodValue(sel))
	return out
}

// TestEveryErrorCodeIsDeclared: each operation's x-error-codes are exactly
// the codes the code can answer for its route — those of the route's kind
// (every route: PAYLOAD_TOO_LARGE, INTERNAL; authenticated:
// UNAUTHORIZED, INVALID_PARAMETER for a repeated parameter,
// SERVICE_UNAVAILABLE; mutations: the idempotency codes, body decoding and
// INSUFFICIENT_SCOPE for a dashboard session;
// a path with an id: NOT_FOUND) and those its handler reaches in the
// source — and each code's status is a declared response.
func TestEveryErrorCodeIsDeclared(t *testing.T) {
	root, err := template.Root()
	if err != nil {
		t.Fatal(err)
	}
	finder := newCodeFinder(t, root, "./internal/api", "./internal/apidoc", "./internal/dashboard")
	kinds := builders(t, filepath.Join(root, "internal/app/functions.go"), filepath.Join(root, "internal/app/awsfree/reference/reference.go"))
	doc := load(t)
	tpl, err := template.LoadRepo()
	if err != nil {
		t.Fatal(err)
	}
	byKind := map[string][]apierr.Code{
		"":     {apierr.PayloadTooLarge, apierr.Internal},
		"auth": {apierr.Unauthorized, apierr.InvalidParameter, apierr.ServiceUnavailable},
		// A dashboard session is refused by every mutation but the two
		// of dashboardMutation, and those refuse scope read; every read
		// admits every scope.
		"mutation": {apierr.IdempotencyKeyRequired, apierr.IdempotencyKeyInvalid, apierr.IdempotencyKeyReuseConflict, apierr.IdempotencyKeyInProgress, apierr.InvalidJSON, apierr.UnsupportedMediaType, apierr.ValidationFailed, apierr.InsufficientScope},
	}
	byKind["dashboardMutation"] = byKind["mutation"]
	// A list for the API key only refuses every session.
	byKind["keyList"] = []apierr.Code{apierr.InsufficientScope}
	for _, r := range tpl.Routes() {
		if r.Key == "$default" {
			continue
		}
		b, ok := kinds[strings.TrimSuffix(r.Function, "Function")]
		if !ok {
			t.Errorf("%s: no builder in internal/app/functions.go", r.Function)
			continue
		}
		codes := finder.codes(t, b.pkg, b.recv, b.method)
		for _, c := range byKind[""] {
			codes[c] = true
		}
		if b.kind != "public" && b.kind != "site" && b.kind != "document" {
			for _, c := range byKind["auth"] {
				codes[c] = true
			}
		}
		for _, c := range byKind[b.kind] {
			codes[c] = true
		}
		if strings.Contains(r.Path, "{") && b.kind != "site" {
			codes[apierr.NotFound] = true // a malformed or unknown id in the path
		}
		var want []string
		for c := range codes {
			want = append(want, string(c))
		}
		sort.Strings(want)
		path, methods := operations(r)
		for _, m := range methods {
			var op struct {
				Responses map[string]yaml.Node `yaml:"responses"`
				Codes     []string             `yaml:"x-error-codes"`
			}
			node := doc.Paths[path][m]
			if err := node.Decode(&op); err != nil {
				t.Fatalf("%s %s: %v", m, path, err)
			}
			for _, c := range want {
				if _, ok := op.Responses[strconv.Itoa(httpapi.StatusOf(apierr.Code(c)))]; !ok {
					t.Errorf("%s %s can answer %s, whose status %d is not declared", m, path, c, httpapi.StatusOf(apierr.Code(c)))
				}
			}
			if got := slices.Sorted(slices.Values(op.Codes)); !slices.Equal(got, want) {
				t.Errorf("%s %s: x-error-codes %v; the code can answer %v", m, path, got, want)
				if os.Getenv("BOTIX_PRINT_CODES") != "" {
					fmt.Printf("CODES\t%s\t%s\t%s\n", m, path, strings.Join(want, ", "))
				}
			}
		}
	}
}

type builder struct{ kind, pkg, recv, method string }

// builders reads the files that wire handlers (internal/app/functions.go,
// and the reference's wiring that links no AWS): Name =
// kind((*pkg.Recv).Method, ...), pkg api or apidoc; the dashboard's builder
// serves dashboard.Site.
func builders(t *testing.T, files ...string) map[string]builder {
	out := map[string]builder{"Dashboard": {kind: "site", pkg: "internal/dashboard", recv: "Site", method: "Serve"}}
	for _, file := range files {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		wiredBuilders(f, out)
	}
	return out
}

// wiredBuilders adds the builders of f to out, in either form the wiring
// uses: a function that returns kind((*pkg.Recv).Method, ...)(ctx, env,
// opts...) (internal/app, so that each binary links only its route) or a
// variable initialized with kind((*pkg.Recv).Method, ...).
func wiredBuilders(f *ast.File, out map[string]builder) {
	for name, call := range wiredCalls(f) {
		if len(call.Args) == 0 {
			continue
		}
		kind, _ := call.Fun.(*ast.Ident)
		sel, ok := call.Args[0].(*ast.SelectorExpr)
		if kind == nil || !ok {
			continue
		}
		if p, ok := sel.X.(*ast.ParenExpr); ok {
			if star, ok := p.X.(*ast.StarExpr); ok {
				if s, ok := star.X.(*ast.SelectorExpr); ok {
					if pkg, ok := s.X.(*ast.Ident); ok {
						out[name] = builder{kind: kind.Name, pkg: "internal/" + pkg.Name, recv: s.Sel.Name, method: sel.Sel.Name}
					}
				}
			}
		}
	}
}

// wiredCalls maps each builder of f to the call that makes it.
func wiredCalls(f *ast.File) map[string]*ast.CallExpr {
	out := map[string]*ast.CallExpr{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				if vs, ok := spec.(*ast.ValueSpec); ok && len(vs.Values) == 1 {
					if call, ok := vs.Values[0].(*ast.CallExpr); ok {
						out[vs.Names[0].Name] = call
					}
				}
			}
		case *ast.FuncDecl:
			if d.Recv != nil || d.Body == nil || len(d.Body.List) != 1 {
				continue
			}
			ret, ok := d.Body.List[0].(*ast.ReturnStmt)
			if !ok || len(ret.Results) != 1 {
				continue
			}
			if outer, ok := ret.Results[0].(*ast.CallExpr); ok {
				if call, ok := outer.Fun.(*ast.CallExpr); ok {
					out[d.Name.Name] = call
				}
			}
		}
	}
	return out
}
