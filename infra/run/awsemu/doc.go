// Package awsemu plays, in process, the two AWS services the local runtime
// needs beside DynamoDB: Amazon SQS (standard queues, visibility timeouts,
// delays, retention, redrive policies, message move tasks, and fair
// queueing by MessageGroupId as SQS fair queues do, see fair.go) and
// EventBridge Scheduler (schedule groups and one-shot at() schedules with
// an SQS target, which it fires).
//
// Both answer the real AWS SDKs and CLI on the wire — SQS's AWS JSON 1.0
// protocol (X-Amz-Target: AmazonSQS.*) and Scheduler's REST JSON protocol
// — and offer the same operations as Go methods, which the local runtime
// uses for what Lambda and Scheduler do on AWS (event source mappings,
// firing schedules). The conformance test (package conformance, apart so
// that this package's tests need no Python) runs one scenario through the
// SDK against this package and against moto's server and expects the same
// answers, apart from the places it names where moto departs from AWS's
// documentation.
//
// Both go by a Clock (SQS.Clock, Scheduler.Clock; nil is the wall
// clock): visibility timeouts, delays, retention, fair queueing's
// windows, long polls and schedules. A test advances a ManualClock past
// them instead of sleeping (StartTestServerOn).
//
// It exists so that `make run` compiles two small services instead of a
// whole AWS emulator. What it does not emulate it refuses with a clear
// error: FIFO queues, recurring (rate/cron) schedules, targets other than
// SQS.
package awsemu
