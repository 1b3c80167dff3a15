// Command contractprobe is the third-party contract run of `make bench`:
// under with-dynamodb it starts the local runtime in-process, creates a
// project and a few real resources (a contact, a webhook endpoint on a
// loopback receiver, an inspector, an event and its delivery), starts
// Stoplight Prism as a validating proxy in front of the runtime, and runs
// infra/tools/contractprobe/probe.mjs, which sends requests generated from
// sdk/openapi.yaml with json-schema-faker through the proxy and fails
// unless every count it keeps is 0. npm ci runs first when
// infra/tools/contractprobe/node_modules is missing.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/google/uuid"
	"go.yaml.in/yaml/v3"

	"github.com/botix/public-api/infra/internal/freeport"
	"github.com/botix/public-api/infra/run/local"
	"github.com/botix/public-api/infra/run/template"
	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/admin"
	"github.com/botix/public-api/internal/app"
)

func main() {
	perOp := flag.Int("per-op", 0, "valid requests generated per operation (0: the script's default)")
	minExchanges := flag.Int("min", 0, "fewest exchanges for a pass (0: the script's default)")
	seed := flag.Int("seed", 0, "json-schema-faker seed (0: the script's default)")
	flag.Parse()
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	code, err := run(ctx, *perOp, *minExchanges, *seed)
	if err != nil {
		fmt.Fprintln(os.Stderr, "contractprobe:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(ctx context.Context, perOp, minExchanges, seed int) (int, error) {
	endpoint := os.Getenv("AWS_ENDPOINT_URL_DYNAMODB")
	if endpoint == "" {
		return 2, errors.New("run under with-dynamodb (make bench)")
	}
	root, err := template.Root()
	if err != nil {
		return 0, err
	}
	dir := filepath.Join(root, "infra", "tools", "contractprobe")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", "prism")); err != nil {
		fmt.Fprintln(os.Stderr, "contractprobe: npm ci in infra/tools/contractprobe (Prism and json-schema-faker, pinned by package-lock.json)...")
		if err := command(ctx, dir, "npm", "ci", "--no-audit", "--no-fund").Run(); err != nil {
			return 0, fmt.Errorf("npm ci: %w", err)
		}
	}
	// The document as JSON for the script (Prism reads the YAML itself).
	docPath := filepath.Join(root, "sdk", "openapi.yaml")
	docJSON, err := yamlToJSON(docPath)
	if err != nil {
		return 0, err
	}
	tmp, err := os.MkdirTemp("", "contractprobe-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "openapi.json"), docJSON, 0o600); err != nil {
		return 0, err
	}

	// Webhooks go to a receiver on loopback that takes everything: the
	// generated endpoint URLs all point at it, so that no delivery leaves
	// the machine.
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	tpl, err := template.LoadRepo()
	if err != nil {
		return 0, err
	}
	rt, err := local.Start(ctx, local.Config{
		Template: tpl, DynamoDBEndpoint: endpoint, TablePrefix: dynamotest.UniquePrefix(),
		Env: map[string]string{app.EnvAllowLoopback: "true"},
		// The functions' request logs would bury the tables.
		Options: []app.Option{app.WithLogger(slog.New(slog.DiscardHandler))},
	})
	if err != nil {
		return 0, err
	}
	defer rt.Close()
	out, err := rt.Invoke(ctx, "AdminFunction", admin.Request{Action: "create_project", Name: "contract probe"})
	if err != nil {
		return 0, fmt.Errorf("create project: %w", err)
	}
	var project admin.Response
	if err := json.Unmarshal(out, &project); err != nil {
		return 0, err
	}
	fixtures, err := seedResources(ctx, rt.URL, project.APIKey, receiver.URL)
	if err != nil {
		return 0, fmt.Errorf("seed resources: %w", err)
	}
	fixtures["receiver"] = receiver.URL
	fixtureJSON, _ := json.Marshal(fixtures)
	if err := os.WriteFile(filepath.Join(tmp, "fixtures.json"), fixtureJSON, 0o600); err != nil {
		return 0, err
	}

	ports, err := freeport.Pick(1)
	if err != nil {
		return 0, err
	}
	port := ports[0]
	prismURL := "http://127.0.0.1:" + strconv.Itoa(port)
	var prismLog bytes.Buffer
	prism := command(ctx, dir, filepath.Join(dir, "node_modules", ".bin", "prism"), "proxy", "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		// Its log would repeat every violation the script counts: only
		// what stops it is kept, for a start that fails.
		"--errors=false", "--verboseLevel", "fatal", docPath, rt.URL)
	prism.Stdout, prism.Stderr = &prismLog, &prismLog
	if err := prism.Start(); err != nil {
		return 0, fmt.Errorf("start prism: %w", err)
	}
	defer func() {
		_ = prism.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = prism.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = prism.Process.Kill()
			<-done
		}
	}()
	if err := waitListening(ctx, port, 60*time.Second); err != nil {
		return 0, fmt.Errorf("prism did not start: %w\n%s", err, prismLog.String())
	}

	args := []string{"probe.mjs", "--document", filepath.Join(tmp, "openapi.json"), "--fixtures", filepath.Join(tmp, "fixtures.json"),
		"--proxy", prismURL, "--key", project.APIKey}
	for name, v := range map[string]int{"--per-op": perOp, "--min": minExchanges, "--seed": seed} {
		if v != 0 {
			args = append(args, name, strconv.Itoa(v))
		}
	}
	script := command(ctx, dir, "node", args...)
	script.Stdout, script.Stderr = os.Stdout, os.Stderr
	if err := script.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), nil
		}
		return 0, err
	}
	return 0, nil
}

