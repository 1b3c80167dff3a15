package apicontract_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/botix/public-api/infra/template"
	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/sdk"
)

// codeIndex knows, from the source, which error codes each function of
// the packages that serve requests can produce: the apierr codes it names,
// the error variables it uses (var ErrX = apierr.New(apierr.Code, ...)),
// and those of every function it calls, matched by name (over-inclusive
// on purpose: a route may then have to declare a status it never sends,
// never the reverse).
type codeIndex struct {
	funcs map[string][]*ast.FuncDecl // by name
	vars  map[string]apierr.Code     // error variables by name
	memo  map[*ast.FuncDecl]map[apierr.Code]bool
}

func newCodeIndex(t *testing.T, dirs ...string) *codeIndex {
	ix := &codeIndex{funcs: map[string][]*ast.FuncDecl{}, vars: map[string]apierr.Code{}, memo: map[*ast.FuncDecl]map[apierr.Code]bool{}}
	for _, dir := range dirs {
		pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, pkg := range pkgs {
			for _, f := range pkg.Files {
				for _, d := range f.Decls {
					switch d := d.(type) {
					case *ast.FuncDecl:
						ix.funcs[d.Name.Name] = append(ix.funcs[d.Name.Name], d)
					case *ast.GenDecl:
						for _, spec := range d.Specs {
							vs, ok := spec.(*ast.ValueSpec)
							if !ok {
								continue
							}
							for i, name := range vs.Names {
								if i < len(vs.Values) {
									for c := range codesIn(vs.Values[i]) {
										ix.vars[name.Name] = c
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return ix
}

// codesIn collects apierr.<Code> selectors under n.
func codesIn(n ast.Node) map[apierr.Code]bool {
	out := map[apierr.Code]bool{}
	known := httpapi.Codes()
	ast.Inspect(n, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "apierr" {
				for c := range known {
					if constName(c) == sel.Sel.Name {
						out[c] = true
					}
				}
			}
		}
		return true
	})
	return out
}

// constName is the Go name of a code's constant (CONTACT_ALREADY_EXISTS ->
// ContactAlreadyExists), as internal/apierr declares them.
func constName(c apierr.Code) string {
	var b strings.Builder
	for _, w := range strings.Split(string(c), "_") {
		b.WriteString(w[:1] + strings.ToLower(w[1:]))
	}
	return b.String()
}

// callees resolves a call by name: a name declared once in the indexed
// packages, or a method called on the caller's own receiver. Other calls
// (a common name such as Get, without types to tell which one) are not
// followed; their codes come from the route's kind.
func (ix *codeIndex) callees(call *ast.CallExpr, recv, recvTyp string) []*ast.FuncDecl {
	var name string
	onReceiver := false
	switch f := call.Fun.(type) {
	case *ast.Ident:
		name = f.Name
	case *ast.SelectorExpr:
		name = f.Sel.Name
		if id, ok := f.X.(*ast.Ident); ok && id.Name == recv {
			onReceiver = true
		}
	case *ast.IndexExpr: // a generic call
		if id, ok := f.X.(*ast.Ident); ok {
			name = id.Name
		}
	}
	decls := ix.funcs[name]
	if len(decls) == 1 {
		return decls
	}
	var out []*ast.FuncDecl
	for _, d := range decls {
		if onReceiver && recvType(d) == recvTyp {
			out = append(out, d)
		}
	}
	return out
}

func recvName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 || len(fn.Recv.List[0].Names) == 0 {
		return ""
	}
	return fn.Recv.List[0].Names[0].Name
}

// codes of a function, with everything it calls.
func (ix *codeIndex) codes(fn *ast.FuncDecl) map[apierr.Code]bool {
	if got, ok := ix.memo[fn]; ok {
		return got
	}
	out := map[apierr.Code]bool{}
	ix.memo[fn] = out // cycles end here
	if fn.Body == nil {
		return out
	}
	for c := range codesIn(fn.Body) {
		out[c] = true
	}
	recv := recvName(fn)
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			for _, callee := range ix.callees(n, recv, recvType(fn)) {
				for c := range ix.codes(callee) {
					out[c] = true
				}
			}
		case *ast.Ident:
			if c, ok := ix.vars[n.Name]; ok {
				out[c] = true
			}
		case *ast.SelectorExpr:
			if c, ok := ix.vars[n.Sel.Name]; ok {
				out[c] = true
			}
		}
		return true
	})
	// Problems{...}.Err() and .ParamErr() are VALIDATION_FAILED and
	// INVALID_PARAMETER.
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			switch sel.Sel.Name {
			case "ParamErr":
				out[apierr.InvalidParameter] = true
			}
		}
		return true
	})
	return out
}

