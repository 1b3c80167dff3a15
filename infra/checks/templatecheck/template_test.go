package templatecheck_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/botix/public-api/infra/internal/functions"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/internal/app"
	"github.com/botix/public-api/internal/app/registry"
	"github.com/botix/public-api/internal/store"
)

func load(t *testing.T) (*template.Template, string) {
	t.Helper()
	tpl, err := template.LoadRepo()
	if err != nil {
		t.Fatal(err)
	}
	root, err := template.Root()
	if err != nil {
		t.Fatal(err)
	}
	return tpl, root
}

// builders returns every registered builder by logical id.
func builders() map[string]any {
	out := map[string]any{}
	for k, v := range registry.HTTP {
		out[k] = v
	}
	for k, v := range registry.Invoke {
		out[k] = v
	}
	for k, v := range registry.Stream {
		out[k] = v
	}
	for k, v := range registry.Queue {
		out[k] = v
	}
	return out
}

// registeredNames reads internal/app/registry's maps as written: logical
// id -> the builder it maps to, "app.CreateContact", or for a function
// that calls no AWS API "app.AWSFree(site.Dashboard)".
func registeredNames(t *testing.T, root string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, "internal", "app", "registry", "registry.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		key, kok := kv.Key.(*ast.BasicLit)
		if !kok {
			return true
		}
		if call, ok := kv.Value.(*ast.CallExpr); ok && len(call.Args) == 1 {
			if fn, arg := selector(call.Fun), selector(call.Args[0]); fn != "" && arg != "" {
				out[strings.Trim(key.Value, `"`)] = fn + "(" + arg + ")"
			}
		} else if sel := selector(kv.Value); sel != "" {
			out[strings.Trim(key.Value, `"`)] = sel
		}
		return true
	})
	return out
}

// selector is e as written when it is pkg.Name, else "".
func selector(e ast.Expr) string {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return ""
	}
	return pkg.Name + "." + sel.Sel.Name
}

func TestEveryFunctionHasABuilderAndEveryBuilderAFunction(t *testing.T) {
	tpl, _ := load(t)
	fns := tpl.Functions()
	for id := range fns {
		if _, ok := builders()[id]; !ok {
			t.Errorf("%s is in template.yaml but has no builder in internal/app", id)
		}
	}
	for id := range builders() {
		if _, ok := fns[id]; !ok {
			t.Errorf("internal/app registers %s, which template.yaml does not declare", id)
		}
	}
}

func TestEveryRouteHasAHandlerAndEveryHandlerARoute(t *testing.T) {
	tpl, _ := load(t)
	routed := map[string]bool{}
	seen := map[string]bool{}
	for _, r := range tpl.Routes() {
		if seen[r.Key] {
			t.Errorf("route %s is declared twice", r.Key)
		}
		seen[r.Key] = true
		routed[r.Function] = true
		if _, ok := registry.HTTP[r.Function]; !ok {
			t.Errorf("route %s targets %s, which has no HTTP handler", r.Key, r.Function)
		}
	}
	for id := range registry.HTTP {
		if !routed[id] {
			t.Errorf("HTTP handler %s has no route in template.yaml", id)
		}
	}
	if !seen["$default"] {
		t.Error("no $default route: unknown paths would get API Gateway's body instead of our envelope")
	}
}

