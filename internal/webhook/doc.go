// Package webhook is pillar 3: webhooks with retries and a dead-letter
// queue. It holds the rules — the delivery and endpoint model (statuses,
// claims, attempts, secrets and their rotation), request signing
// (X-Botix-Signature and Standard Webhooks, by the receiver kit's Sign),
// the retry schedule and how each answer is classified, Retry-After, thin
// payloads, flow control (rate and concurrency limits, and the receiver's
// "slow down"), health events, recoveries — and the orchestration that
// applies them. Nothing here imports the AWS SDK.
//
// This comment is the package's map: a test keeps its two lists equal to
// the code (every exported interface, all declared in ports.go; every
// exported type that works through one).
//
// # Ports
//
// The interfaces adapters implement: DynamoDB (package store), SQS and
// EventBridge Scheduler (package awsqueue), net/http (Sender).
// webhooktest holds in-memory fakes of each and the storage ports'
// contracts.
//
//   - Deliveries: deliveries and their attempt logs, each method one atomic write (store).
//   - Endpoints: endpoints, their failure streaks and their flow-control state (store).
//   - Queue: the delivery queue's two lanes and the dead-letter queue, as written to (awsqueue).
//   - Scheduler: future attempts, put on the delivery queue when due (awsqueue).
//   - DeadLetters: the dead-letter queue as the redriver reads it (awsqueue).
//   - Poster: one POST and what was observed; never an error (Sender).
//   - HealthEvents: health events into the outbox, once per endpoint, streak and type (store).
//   - Recoveries: each endpoint's one recovery, saved with its step (store).
//
// # Orchestrators
//
//   - Dispatcher: an outbox item becomes deliveries and delivery queue messages.
//   - Deliverer: claims the attempt a message names, paces it, POSTs it, and records delivered, a retry, or dead.
//   - Announcer: the health events of the deliverer's attempts (failing, disabling_soon, disabled, recovered).
//   - Recoverer: a recover call starts an endpoint's one recovery and takes its steps.
//   - Continuer: takes the recovery steps that continuation messages ask for.
//   - Redriver: moves dead letters back to the delivery queue, each to start a fresh round.
//
// # Rooms next door
//
// Package addrguard decides which addresses a webhook may reach (the SSRF
// guard of endpoint URLs, used by the API, and of every dial, used by
// Sender). Flow control (flow.go, admit.go) stays here: its state is the
// endpoint's (Endpoint.Flow, Leases, Taken), its rules are methods of
// Endpoint, the Endpoints port writes it, and the Deliverer applies it, so
// a package of its own would export the endpoint's insides to be read
// back.
package webhook
