package domain

import "encoding/json"

// Event types emitted through the outbox.
const (
	EventContactCreated  = "contact.created"
	EventMessageSent     = "message.sent"
	EventCatalogImported = "catalog.imported"
	EventScenarioStarted = "scenario.started"
	EventWebhookTest     = "webhook.test"
)

// Health event types: what the deliver function tells a project's owner
// about one of its webhook endpoints (internal/webhook/health.go decides
// when). They go to the project's other endpoints, never to the endpoint
// they are about.
const (
	EventEndpointFailing       = "webhook_endpoint.failing"
	EventEndpointDisablingSoon = "webhook_endpoint.disabling_soon"
	EventEndpointDisabled      = "webhook_endpoint.disabled"
	EventEndpointRecovered     = "webhook_endpoint.recovered"
)

// HealthEventTypes lists the health event types, in the order a failing
// endpoint can go through them.
var HealthEventTypes = []string{EventEndpointFailing, EventEndpointDisablingSoon, EventEndpointDisabled, EventEndpointRecovered}

// EventTypes lists every event type a webhook endpoint may subscribe to.
var EventTypes = append([]string{EventContactCreated, EventMessageSent, EventCatalogImported, EventScenarioStarted, EventWebhookTest}, HealthEventTypes...)

// Event is an outbox event: written in the same transaction as the business
// change it describes, then fanned out to webhooks and kept for polling.
// Its JSON form is exactly the webhook body.
type Event struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt string          `json:"created_at"`
	ProjectID string          `json:"project_id"`
	Data      json.RawMessage `json:"data"`
}
