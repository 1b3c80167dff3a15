// Package rie holds the end-to-end test of the real Lambda binaries: each
// function's bootstrap, built as make build builds it (for the host's
// architecture), runs under the AWS Lambda Runtime Interface Emulator with
// the environment template.yaml gives it, pointed at DynamoDB Local and
// the local runtime's SQS and Scheduler, and answers its sample from events/. `make e2e-lambda` runs it
// alone and prints init and warm invoke times.
package rie
