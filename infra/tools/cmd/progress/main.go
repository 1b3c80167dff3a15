// Command progress runs one long step of make run or make test and says,
// while it runs, what it is doing and how far it is, so that a cold build is
// never a silent one. Its lines go to stderr, the command's own output
// passes through:
//
//	progress go build -o .cache/botix-local ./infra/run/botix-local
//	progress go vet ./...
//	progress go test -count=1 ./...
//	progress -label "npm ci" -- npm ci
//
// A step that ends within the first interval (10 s) prints nothing of its
// own. After that a line comes when the figures change, at most one per
// interval and at least one every 30 s:
//
//	go vet: compiled 212 of the 844 packages it needs (cached ones are skipped), 1m40s
//	go test: 37 of 152 packages done, 1 failed; running infra/run/local (3m02s), internal/api (1m10s); 9m12s
//
// For go build and go vet it adds -v and counts the packages the go command
// names as it compiles them (go list -deps gives the total); for go test it
// adds -json, prints what go test would have printed (an ok line per
// passing package, everything of a failing test) and counts the packages.
// Any other command gets a line saying it is still running. The exit code
// is the command's.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/botix/public-api/infra/internal/ticker"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("progress", flag.ContinueOnError)
	fs.SetOutput(stderr)
	label := fs.String("label", "", "what the lines call the step (default: the command and its subcommand)")
	every := fs.Duration("every", 10*time.Second, "the shortest interval between two lines")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	args = fs.Args()
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: progress [-label L] [-every 10s] [--] command [args...]")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := newStep(ctx, args)
	if *label != "" {
		s.label = *label
	}
	rep := &reporter{out: stderr, label: s.label, every: *every, start: time.Now()}
	quiet := ticker.Every(*every, func(now time.Time) {
		key, line := s.status()
		rep.tick(now, key, line)
	})
	code := s.run(ctx, stdout, stderr)
	quiet()
	return code
}

// step is one command and what its output says of its progress.
type step struct {
	label  string
	cmd    *exec.Cmd
	status func() (key, line string) // what the command is doing now (without the time); a new key is news
	run    func(ctx context.Context, stdout, stderr io.Writer) int
}

// newStep recognises go build, go vet and go test; any other command is
// run as it is.
func newStep(ctx context.Context, args []string) *step {
	if len(args) >= 2 && isGo(args[0]) {
		switch args[1] {
		case "build", "vet":
			return compileStep(ctx, args)
		case "test":
			return testStep(ctx, args)
		}
	}
	s := &step{label: labelOf(args), status: func() (string, string) { return "", "still running" }}
	s.run = func(ctx context.Context, stdout, stderr io.Writer) int {
		cmd := command(ctx, args)
		cmd.Stdout, cmd.Stderr = stdout, stderr
		return exitCode(cmd.Run(), stderr)
	}
	return s
}

func labelOf(args []string) string {
	if len(args) >= 2 && len(args[1]) > 0 && args[1][0] != '-' {
		return args[0] + " " + args[1]
	}
	return args[0]
}

func isGo(path string) bool {
	base := path
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			base = path[i+1:]
			break
		}
	}
	return base == "go"
}

// command is args as a child that shares our terminal; Ctrl-C reaches it
// through the process group, and a cancelled ctx (SIGTERM) stops it.
func command(ctx context.Context, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdin = os.Stdin
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// runReading starts cmd, gives read the output that pipe (cmd.StdoutPipe or
// cmd.StderrPipe) opens until it closes, and returns cmd's exit code.
func runReading(cmd *exec.Cmd, pipe func() (io.ReadCloser, error), read func(io.Reader), stderr io.Writer) int {
	out, err := pipe()
	if err != nil {
		return exitCode(err, stderr)
	}
	if err := cmd.Start(); err != nil {
		return exitCode(err, stderr)
	}
	read(out)
	return exitCode(cmd.Wait(), stderr)
}

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if exit, ok := err.(*exec.ExitError); ok && exit.ExitCode() > 0 {
		return exit.ExitCode()
	}
	fmt.Fprintln(stderr, "progress:", err)
	return 1
}
