// Package awstools gives tests AWS's own tools, pinned in requirements.txt
// and installed by ensure.sh into a virtualenv in the user's cache: the
// SAM CLI and translator, cfn-lint, botocore's service models and moto's
// server. make lint runs the same script.
package awstools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/botix/public-api/infra/internal/freeport"
	"github.com/botix/public-api/infra/internal/procout"
)

var (
	once    sync.Once
	envDir  string
	envErr  error
	selfDir = func() string { _, f, _, _ := runtime.Caller(0); return filepath.Dir(f) }()
)

// Ensure returns the virtualenv's directory, installing the tools on the
// first call on this machine (about half a minute; later calls are
// instant). Its error is ensure.sh's one line saying what to install.
func Ensure(ctx context.Context) (string, error) {
	once.Do(func() {
		cmd := exec.CommandContext(ctx, "bash", filepath.Join(selfDir, "ensure.sh"))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		if err := cmd.Run(); err != nil {
			envErr = fmt.Errorf("awstools: ensure.sh failed (%v); its message is above", err)
			return
		}
		envDir = strings.TrimSpace(out.String())
	})
	return envDir, envErr
}

// Dir is Ensure for a test: it fails the test when the tools cannot be had.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := Ensure(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// Bin is the path of a command of the virtualenv (sam, cfn-lint, moto_server).
func Bin(dir, name string) string { return filepath.Join(dir, "bin", name) }

// Python is the virtualenv's interpreter.
func Python(dir string) string { return Bin(dir, "python") }

// ModelsDir is where botocore keeps its service models
// (<service>/<api version>/service-2.json.gz).
func ModelsDir(dir string) (string, error) {
	found, err := filepath.Glob(filepath.Join(dir, "lib", "python3*", "site-packages", "botocore", "data"))
	if err != nil || len(found) != 1 {
		return "", fmt.Errorf("awstools: no botocore data directory in %s", dir)
	}
	return found[0], nil
}

// Moto is a running moto server.
type Moto struct {
	// URL is its endpoint, e.g. http://127.0.0.1:41234, for every service.
	URL string
	cmd *exec.Cmd
	out *procout.Buffer
}

// StartMoto starts moto's server on a free loopback port and waits until
// it answers; the test's cleanup stops it.
func StartMoto(t testing.TB) *Moto {
	t.Helper()
	dir := Dir(t)
	var lastErr error
	for range 3 { // a port taken between Pick and the bind is tried again
		ports, err := freeport.Pick(1)
		if err != nil {
			t.Fatal(err)
		}
		m, err := startMoto(dir, ports[0])
		if err == nil {
			t.Cleanup(m.Stop)
			return m
		}
		lastErr = err
	}
	t.Fatal(lastErr)
	return nil
}

func startMoto(dir string, port int) (*Moto, error) {
	m := &Moto{URL: "http://127.0.0.1:" + strconv.Itoa(port), out: &procout.Buffer{}}
	m.cmd = exec.Command(Bin(dir, "moto_server"), "-H", "127.0.0.1", "-p", strconv.Itoa(port))
	m.cmd.Stdout, m.cmd.Stderr = m.out, m.out
	m.cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local", "AWS_DEFAULT_REGION=us-east-1")
	if err := m.cmd.Start(); err != nil {
		return nil, fmt.Errorf("awstools: start moto_server: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- m.cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second) // generous: a busy 2-core machine
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return nil, fmt.Errorf("awstools: moto_server exited (%v):\n%s", err, m.out.String())
		default:
		}
		resp, err := http.Get(m.URL + "/moto-api/")
		if err == nil {
			resp.Body.Close()
			return m, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = m.cmd.Process.Kill()
	return nil, errors.New("awstools: moto_server did not answer in 60 s:\n" + m.out.String())
}

// Stop ends the server.
func (m *Moto) Stop() {
	if m.cmd != nil && m.cmd.Process != nil {
		_ = m.cmd.Process.Kill()
	}
}

// Output is what the server has written (its request log and tracebacks).
func (m *Moto) Output() string { return m.out.String() }
