package webhook

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/botix/public-api/internal/domain"
)

// Outgoing is an outbox item on its way to receivers: an event (fanned
// out to every subscribed endpoint, or only to TargetEndpoint) or a
// delivery request.
type Outgoing struct {
	Event          *domain.Event
	TargetEndpoint string
	// About names the endpoint a health event is about, which never
	// receives it.
	About   string
	Request *DeliveryRequest
	// Trace is the traceparent of the request that wrote it.
	Trace string
}

// Message is the body of a delivery queue message, of a scheduled retry's
// target input, and of a dead letter.
type Message struct {
	DeliveryID string `json:"delivery_id"`
	ProjectID  string `json:"project_id"`
	Round      int    `json:"round,omitempty"`
	Attempt    int    `json:"attempt,omitempty"`
	// RedriveOfRound marks a dead letter. Consumed from the delivery queue
	// again (a DLQ redrive), it starts round RedriveOfRound+1: five fresh
	// attempts, unless the delivery was delivered meanwhile.
	RedriveOfRound int `json:"redrive_of_round,omitempty"`
	// RecoveryID names the recovery that queued a redrive (Claim.Recovery).
	RecoveryID string `json:"recovery_id,omitempty"`
	// Request names an extra attempt asked through the API.
	Request *MessageRequest `json:"request,omitempty"`
	// EndpointID routes the message through its endpoint's flow control
	// (messages written before it was set run without); with EventType
	// and Reason, it is also for people reading the dead-letter queue.
	EndpointID string `json:"endpoint_id,omitempty"`
	EventType  string `json:"event_type,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// Number is the message's place in its endpoint's virtual queue (see
	// flow.go; 0: none yet), NotBefore (epoch ms) the earliest it may
	// start: a deferral is rounded down to SQS's whole seconds, and the
	// rest is waited for when it comes back.
	Number    int64 `json:"flow_number,omitempty"`
	NotBefore int64 `json:"not_before,omitempty"`
	// Continuation, on a message of its own (no delivery), asks for the
	// next step of a running recovery (see Continuer).
	Continuation *Continuation `json:"continuation,omitempty"`
	// Outbox, on a message of its own (no delivery), is an outbox record
	// (the data table stream's new image, as Lambda's event gives it)
	// whose dispatch failed: parked on the delivery queue so that it does
	// not hold its stream shard, every other project's events behind it,
	// and dispatched again from there (package outbox).
	Outbox json.RawMessage `json:"outbox,omitempty"`
	// Bulk puts the message, and every message that follows from it (its
	// deferrals and retries), on the bulk lane (see BulkAfter).
	Bulk bool `json:"bulk,omitempty"`
	// Pending, on the first message of a delivery the dispatcher sent to
	// the bulk lane, is that delivery, not yet stored: the deliverer stores
	// it, claimed, when the message's turn comes (see BulkAfter).
	Pending *PendingDelivery `json:"pending,omitempty"`
	// Trace is the W3C traceparent of the request that wrote the event
	// (or asked the retry), as the handling that sent this message
	// continued it: in the body, because a Scheduler retry, a dead letter
	// and its redrive keep the body (package tracing).
	Trace string `json:"traceparent,omitempty"`
	// RoundEnds (epoch seconds) is when the message's round ends (see
	// DeliveryLifetime); 0 on a redrive, whose claim starts a round.
	RoundEnds int64 `json:"round_ends,omitempty"`
}

// PendingDelivery is what a bulk lane's first message carries of its
// delivery besides the ids, the event type (Message.EventType, which the
// Redrive function's filter reads) and the first attempt's place: the
// event it delivers, its body, and when the dispatcher made it.
type PendingDelivery struct {
	EventID   string `json:"event_id"`
	Payload   string `json:"payload"`
	CreatedAt string `json:"created_at"`
}

// delivery is the delivery m's Pending describes, as the dispatcher would
// have stored it.
func (m Message) delivery() Delivery {
	p := m.Pending
	return Delivery{
		ProjectID: m.ProjectID, ID: m.DeliveryID, EventID: p.EventID, EventType: m.EventType, EndpointID: m.EndpointID,
		Status: StatusPending, Round: 1, NextAttempt: 1, Payload: p.Payload, CreatedAt: p.CreatedAt, UpdatedAt: p.CreatedAt,
	}
}

// MessageRequest is a delivery request carried by a message.
type MessageRequest struct {
	ID        string      `json:"id"`
	Kind      RequestKind `json:"kind"`
	TargetURL string      `json:"target_url,omitempty"`
}

// String is the message's body on a queue. HTML is not escaped: a bulk
// lane's first message carries its payload (Pending), and escaping would
// grow a body of "<" sixfold, past SQS's bound; unescaped, a payload
// within MaxPayload at most doubles ("\"" and "\\" take two bytes).
func (m Message) String() string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m)
	return strings.TrimSuffix(b.String(), "\n")
}

// ParseMessage reads a message body; a body without a project, or without
// a delivery and not a recovery's continuation, is not a message.
func ParseMessage(body string) (Message, error) {
	var m Message
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		return Message{}, err
	}
	if m.ProjectID == "" || (m.DeliveryID == "" && m.Continuation == nil && len(m.Outbox) == 0) {
		return Message{}, errNotAMessage
	}
	return m, nil
}

var errNotAMessage = errors.New("webhook: not a delivery message")
