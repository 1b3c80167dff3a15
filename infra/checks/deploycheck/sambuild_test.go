package deploycheck

import (
	"bytes"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/tools/awstools"
)

// lambdaMachine is the ELF machine of each Lambda architecture.
var lambdaMachine = map[string]elf.Machine{"arm64": elf.EM_AARCH64, "x86_64": elf.EM_X86_64}

// makeSamples are the functions make build also builds in the test, to be
// compared with sam build's byte for byte: an API route and the deliverer.
// Every other bootstrap is compared by the build settings Go records in it
// (go version -m): the same as these samples', which covers every way a
// build could differ (flags, tags, architecture, cgo) without building the
// stack twice (37 more arm64 links, half the test's time).
var makeSamples = []string{"CreateContactFunction", "DeliverFunction"}

// TestSamBuildMatchesMakeBuild runs sam build the way docs/operators.md
// tells an operator to (samconfig.toml's build parameters, no container;
// only the build and cache directories are temporary) and checks that sam
// build ships what make build builds: one artifact directory per function
// of template.yaml, holding only its bootstrap, an ELF for the function's
// architecture built from its functions/ directory with make build's
// settings (byte for byte make build's for the samples); and that the
// built template sam deploy reads points each function at it.
func TestSamBuildMatchesMakeBuild(t *testing.T) {
	venv := awstools.Dir(t)
	root, err := template.Root()
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := template.LoadRepo()
	if err != nil {
		t.Fatal(err)
	}
	fns := tpl.Functions()
	samDir := filepath.Join(t.TempDir(), "build")
	makeDir := t.TempDir()

	runBuild(t, root, "sam build", awstools.Bin(venv, "sam"), "build", "--build-dir", samDir, "--cache-dir", t.TempDir())
	for _, id := range makeSamples {
		runBuild(t, root, "make build-"+id, "make", "--no-print-directory", "build-"+id, "ARTIFACTS_DIR="+filepath.Join(makeDir, id))
	}

	ids := make([]string, 0, len(fns))
	for id := range fns {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if got := artifactDirs(t, samDir); !slices.Equal(got, ids) {
		t.Errorf("sam build's artifact directories are not the template's functions:\n got %v\nwant %v", got, ids)
	}
	want := makeSettings(t, makeDir)

	built, err := template.Load(filepath.Join(samDir, "template.yaml"))
	if err != nil {
		t.Fatalf("sam build's template: %v", err)
	}
	builtFns := built.Functions()
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			if uri, _ := builtFns[id].Properties["CodeUri"].(string); filepath.Join(samDir, uri) != filepath.Join(samDir, id) {
				t.Errorf("%s: sam build's template.yaml gives CodeUri %q, not its artifact directory %q", id, uri, id)
			}
			if got := dirEntries(t, filepath.Join(samDir, id)); !slices.Equal(got, []string{"bootstrap"}) {
				t.Errorf("%s: sam build's artifact directory holds %v; sam deploy zips it, and it should hold only bootstrap", id, got)
			}
			samBin, err := os.ReadFile(filepath.Join(samDir, id, "bootstrap"))
			if err != nil {
				t.Fatalf("%s: sam build made no bootstrap: %v", id, err)
			}
			arch := fns[id].Architecture()
			if problem := elfProblem(samBin, lambdaMachine[arch]); problem != "" {
				t.Errorf("%s: sam build's bootstrap is not an executable for the template's %s: %s", id, arch, problem)
			}
			info, err := buildinfo.Read(bytes.NewReader(samBin))
			if err != nil {
				t.Fatalf("%s: sam build's bootstrap carries no Go build information: %v", id, err)
			}
			if p, wantPath := info.Path, info.Main.Path+"/functions/"+template.Kebab(strings.TrimSuffix(id, "Function")); p != wantPath {
				t.Errorf("%s: sam build built %s, want %s", id, p, wantPath)
			}
			if got := settingsOf(info); got != want {
				t.Errorf("%s: sam build's settings differ from make build's:\n got %s\nwant %s", id, got, want)
			}
			if !slices.Contains(makeSamples, id) {
				return
			}
			makeBin, err := os.ReadFile(filepath.Join(makeDir, id, "bootstrap"))
			if err != nil {
				t.Fatalf("%s: make build made no bootstrap: %v", id, err)
			}
			if !bytes.Equal(samBin, makeBin) {
				t.Errorf("%s: sam build's bootstrap differs from make build's (sha256 %x, %d bytes, against %x, %d bytes)",
					id, sha256.Sum256(samBin), len(samBin), sha256.Sum256(makeBin), len(makeBin))
			}
		})
	}
}

