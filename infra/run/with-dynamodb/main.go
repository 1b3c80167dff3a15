// Command with-dynamodb starts one DynamoDB Local, runs a command with
// AWS_ENDPOINT_URL_DYNAMODB pointing at it, and stops it. make test runs
// `go test ./...` under it so that every test package shares one engine
// (each creates its own uniquely named tables).
//
//	go run ./infra/run/with-dynamodb -- go test ./...
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/botix/public-api/infra/run/ddblocal"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: with-dynamodb -- command [args...]")
		return 2
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	fmt.Fprintln(os.Stderr, "with-dynamodb: starting DynamoDB Local (Java) for:", strings.Join(args, " "))
	inst, err := ddblocal.Start(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "with-dynamodb: cannot start DynamoDB Local, so the integration tests cannot run:", err)
		return 1
	}
	defer inst.Stop()
	fmt.Fprintln(os.Stderr, "with-dynamodb: DynamoDB Local at", inst.Endpoint)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "AWS_ENDPOINT_URL_DYNAMODB="+inst.Endpoint)
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "with-dynamodb:", err)
		return 1
	}
	return 0
}