// TestEveryErrorStatusIsDeclared: for every route, each error code the
// code can return — those of its kind (every route: PAYLOAD_TOO_LARGE,
// INTERNAL; authenticated: UNAUTHORIZED, INVALID_PARAMETER for a repeated
// parameter, SERVICE_UNAVAILABLE; mutations: the idempotency codes and body
// decoding; lists: cursors and offsets) and those its handler reaches in
// the source — has its status declared for the operation.
func TestEveryErrorStatusIsDeclared(t *testing.T) {
	root, err := template.Root()
	if err != nil {
		t.Fatal(err)
	}
	ix := newCodeIndex(t, filepath.Join(root, "internal/api"), filepath.Join(root, "internal/store"),
		filepath.Join(root, "internal/pagination"), filepath.Join(root, "internal/cursor"), filepath.Join(root, "internal/webhook"),
		filepath.Join(root, "internal/domain"), filepath.Join(root, "internal/dashboard"), filepath.Join(root, "internal/apidoc"))
	kinds := builders(t, filepath.Join(root, "internal/app/functions.go"))

	var doc struct {
		Paths map[string]map[string]yaml.Node `yaml:"paths"`
	}
	if err := yaml.Unmarshal(sdk.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	tpl, err := template.LoadRepo()
	if err != nil {
		t.Fatal(err)
	}
	byKind := map[string][]apierr.Code{
		"":         {apierr.PayloadTooLarge, apierr.Internal},
		"auth":     {apierr.Unauthorized, apierr.InvalidParameter, apierr.ServiceUnavailable},
		"mutation": {apierr.IdempotencyKeyRequired, apierr.IdempotencyKeyInvalid, apierr.IdempotencyKeyReuseConflict, apierr.IdempotencyKeyInProgress, apierr.InvalidJSON, apierr.UnsupportedMediaType, apierr.ValidationFailed},
		"list":     {apierr.InvalidCursor, apierr.OffsetTooLarge},
	}
	for _, r := range tpl.Routes() {
		if r.Key == "$default" {
			continue
		}
		b, ok := kinds[strings.TrimSuffix(r.Function, "Function")]
		if !ok {
			t.Errorf("%s: no builder in internal/app/functions.go", r.Function)
			continue
		}
		codes := map[apierr.Code]bool{}
		add := func(cs ...apierr.Code) {
			for _, c := range cs {
				codes[c] = true
			}
		}
		add(byKind[""]...)
		if b.kind != "public" && b.kind != "func" {
			add(byKind["auth"]...)
		}
		add(byKind[b.kind]...)
		if strings.Contains(r.Path, "{") && b.kind != "func" {
			add(apierr.NotFound) // a malformed or unknown id in the path
		}
		for _, fn := range ix.funcs[b.method] {
			if recvType(fn) == b.recv {
				for c := range ix.codes(fn) {
					codes[c] = true
				}
			}
		}
		path := strings.ReplaceAll(r.Path, "+}", "}")
		methods := []string{strings.ToLower(r.Method)}
		if r.Method == "ANY" {
			methods = []string{"get", "post", "put", "patch", "delete"}
		}
		for _, m := range methods {
			var op struct {
				Responses map[string]yaml.Node `yaml:"responses"`
			}
			node := doc.Paths[path][m]
			if err := node.Decode(&op); err != nil {
				t.Fatalf("%s %s: %v", m, path, err)
			}
			declared := op.Responses
			var missing []string
			for c := range codes {
				if _, ok := declared[strconv.Itoa(httpapi.StatusOf(c))]; !ok {
					missing = append(missing, string(c)+" ("+strconv.Itoa(httpapi.StatusOf(c))+")")
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("%s %s can answer %s, undeclared in sdk/openapi.yaml", m, path, strings.Join(missing, ", "))
			}
		}
	}
}

type builder struct{ kind, recv, method string }

// builders reads internal/app/functions.go: Name = kind((*api.Recv).Method, ...).
func builders(t *testing.T, file string) map[string]builder {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]builder{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			out[d.Name.Name] = builder{kind: "func", recv: "Site", method: "Serve"}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok || len(vs.Values) != 1 {
					continue
				}
				call, ok := vs.Values[0].(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					continue
				}
				kind, _ := call.Fun.(*ast.Ident)
				sel, ok := call.Args[0].(*ast.SelectorExpr)
				if kind == nil || !ok {
					continue
				}
				recv := ""
				if p, ok := sel.X.(*ast.ParenExpr); ok {
					if star, ok := p.X.(*ast.StarExpr); ok {
						if s, ok := star.X.(*ast.SelectorExpr); ok {
							recv = s.Sel.Name
						}
					}
				}
				out[vs.Names[0].Name] = builder{kind: kind.Name, recv: recv, method: sel.Sel.Name}
			}
		}
	}
	return out
}

func recvType(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return ""
	}
	switch x := fn.Recv.List[0].Type.(type) {
	case *ast.StarExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			return id.Name
		}
	case *ast.Ident:
		return x.Name
	}
	return ""
}