func TestFunctionsMakefileTargetsAndMainsAgree(t *testing.T) {
	tpl, root := load(t)
	dirOf, err := functions.Dirs(root)
	if err != nil {
		t.Fatal(err)
	}
	usedDirs := map[string]string{}
	for id, dir := range dirOf {
		if other, dup := usedDirs[dir]; dup {
			t.Errorf("functions/%s is built by both build-%s and build-%s", dir, other, id)
		}
		usedDirs[dir] = id
	}
	registered := registeredNames(t, root)
	for id, fn := range tpl.Functions() {
		t.Run(id, func(t *testing.T) {
			// One name per function: the logical id without "Function" names
			// the builder, and in kebab case the directory.
			name := strings.TrimSuffix(id, "Function")
			dir, ok := dirOf[id]
			if !ok {
				t.Fatalf("Makefile has no target build-%s", id)
			}
			if dir != template.Kebab(name) {
				t.Errorf("build-%s builds functions/%s; name it functions/%s", id, dir, template.Kebab(name))
			}
			// The main starts the builder the registry maps the id to, or
			// for a function that calls no AWS API the one the registry
			// adapts with app.AWSFree.
			want := "app." + name
			if b, ok := strings.CutPrefix(registered[id], "app.AWSFree("); ok {
				want = strings.TrimSuffix(b, ")")
			}
			if _, builder, _ := strings.Cut(want, "."); builder != name {
				t.Errorf("internal/app/registry maps %s to %s; name the builder %s", id, registered[id], name)
			}
			if got := tpl.Resources[id].Metadata["BuildMethod"]; got != "makefile" {
				t.Errorf("Metadata.BuildMethod = %v, want makefile", got)
			}
			for prop, want := range map[string]any{"Runtime": "provided.al2023", "Handler": "bootstrap", "CodeUri": "."} {
				if fn.Properties[prop] != want {
					t.Errorf("%s = %v, want %v", prop, fn.Properties[prop], want)
				}
			}
			if arch, _ := fn.Properties["Architectures"].([]any); len(arch) != 1 || arch[0] != "arm64" {
				t.Errorf("Architectures = %v, want [arm64]", fn.Properties["Architectures"])
			}
			doc, got := mainBuilder(t, filepath.Join(root, "functions", dir, "main.go"))
			if got != want {
				t.Errorf("functions/%s/main.go starts %s; it must start %s", dir, got, want)
			}
			if want := "Command " + dir + " is the Lambda function " + id + " "; !strings.HasPrefix(doc, want) {
				t.Errorf("functions/%s/main.go's doc comment is %q; it must start %q", dir, doc, want)
			}
		})
	}
	entries, err := os.ReadDir(filepath.Join(root, "functions"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := usedDirs[e.Name()]; e.IsDir() && !ok {
			t.Errorf("functions/%s is not built by any build-<LogicalId> target", e.Name())
		}
	}
}

// mainBuilder returns a main's package doc comment and the builder it
// passes to Start, as written ("app.CreateContact").
func mainBuilder(t *testing.T, path string) (string, string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	name := ""
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Start" && len(call.Args) == 1 {
			name = selector(call.Args[0])
		}
		return true
	})
	return f.Doc.Text(), name
}

// TestFunctionsThatCallNoAWSLinkNoAWS: a function whose code calls no AWS
// API (registry.Permissions lists none) links no package of the AWS SDK,
// nor internal/app, which links the DynamoDB, SQS and Scheduler clients
// for every function it wires: its binary is its own code, the HTTP
// contract and the Lambda runtime.
func TestFunctionsThatCallNoAWSLinkNoAWS(t *testing.T) {
	tpl, root := load(t)
	dirOf, err := functions.Dirs(root)
	if err != nil {
		t.Fatal(err)
	}
	deps := functionDeps(t, root)
	checked := 0
	for id := range tpl.Functions() {
		if perms, ok := registry.Permissions[id]; !ok || len(perms) > 0 {
			continue
		}
		checked++
		pkg := module + "/functions/" + dirOf[id]
		d, ok := deps[pkg]
		if !ok {
			t.Errorf("go list does not list %s", pkg)
		}
		var bad []string
		for _, dep := range d {
			if strings.HasPrefix(dep, "github.com/aws/aws-sdk-go-v2") || dep == module+"/internal/app" {
				bad = append(bad, dep)
			}
		}
		if len(bad) > 0 {
			t.Errorf("%s calls no AWS API but links %d packages of the AWS SDK or internal/app: %s", id, len(bad), strings.Join(bad[:min(len(bad), 4)], ", "))
		}
	}
	if checked == 0 {
		t.Fatal("no function without AWS calls to check; registry.Permissions lists them with nil")
	}
}

