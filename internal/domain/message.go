package domain

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/ids"
)

// Message channels; DefaultChannel is used when the request names none.
var Channels = []string{"sms", "whatsapp", "telegram", "viber", "vk"}

// DefaultChannel reaches every contact: contacts are identified by phone.
const DefaultChannel = "sms"

// Message statuses. A message is queued when accepted; the channel
// gateway moves it on.
const (
	MessageQueued    = "queued"
	MessageSent      = "sent"
	MessageDelivered = "delivered"
	MessageFailed    = "failed"
)

// MessageStatuses lists every message status (the list filter accepts them).
var MessageStatuses = []string{MessageQueued, MessageSent, MessageDelivered, MessageFailed}

// MaxMessageText is the longest message text, in characters.
const MaxMessageText = 4096

// Message is a message to a contact.
type Message struct {
	ID        string `json:"id" dynamodbav:"id"`
	ContactID string `json:"contact_id" dynamodbav:"contact_id"`
	Channel   string `json:"channel" dynamodbav:"channel"`
	Text      string `json:"text" dynamodbav:"text"`
	Status    string `json:"status" dynamodbav:"status"`
	CreatedAt string `json:"created_at" dynamodbav:"created_at"`
}

// MessageInput is the body of POST /public/v1/messages.
type MessageInput struct {
	ContactID *string `json:"contact_id"`
	Text      *string `json:"text"`
	Channel   *string `json:"channel"`
}

// Validate returns the problems of the input.
func (in MessageInput) Validate() apierr.Problems {
	p := apierr.Problems{}
	checkID(p, "contact_id", in.ContactID, ids.Contact, "a contact id")
	switch {
	case in.Text == nil || strings.TrimSpace(*in.Text) == "":
		p.Add("text", "is required")
	case utf8.RuneCountInString(*in.Text) > MaxMessageText:
		p.Add("text", "must be at most 4096 characters")
	case HasControl(*in.Text, true):
		p.Add("text", ProblemControl)
	}
	if in.Channel != nil && !slices.Contains(Channels, *in.Channel) {
		p.Add("channel", "must be one of "+strings.Join(Channels, ", "))
	}
	return p
}

// NewMessage builds the queued message of a validated input.
func NewMessage(in MessageInput, id, createdAt string) Message {
	m := Message{ID: id, ContactID: *in.ContactID, Channel: DefaultChannel, Text: *in.Text, Status: MessageQueued, CreatedAt: createdAt}
	if in.Channel != nil {
		m.Channel = *in.Channel
	}
	return m
}
