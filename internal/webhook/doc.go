// Package webhook is pillar 3: webhooks with retries and a dead-letter
// queue. It holds the rules — the delivery and endpoint model (statuses,
// claims, attempts, secrets and their rotation), request signing
// (X-Botix-Signature and Standard Webhooks, by the receiver kit's Sign),
// the retry schedule and how each answer is classified, Retry-After, thin
// payloads, which addresses a webhook may never reach — and the
// orchestration that applies them:
//
//   - Dispatcher: an outbox event becomes one delivery per target endpoint
//     and one delivery queue message (a delivery request, one message).
//   - Deliverer: claims the attempt a message names, POSTs it, and records
//     delivered, a scheduled retry, or dead with a dead letter.
//   - Redriver: moves dead letters back to the delivery queue, where each
//     starts a fresh round.
//
// They work through ports this package declares (Deliveries, Endpoints,
// Queue, Scheduler, DeadLetters, Poster): DynamoDB (package store), SQS and
// EventBridge Scheduler (package awsqueue) and net/http (Sender) implement
// them; webhooktest holds in-memory fakes and the storage ports' contracts.
// Nothing here imports the AWS SDK.
package webhook