// makeSettings returns the build settings of make build's samples, which
// must agree with each other.
func makeSettings(t *testing.T, makeDir string) string {
	t.Helper()
	var want string
	for _, id := range makeSamples {
		info, err := buildinfo.ReadFile(filepath.Join(makeDir, id, "bootstrap"))
		if err != nil {
			t.Fatalf("make build-%s: %v", id, err)
		}
		got := settingsOf(info)
		if want != "" && got != want {
			t.Fatalf("make build's samples differ in their settings:\n%s\n%s", want, got)
		}
		want = got
	}
	return want
}

// settingsOf is a binary's Go version and build settings (flags, tags,
// GOOS, GOARCH, CGO_ENABLED, ...), one line.
func settingsOf(info *debug.BuildInfo) string {
	parts := []string{info.GoVersion}
	for _, s := range info.Settings {
		parts = append(parts, s.Key+"="+s.Value)
	}
	return strings.Join(parts, " ")
}

// runBuild runs a build command in the repository root, logs how long it
// took, and fails the test with its output if it fails. It leaves out the
// variables of a make that runs the test (make test): its jobserver is
// not the child's.
func runBuild(t *testing.T, root, label, name string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), name, args...)
	cmd.Dir = root
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
		for _, k := range []string{"MAKEFLAGS=", "MFLAGS=", "MAKELEVEL="} {
			if strings.HasPrefix(kv, k) {
				return true
			}
		}
		return false
	}), "SAM_CLI_TELEMETRY=0")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s (%s %s): %v\n%s", label, name, strings.Join(args, " "), err, out)
	}
	t.Logf("%s: %s", label, time.Since(start).Round(time.Second))
}

// artifactDirs lists the directories of a build directory: one per
// function (sam build also writes its template.yaml there).
func artifactDirs(t *testing.T, dir string) []string {
	return names(t, dir, func(e os.DirEntry) bool { return e.IsDir() })
}

// dirEntries lists a directory's names, sorted.
func dirEntries(t *testing.T, dir string) []string {
	return names(t, dir, func(os.DirEntry) bool { return true })
}

// names lists the names of dir's entries that keep, sorted.
func names(t *testing.T, dir string, keep func(os.DirEntry) bool) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if keep(e) {
			out = append(out, e.Name())
		}
	}
	return out
}

// elfProblem says what keeps b from being a 64-bit Linux executable for
// machine, or "" when nothing does.
func elfProblem(b []byte, machine elf.Machine) string {
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	switch {
	case f.Machine != machine:
		return "machine " + f.Machine.String() + ", want " + machine.String()
	case f.Class != elf.ELFCLASS64:
		return "class " + f.Class.String()
	case f.Type != elf.ET_EXEC:
		return "type " + f.Type.String() + ", want an executable"
	}
	return ""
}

// TestELFProblem checks the check of the bootstraps' format on the test's
// own executable, which Go built for this machine.
func TestELFProblem(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	own, ok := lambdaMachine[map[string]string{"arm64": "arm64", "amd64": "x86_64"}[runtime.GOARCH]]
	if !ok || runtime.GOOS != "linux" {
		t.Skipf("the test's executable is not a Linux ELF for a Lambda architecture (%s/%s)", runtime.GOOS, runtime.GOARCH)
	}
	other := elf.EM_AARCH64
	if own == elf.EM_AARCH64 {
		other = elf.EM_X86_64
	}
	for _, c := range []struct {
		name    string
		b       []byte
		machine elf.Machine
		want    string
	}{
		{"an executable for the machine passes", exe, own, ""},
		{"an executable for another machine is named by its machine", exe, other, "machine " + own.String()},
		{"a script is no ELF", bytes.Repeat([]byte("#!/bin/sh\n"), 8), own, "bad magic number"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := elfProblem(c.b, c.machine)
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Errorf("elfProblem = %q, want %q", got, c.want)
			}
		})
	}
}
