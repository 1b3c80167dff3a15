// Command tracingcost measures what choosing the OpenTelemetry SDK for
// tracing would cost each function, against what the stack does (X-Ray
// active tracing, which adds no code, and a W3C traceparent of its own):
// in a throwaway copy of the repository it adds the SDK and its OTLP
// exporter at a pinned version, builds the deliver function with and
// without them as make build does, and prints their sizes (raw and
// zipped, what Lambda loads) and their start-up (process start to the end
// of init, the median of alternating runs): the figures behind the
// operators' guide's choice.
//
//	go run ./infra/tools/cmd/tracingcost
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/botix/public-api/infra/internal/zipsize"
)

// otelVersion is the OpenTelemetry Go release measured.
const otelVersion = "v1.47.0"

// withOTel is the deliver function as an OpenTelemetry choice would start
// it: a tracer provider batching spans to the OTLP exporter, and the W3C
// propagator.
const withOTel = `// Command deliver-otel is tracingcost's deliver function with the
// OpenTelemetry SDK set up.
package main

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/botix/public-api/internal/app"
)

func main() {
	if exp, err := otlptracehttp.New(context.Background()); err == nil {
		otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp)))
	}
	otel.SetTextMapPropagator(propagation.TraceContext{})
	app.Start(app.Deliver)
}
`

func main() {
	runs := flag.Int("runs", 60, "start-ups measured per binary")
	flag.Parse()
	if err := run(*runs); err != nil {
		fmt.Fprintln(os.Stderr, "tracingcost:", err)
		os.Exit(1)
	}
}

func run(runs int) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "tracingcost-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	repo := filepath.Join(tmp, "repo")
	fmt.Fprintln(os.Stderr, "tracingcost: copying the repository and adding OpenTelemetry", otelVersion, "(the first run downloads it)...")
	if err := cmd(root, nil, "git", "clone", "-q", "--no-hardlinks", root, repo); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(repo, "functions", "deliver-otel"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(repo, "functions", "deliver-otel", "main.go"), []byte(withOTel), 0o644); err != nil {
		return err
	}
	mods := []string{"go.opentelemetry.io/otel", "go.opentelemetry.io/otel/sdk", "go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"}
	args := []string{"get"}
	for _, m := range mods {
		args = append(args, m+"@"+otelVersion)
	}
	if err := cmd(repo, nil, "go", args...); err != nil {
		return err
	}
	type binary struct{ name, lambda, host string }
	bins := []binary{{name: "deliver (X-Ray active tracing, traceparent of our own)"}, {name: "deliver with the OpenTelemetry SDK and OTLP exporter"}}
	for i, dir := range []string{"deliver", "deliver-otel"} {
		bins[i].lambda = filepath.Join(tmp, dir+"-arm64")
		bins[i].host = filepath.Join(tmp, dir+"-host")
		flags := []string{"build", "-tags", "lambda.norpc", "-trimpath", "-ldflags=-s -w"}
		if err := cmd(repo, []string{"GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0"}, "go", append(flags, "-o", bins[i].lambda, "./functions/"+dir)...); err != nil {
			return err
		}
		if err := cmd(repo, []string{"CGO_ENABLED=0"}, "go", append(flags, "-o", bins[i].host, "./functions/"+dir)...); err != nil {
			return err
		}
	}
	starts := make([][]time.Duration, len(bins))
	for range runs {
		for i, b := range bins {
			starts[i] = append(starts[i], startup(b.host))
		}
	}
	fmt.Printf("| function | bootstrap MB (linux/arm64) | zipped MB | start-up to the end of init, median ms (%d runs, this machine) |\n| --- | --- | --- | --- |\n", runs)
	for i, b := range bins {
		raw, zipped, err := zipsize.Of(b.lambda)
		if err != nil {
			return err
		}
		fmt.Printf("| %s | %.1f | %.1f | %.1f |\n", b.name, zipsize.MB(raw), zipsize.MB(zipped), median(starts[i]))
	}
	fmt.Println("\nStart-up: the host build run without a Lambda environment, which ends after package init and main's set-up, where the function would first call the Runtime API.")
	return nil
}

// startup times one start of bin to its exit: without the function's
// environment, app.Start refuses to go on once init and main's set-up ran.
func startup(bin string) time.Duration {
	c := exec.Command(bin)
	c.Env = []string{"PATH=/usr/bin:/bin"}
	t := time.Now()
	_ = c.Run()
	return time.Since(t)
}

func cmd(dir string, env []string, name string, args ...string) error {
	c := exec.Command(name, args...)
	c.Dir = dir
	c.Env = append(os.Environ(), env...)
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %v: %v\n%s", name, args, err, out)
	}
	return nil
}

func median(d []time.Duration) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}
