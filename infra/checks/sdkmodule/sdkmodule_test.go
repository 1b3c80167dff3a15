// Package sdkmodule_test keeps the Go SDK adoptable as a dependency: its
// module needs only the standard library and google/uuid, its go line stays
// as low as the code allows, verifying a webhook links no AWS code, its
// version is the newest of its CHANGELOG, and `go get` of it into a fresh
// go 1.23 module adds exactly the SDK and google/uuid (from a module proxy
// this test builds in a folder, so it runs offline).
package sdkmodule_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"

	"github.com/botix/public-api/sdk/go/botix"
)

const (
	sdkPath   = "github.com/botix/public-api/sdk/go"
	dedupPath = "github.com/botix/public-api/sdk/go/webhook/dynamodedup"
	sdkDir    = "../../../sdk/go"
	dedupDir  = "../../../sdk/go/webhook/dynamodedup"
	// goLine is the lowest go version the SDK's code allows: it uses
	// range-over-func iterators (Go 1.23).
	goLine = "1.23"
)

func parseMod(t *testing.T, dir string) *modfile.File {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse(filepath.Join(dir, "go.mod"), raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func requires(f *modfile.File) []string {
	var out []string
	for _, r := range f.Require {
		out = append(out, r.Mod.Path)
	}
	slices.Sort(out)
	return out
}

func TestSDKModuleNeedsOnlyUUID(t *testing.T) {
	f := parseMod(t, sdkDir)
	if f.Module.Mod.Path != sdkPath {
		t.Errorf("module %s, want %s", f.Module.Mod.Path, sdkPath)
	}
	if f.Go == nil {
		t.Fatal("no go line")
	}
	if f.Go.Version != goLine {
		t.Errorf("go line %s, want go %s: a higher line raises every importer's", f.Go.Version, goLine)
	}
	if f.Toolchain != nil {
		t.Errorf("toolchain line %s: importers would be told to fetch a toolchain", f.Toolchain.Name)
	}
	if got := requires(f); !slices.Equal(got, []string{"github.com/google/uuid"}) {
		t.Errorf("the SDK module requires %v; it may need only github.com/google/uuid — a new dependency lands in every integrator's build", got)
	}
	if len(f.Replace) > 0 {
		t.Errorf("replace directives in the SDK's go.mod are ignored by importers and hide what it needs: %v", f.Replace)
	}
}

func TestDeduplicatorModuleNeedsOnlyDynamoDB(t *testing.T) {
	f := parseMod(t, dedupDir)
	for _, p := range requires(f) {
		if p != sdkPath && !strings.HasPrefix(p, "github.com/aws/aws-sdk-go-v2") && p != "github.com/aws/smithy-go" {
			t.Errorf("%s requires %s: it may need only the SDK module and the AWS SDK's DynamoDB client", dedupPath, p)
		}
	}
}

// TestPackagesLinkWhatTheyShould: verifying a webhook links only the
// standard library; the client adds google/uuid.
func TestPackagesLinkWhatTheyShould(t *testing.T) {
	for pkg, allowed := range map[string][]string{
		"./webhook":             nil,
		"./webhook/webhooktest": {sdkPath + "/webhook"},
		"./botix":               {"github.com/google/uuid"},
	} {
		cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg)
		cmd.Dir = sdkDir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		self := sdkPath + strings.TrimPrefix(pkg, ".")
		for _, dep := range strings.Fields(string(out)) {
			if dep != self && !slices.Contains(allowed, dep) {
				t.Errorf("%s links %s", self, dep)
			}
		}
	}
}

// TestVersionIsTheChangelogs: botix.Version is the newest release of the
// CHANGELOG, and the server builds against that version of both modules.
func TestVersionIsTheChangelogs(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(sdkDir, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^## v(\d+\.\d+\.\d+) — \d{4}-\d{2}-\d{2}$`).FindSubmatch(raw)
	if m == nil {
		t.Fatal("no release heading (## vX.Y.Z — YYYY-MM-DD) in sdk/go/CHANGELOG.md")
	}
	if string(m[1]) != botix.Version {
		t.Errorf("botix.Version %s, newest CHANGELOG release v%s", botix.Version, m[1])
	}
	server := parseMod(t, "../../..")
	for _, r := range server.Require {
		if (r.Mod.Path == sdkPath || r.Mod.Path == dedupPath) && r.Mod.Version != "v"+botix.Version {
			t.Errorf("the server requires %s %s, the SDK is v%s", r.Mod.Path, r.Mod.Version, botix.Version)
		}
	}
	dedup := parseMod(t, dedupDir)
	for _, r := range dedup.Require {
		if r.Mod.Path == sdkPath && r.Mod.Version != "v"+botix.Version {
			t.Errorf("%s requires the SDK at %s, the SDK is v%s", dedupPath, r.Mod.Version, botix.Version)
		}
	}
}

// TestGoGetIntoAGo123Module is what an integrator does: a module on go 1.23
// with a requirement of its own runs go get of the SDK, imports the client
// and the receiver kit, and builds.
func TestGoGetIntoAGo123Module(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module from a local proxy")
	}
	version := "v" + botix.Version
	proxy := t.TempDir()
	publish(t, proxy, module.Version{Path: sdkPath, Version: version}, sdkDir)
	other := t.TempDir()
	write(t, other, "go.mod", "module example.com/other\n\ngo 1.20\n")
	write(t, other, "other.go", "// Package other stands for the integrator's own dependency.\npackage other\n\n// Name is a value.\nconst Name = \"other\"\n")
	publish(t, proxy, module.Version{Path: "example.com/other", Version: "v1.0.0"}, other)
	copyFromCache(t, proxy, module.Version{Path: "github.com/google/uuid", Version: "v1.6.0"})

	app := t.TempDir()
	const before = "module example.com/consumer\n\ngo 1.23\n\nrequire example.com/other v1.0.0\n"
	write(t, app, "go.mod", before)
	write(t, app, "main.go", `package main

import (
	"fmt"

	"example.com/other"
)

func main() { fmt.Println(other.Name) }
`)
	env := append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(proxy), "GOSUMDB=off", "GONOSUMDB=", "GOPRIVATE=",
		"GOFLAGS=-modcacherw", "GOTOOLCHAIN=local", "GOWORK=off", "GOMODCACHE="+t.TempDir())
	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = app, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	goCmd("mod", "tidy")
	goCmd("get", sdkPath+"/botix@"+version)
	write(t, app, "sdk.go", `package main

import (
	"github.com/botix/public-api/sdk/go/botix"
	"github.com/botix/public-api/sdk/go/webhook"
)

var (
	_ = botix.NewClient
	_ = webhook.Verify
)
`)
	goCmd("build", "./...")
	goCmd("mod", "tidy")

	got := strings.Fields(goCmd("list", "-m", "all"))
	want := []string{"example.com/consumer", "example.com/other", "v1.0.0", sdkPath, version, "github.com/google/uuid", "v1.6.0"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("go list -m all after go get of the SDK:\n got %v\nwant %v", got, want)
	}
	mod := parseMod(t, app)
	if mod.Go.Version != "1.23" || mod.Toolchain != nil {
		t.Errorf("go get changed the importer's go line or added a toolchain: go %s, toolchain %v", mod.Go.Version, mod.Toolchain)
	}
	for _, r := range mod.Require {
		if r.Mod.Path == "example.com/other" && r.Mod.Version != "v1.0.0" {
			t.Errorf("go get changed the importer's own requirement: %s", r.Mod)
		}
	}
}

