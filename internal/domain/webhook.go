package domain

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/botix/public-api/internal/apierr"
)

// AllEvents subscribes an endpoint to every event type.
const AllEvents = "*"

// MaxEndpointsPerProject bounds the webhook endpoints of a project.
const MaxEndpointsPerProject = 20

// Endpoint is a webhook endpoint as the API shows it. Its secrets are never
// part of it: they are shown once, at creation and on rotation.
type Endpoint struct {
	ID                  string   `json:"id" dynamodbav:"id"`
	URL                 string   `json:"url" dynamodbav:"url"`
	Events              []string `json:"events" dynamodbav:"events"`
	Description         string   `json:"description,omitempty" dynamodbav:"description,omitempty"`
	Enabled             bool     `json:"enabled" dynamodbav:"enabled"`
	DisabledReason      string   `json:"disabled_reason,omitempty" dynamodbav:"disabled_reason,omitempty"`
	CreatedAt           string   `json:"created_at" dynamodbav:"created_at"`
	UpdatedAt           string   `json:"updated_at" dynamodbav:"updated_at"`
	LastSuccessAt       string   `json:"last_success_at,omitempty" dynamodbav:"last_success_at,omitempty"`
	LastFailureAt       string   `json:"last_failure_at,omitempty" dynamodbav:"last_failure_at,omitempty"`
	ConsecutiveFailures int      `json:"consecutive_failures" dynamodbav:"consecutive_failures"`
}

// Subscribed reports whether the endpoint receives events of type typ.
func (e Endpoint) Subscribed(typ string) bool {
	return slices.Contains(e.Events, AllEvents) || slices.Contains(e.Events, typ)
}

// EndpointInput is the body of POST and PATCH /public/v1/webhook-endpoints.
type EndpointInput struct {
	URL         *string  `json:"url"`
	Events      []string `json:"events"`
	Description *string  `json:"description"`
	Enabled     *bool    `json:"enabled"`
}

// Validate checks the fields that are present; create requires url and
// events. The URL's address rules are the webhook guard's (package
// webhook), checked by the caller.
func (in EndpointInput) Validate(create bool) apierr.Problems {
	p := apierr.Problems{}
	if create && in.URL == nil {
		p.Add("url", "is required")
	}
	switch {
	case in.Events == nil && create:
		p.Add("events", "is required: a list of event types, or [\"*\"] for all")
	case in.Events != nil:
		validateEventTypes(p, in.Events)
	}
	if in.Description != nil && utf8.RuneCountInString(*in.Description) > 500 {
		p.Add("description", "must be at most 500 characters")
	}
	if create && in.Enabled != nil {
		p.Add("enabled", "is set with PATCH; a new endpoint is enabled")
	}
	return p
}

func validateEventTypes(p apierr.Problems, types []string) {
	if len(types) == 0 {
		p.Add("events", "must name at least one event type, or \"*\"")
		return
	}
	seen := map[string]bool{}
	for _, t := range types {
		if t != AllEvents && !slices.Contains(EventTypes, t) {
			p.Add("events", "unknown event type "+t+"; known: "+strings.Join(EventTypes, ", ")+" or *")
			return
		}
		if seen[t] {
			p.Add("events", "event types must be distinct")
			return
		}
		seen[t] = true
	}
	if seen[AllEvents] && len(types) > 1 {
		p.Add("events", "\"*\" already means every type")
	}
}
