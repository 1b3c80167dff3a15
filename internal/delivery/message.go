// Package delivery runs pillar 3's pipeline: the dispatcher fans outbox
// events out to deliveries on the delivery queue, the deliver function
// POSTs them and schedules retries with EventBridge Scheduler or sends
// them to the dead-letter queue, and the redrive function moves dead
// letters back.
package delivery

import (
	"encoding/json"
)

// Message is the body of a delivery queue message (and of a scheduled
// retry's target input, and of a dead letter).
type Message struct {
	DeliveryID string `json:"delivery_id"`
	ProjectID  string `json:"project_id"`
	Round      int    `json:"round,omitempty"`
	Attempt    int    `json:"attempt,omitempty"`
	// RedriveOfRound marks a dead letter. Consumed from the delivery queue
	// again (a DLQ redrive), it starts round RedriveOfRound+1: five fresh
	// attempts, unless the delivery was delivered meanwhile.
	RedriveOfRound int `json:"redrive_of_round,omitempty"`
	// Request names an extra attempt asked through the API.
	Request *Request `json:"request,omitempty"`
	// For people reading the dead-letter queue.
	EndpointID string `json:"endpoint_id,omitempty"`
	EventType  string `json:"event_type,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// Request is a manual retry or a redirect to an inspector.
type Request struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	TargetURL string `json:"target_url,omitempty"`
}

func (m Message) String() string {
	b, _ := json.Marshal(m)
	return string(b)
}

func parseMessage(body string) (Message, error) {
	var m Message
	err := json.Unmarshal([]byte(body), &m)
	return m, err
}
