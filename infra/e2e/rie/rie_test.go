package rie_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/botix/public-api/infra/internal/freeport"
	"github.com/botix/public-api/infra/internal/procout"

	"github.com/botix/public-api/infra/internal/functions"
	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/testkit/apitest"
	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/infra/testkit/localtest"
	"github.com/botix/public-api/internal/app/registry"
)

func TestMain(m *testing.M) { dynamotest.Main(m) }

// sampleKey is the API key the samples in events/ send.
const sampleKey = "bx_sample_key_for_local_invoke_0001"

// build compiles the emulator and every function's bootstrap into
// .cache/rie (one go build for all functions, as make build does it but for
// the host's architecture, and without -trimpath: that flag only shortens
// the file names in stack traces, and it is part of every package's cache
// key, so with it a cold make test compiled the 388 packages of the
// functions a second time; CGO_ENABLED=0 is make test's too).
func build(t *testing.T, root string) (rie, bin string) {
	t.Helper()
	cache := filepath.Join(root, ".cache", "rie")
	bin = filepath.Join(cache, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	rie = filepath.Join(cache, "aws-lambda-rie")
	run := func(args ...string) {
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("build", "-o", rie, "github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie")
	run("build", "-tags", "lambda.norpc", "-ldflags=-s -w", "-o", bin+string(filepath.Separator), "./functions/...")
	return rie, bin
}

// emulator is one bootstrap running under RIE.
type emulator struct {
	url string
	cmd *exec.Cmd
	out *procout.Buffer
}

func start(t *testing.T, rie, bootstrap string, env map[string]string, timeout time.Duration) *emulator {
	t.Helper()
	ports, err := freeport.Pick(2)
	if err != nil {
		t.Fatal(err)
	}
	port, apiPort := ports[0], ports[1]
	cmd := exec.Command(rie, "--runtime-interface-emulator-address", fmt.Sprintf("127.0.0.1:%d", port),
		"--runtime-api-address", fmt.Sprintf("127.0.0.1:%d", apiPort), "--log-level", "error", bootstrap)
	cmd.Dir = filepath.Dir(bootstrap)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "AWS_LAMBDA_FUNCTION_TIMEOUT=" + strconv.Itoa(int(timeout/time.Second)), "AWS_LAMBDA_FUNCTION_MEMORY_SIZE=256"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	e := &emulator{url: fmt.Sprintf("http://127.0.0.1:%d/2015-03-31/functions/function/invocations", port), cmd: cmd, out: &procout.Buffer{}}
	cmd.Stdout, cmd.Stderr = e.out, e.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return e
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("the emulator did not listen:\n%s", e.out.String())
	return nil
}

func (e *emulator) invoke(t *testing.T, payload []byte) ([]byte, time.Duration) {
	t.Helper()
	t0 := time.Now()
	resp, err := http.Post(e.url, "application/json", bytes.NewReader(payload))
	if err != nil {
		t.Fatalf("invoke: %v\n%s", err, e.out.String())
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return body, time.Since(t0)
}

var initRe = regexp.MustCompile(`Init Duration: ([0-9.]+) ms`)

// initDuration reads the REPORT line's Init Duration.
func (e *emulator) initDuration() float64 {
	sc := bufio.NewScanner(strings.NewReader(e.out.String()))
	for sc.Scan() {
		if m := initRe.FindStringSubmatch(sc.Text()); m != nil {
			v, _ := strconv.ParseFloat(m[1], 64)
			return v
		}
	}
	return -1
}

// check verifies a function's answer to its sample.
func check(t *testing.T, id string, out []byte, want localtest.Expectation) {
	t.Helper()
	var fail struct {
		ErrorMessage string `json:"errorMessage"`
	}
	_ = json.Unmarshal(out, &fail)
	if fail.ErrorMessage != "" {
		t.Fatalf("function error: %s", out)
	}
	switch {
	case registry.HTTP[id] != nil:
		var resp struct {
			StatusCode int    `json:"statusCode"`
			Body       string `json:"body"`
		}
		if err := json.Unmarshal(out, &resp); err != nil {
			t.Fatalf("not an API Gateway response: %s", out)
		}
		got := apitest.Reply{Status: resp.StatusCode, Body: []byte(resp.Body)}
		if got.Status != want.Status || got.ErrorCode() != want.Code {
			t.Fatalf("got %d %q, want %d %q: %s", got.Status, got.ErrorCode(), want.Status, want.Code, resp.Body)
		}
	case registry.Stream[id] != nil || registry.Queue[id] != nil:
		var resp struct {
			Failures []json.RawMessage `json:"batchItemFailures"`
		}
		if err := json.Unmarshal(out, &resp); err != nil || len(resp.Failures) > 0 {
			t.Fatalf("batch answer %s", out)
		}
	default:
		if !json.Valid(out) {
			t.Fatalf("invoke answer %s", out)
		}
	}
}

type timing struct {
	fn               string
	init, cold, warm float64
}

// TestRealBootstraps runs every function's real binary under the Lambda
// emulator with its sample event.
func TestRealBootstraps(t *testing.T) {
	root, err := template.Root()
	if err != nil {
		t.Fatal(err)
	}
	rie, bin := build(t, root)
	dirs, err := functions.Dirs(root)
	if err != nil {
		t.Fatal(err)
	}
	rt := localtest.Runtime(t, local.Config{Env: map[string]string{"WEBHOOK_ALLOW_LOOPBACK": "true"}})
	localtest.Project(t, rt, sampleKey)
	expectations := localtest.SampleExpectations(t)
	tpl, _ := template.LoadRepo()
	var mu sync.Mutex
	var timings []timing
	ids := make([]string, 0, len(dirs))
	for id := range tpl.Functions() {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			env := map[string]string{}
			vars := rt.EnvMap(id)
			for k, v := range vars {
				env[k] = v
			}
			fn, _ := rt.Function(id)
			e := start(t, rie, filepath.Join(bin, dirs[id]), env, fn.Timeout())
			sample := localtest.Sample(t, id)
			out, cold := e.invoke(t, sample)
			check(t, id, out, expectations[id])
			_, warm := e.invoke(t, sample)
			mu.Lock()
			timings = append(timings, timing{fn: id, init: e.initDuration(), cold: ms(cold), warm: ms(warm)})
			mu.Unlock()
		})
	}
	report(t, timings)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// report prints init and invoke times (make e2e-lambda shows them): the
// emulator's Init Duration (the runtime's init phase), the first
// invocation as a client sees it (process start + init + the call), and a
// warm invocation. Each call includes its DynamoDB Local round trips.
func report(t *testing.T, timings []timing) {
	var b strings.Builder
	b.WriteString("\n| function | RIE Init Duration ms | cold invoke ms | warm invoke ms |\n| --- | --- | --- | --- |\n")
	var maxInit float64
	var warm []float64
	for _, x := range timings {
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | %.1f |\n", x.fn, x.init, x.cold, x.warm)
		maxInit = max(maxInit, x.init)
		warm = append(warm, x.warm)
	}
	sort.Float64s(warm)
	fmt.Fprintf(&b, "\nslowest Init Duration %.1f ms (target < 50 ms), median warm invoke %.1f ms\n", maxInit, warm[len(warm)/2])
	t.Log(b.String())
}