// seedResources creates, straight on the runtime (not through the proxy),
// the resources whose ids the generated requests use where a route needs a
// real one.
func seedResources(ctx context.Context, base, key, receiver string) (map[string]string, error) {
	ids := map[string]string{}
	call := func(method, path string, body any, into any) error {
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+key)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if method != http.MethodGet {
			req.Header.Set("Idempotency-Key", uuid.NewString())
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		return json.Unmarshal(b, into)
	}
	var contact, endpoint, inspector struct {
		ID string `json:"id"`
	}
	if err := call("POST", "/public/v1/contacts", map[string]any{"phone": "+15550000001", "name": "Probe contact"}, &contact); err != nil {
		return nil, err
	}
	if err := call("POST", "/public/v1/webhook-endpoints", map[string]any{"url": receiver + "/hook", "events": []string{"*"}}, &endpoint); err != nil {
		return nil, err
	}
	if err := call("POST", "/public/v1/inspectors", nil, &inspector); err != nil {
		return nil, err
	}
	var test struct {
		EventID string `json:"event_id"`
	}
	if err := call("POST", "/public/v1/webhook-endpoints/"+endpoint.ID+"/test", nil, &test); err != nil {
		return nil, err
	}
	ids["contact"], ids["endpoint"], ids["inspector"], ids["event"] = contact.ID, endpoint.ID, inspector.ID, test.EventID
	// The delivery appears once the stream has carried the event to the
	// fan-out: wait a little for it; without one the script uses
	// pattern-valid generated ids (404s) for the delivery routes.
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var page struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if err := call("GET", "/public/v1/webhook-deliveries?event_id="+test.EventID, nil, &page); err != nil {
			return nil, err
		}
		if len(page.Data) > 0 {
			ids["delivery"] = page.Data[0].ID
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	if ids["delivery"] == "" {
		fmt.Fprintln(os.Stderr, "contractprobe: no delivery appeared within 20 s; the delivery routes get generated ids")
	}
	return ids, nil
}

func yamlToJSON(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return json.Marshal(doc)
}

func command(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, name, args...)
	c.Dir = dir
	c.Stdout, c.Stderr = os.Stderr, os.Stderr
	return c
}

func waitListening(ctx context.Context, port int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