// localOnly are variables the local runtime may set and the template must
// never set.
var localOnly = map[string]bool{"WEBHOOK_ALLOW_LOOPBACK": true}

// TestEveryVariableAFunctionReadsIsSetByTheTemplate, and every variable
// a function's own Environment sets is one its builder reads (the Globals
// give all functions the same few, which SAM cannot withhold from one).
func TestEveryVariableAFunctionReadsIsSetByTheTemplate(t *testing.T) {
	tpl, _ := load(t)
	for id, fn := range tpl.Functions() {
		t.Run(id, func(t *testing.T) {
			declared := fn.Environment()
			for name := range declared {
				if localOnly[name] {
					t.Errorf("the template sets %s, which only the local runtime may set", name)
				}
			}
			var mu sync.Mutex
			read := map[string]bool{}
			env := func(k string) string {
				mu.Lock()
				read[k] = true
				mu.Unlock()
				if _, ok := declared[k]; ok {
					return sampleValue(k)
				}
				return ""
			}
			if err := build(builders()[id], env); err != nil {
				t.Fatalf("builder fails with the template's variables: %v", err)
			}
			var missing []string
			for k := range read {
				if _, ok := declared[k]; !ok && !strings.HasPrefix(k, "AWS_") && !localOnly[k] {
					missing = append(missing, k)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("reads %v, which template.yaml does not set for it", missing)
			}
			// Globals give every function the tables, the log level and the
			// public URL; what the function's own Environment adds it reads.
			own, _ := tpl.Resources[id].Properties["Environment"].(map[string]any)
			var unread []string
			for k := range asVars(own["Variables"]) {
				if !read[k] {
					unread = append(unread, k)
				}
			}
			sort.Strings(unread)
			if len(unread) > 0 {
				t.Errorf("template.yaml sets %v for it, which its builder never reads", unread)
			}
		})
	}
}

// asVars is a template's Variables map (nil when absent).
func asVars(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// sampleValue gives a plausible value for a variable, so that builders
// that parse their configuration accept it.
func sampleValue(name string) string {
	samples := map[string]string{
		"LOG_LEVEL":                  "INFO",
		"CURSOR_SIGNING_KEYS":        "k1:0123456789abcdef0123456789abcdef,-",
		"OFFSET_MAX":                 "10000",
		"OFFSET_DEPRECATED_AT":       "2026-05-01T00:00:00Z",
		"OFFSET_SUNSET_AT":           "2027-05-01T00:00:00Z",
		"OFFSET_DOCS_URL":            "https://example.com/docs",
		"OFFSET_TIME_BUDGET":         "5s",
		"DELIVERY_QUEUE_URL":         "https://sqs.eu-central-1.amazonaws.com/123456789012/q",
		"DELIVERY_QUEUE_ARN":         "arn:aws:sqs:eu-central-1:123456789012:q",
		"DEAD_LETTER_QUEUE_URL":      "https://sqs.eu-central-1.amazonaws.com/123456789012/dlq",
		"WEBHOOK_SCHEDULE_GROUP":     "botix-webhook-retries",
		"SCHEDULER_ROLE_ARN":         "arn:aws:iam::123456789012:role/r",
		"WEBHOOK_RETRY_SCHEDULE":     "1m,15m,1h,24h",
		"WEBHOOK_CONNECT_TIMEOUT":    "10s",
		"WEBHOOK_READ_TIMEOUT":       "30s",
		"WEBHOOK_AUTO_DISABLE_AFTER": "120h",
		"WEBHOOK_RECOVERY_PACE":      "10",
	}
	if v, ok := samples[name]; ok {
		return v
	}
	return "sample-" + strings.ToLower(name)
}

func build(b any, env app.Env) error {
	ctx := context.Background()
	switch f := b.(type) {
	case app.Builder[app.HTTPHandler]:
		_, err := f(ctx, env)
		return err
	case app.Builder[app.InvokeHandler]:
		_, err := f(ctx, env)
		return err
	case app.Builder[app.StreamHandler]:
		_, err := f(ctx, env)
		return err
	case app.Builder[app.QueueHandler]:
		_, err := f(ctx, env)
		return err
	}
	return fmt.Errorf("unknown builder type %T", b)
}

func TestTablesMatchTheCode(t *testing.T) {
	tpl, _ := load(t)
	tables, err := tpl.Tables()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"DataTable", "IdempotencyTable", "DeliveriesTable"} {
		tb, ok := tables[id]
		if !ok {
			t.Fatalf("template.yaml has no %s", id)
		}
		if tb.TTLAttribute != store.TTLAttribute {
			t.Errorf("%s TTL attribute = %q, code writes %q", id, tb.TTLAttribute, store.TTLAttribute)
		}
		if p := tpl.Resources[id].Properties["PointInTimeRecoverySpecification"]; p == nil {
			t.Errorf("%s has no point-in-time recovery", id)
		}
	}
	if tables["DataTable"].StreamView == "" {
		t.Error("DataTable has no stream: outbox events would never reach the dispatcher")
	}
	if tables["DeliveriesTable"].StreamView != "" {
		t.Error("DeliveriesTable has a stream: delivery churn belongs off the outbox")
	}
	for table, want := range map[string][]string{"DataTable": {store.IndexGSI1}, "DeliveriesTable": {store.IndexGSI1, store.IndexGSI2, store.IndexGSI3}} {
		have := map[string]bool{}
		for _, ix := range tables[table].Indexes {
			have[ix.Name] = true
		}
		for _, ix := range want {
			if !have[ix] {
				t.Errorf("%s has no index %s, which the code queries", table, ix)
			}
		}
	}
}

// The delivery list indexes copy what a list decodes and no more
// (issue 36): an attribute the store adds to a delivery and the template
// leaves out would be missing from lists; one copied besides (the
// payload, the claim) would cost index writes on every claim.
func TestDeliveryListIndexesProjectWhatTheListReads(t *testing.T) {
	tpl, _ := load(t)
	tables, err := tpl.Tables()
	if err != nil {
		t.Fatal(err)
	}
	want := store.DeliveryListAttributes()
	slices.Sort(want)
	for _, ix := range tables["DeliveriesTable"].Indexes {
		if ix.Name != store.IndexGSI1 && ix.Name != store.IndexGSI2 {
			continue
		}
		have := slices.Sorted(slices.Values(ix.NonKeyAttributes))
		if ix.ProjectionType != "INCLUDE" || !slices.Equal(have, want) {
			t.Errorf("DeliveriesTable %s projects %s %v; the list reads %v", ix.Name, ix.ProjectionType, have, want)
		}
	}
}

// TestOffsetPolicyChecked: every function that reads the offset mode's
// deprecation dates refuses a sunset before the deprecation, and says so
// once (the list routes and the API reference read them through one
// reader).
func TestOffsetPolicyChecked(t *testing.T) {
	checked := 0
	for id, b := range builders() {
		readsSunset := false
		env := func(k string) string {
			switch k {
			case "OFFSET_SUNSET_AT":
				readsSunset = true
				return "2026-01-01T00:00:00Z"
			case "OFFSET_DEPRECATED_AT":
				return "2026-05-01T00:00:00Z"
			}
			return sampleValue(k)
		}
		err := build(b, env)
		if !readsSunset {
			continue
		}
		checked++
		if err == nil || strings.Count(err.Error(), "earlier than deprecation") != 1 {
			t.Errorf("%s with the sunset before the deprecation: %v", id, err)
		}
	}
	if checked == 0 {
		t.Fatal("no function reads OFFSET_SUNSET_AT: the test did not test")
	}
}
