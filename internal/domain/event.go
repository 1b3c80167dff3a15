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

// EventTypes lists every event type a webhook endpoint may subscribe to.
var EventTypes = []string{EventContactCreated, EventMessageSent, EventCatalogImported, EventScenarioStarted, EventWebhookTest}

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