// publish puts the module in dir into a file-system module proxy as
// version v (the layout GOPROXY=file:// reads: list, .info, .mod, .zip).
func publish(t *testing.T, proxy string, v module.Version, dir string) {
	t.Helper()
	at := versionDir(t, proxy, v.Path)
	var zip bytes.Buffer
	if err := modzip.CreateFromDir(&zip, v, dir); err != nil {
		t.Fatalf("zip %s: %v", v, err)
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, at, v.Version+".zip", zip.String())
	write(t, at, v.Version+".mod", string(mod))
	write(t, at, v.Version+".info", `{"Version":"`+v.Version+`","Time":"2026-12-01T00:00:00Z"}`)
	write(t, at, "list", v.Version+"\n")
}

// copyFromCache puts a module this machine has downloaded into the proxy.
func copyFromCache(t *testing.T, proxy string, v module.Version) {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	escaped, err := module.EscapePath(v.Path)
	if err != nil {
		t.Fatal(err)
	}
	from := filepath.Join(strings.TrimSpace(string(out)), "cache", "download", escaped, "@v")
	at := versionDir(t, proxy, v.Path)
	for _, ext := range []string{".info", ".mod", ".zip"} {
		raw, err := os.ReadFile(filepath.Join(from, v.Version+ext))
		if err != nil {
			t.Fatalf("%s is not in the module cache (the server's build downloads it): %v", v, err)
		}
		write(t, at, v.Version+ext, string(raw))
	}
	write(t, at, "list", v.Version+"\n")
}

func versionDir(t *testing.T, proxy, path string) string {
	t.Helper()
	escaped, err := module.EscapePath(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(proxy, escaped, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
