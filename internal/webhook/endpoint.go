package webhook

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
)

// AllEvents subscribes an endpoint to every event type.
const AllEvents = "*"

// MaxEndpointsPerProject bounds the webhook endpoints of a project.
const MaxEndpointsPerProject = 20

// ErrEndpointNotFound reports an endpoint that does not exist in the
// project.
var ErrEndpointNotFound = apierr.New(apierr.NotFound, "webhook endpoint not found")

// Endpoint is a webhook endpoint: what the API shows, its health, and its
// signing secrets, which are never shown but once, at creation and on
// rotation.
type Endpoint struct {
	ID             string   `json:"id"`
	URL            string   `json:"url"`
	Events         []string `json:"events"`
	Description    string   `json:"description,omitempty"`
	Enabled        bool     `json:"enabled"`
	DisabledReason string   `json:"disabled_reason,omitempty"`
	// DisabledAt is when the endpoint was disabled (shown as its
	// Health's since).
	DisabledAt    string `json:"-"`
	CreatedAt     string `json:"created_at"`
	UpdatedAt     string `json:"updated_at"`
	LastSuccessAt string `json:"last_success_at,omitempty"`
	LastFailureAt string `json:"last_failure_at,omitempty"`
	// FailingSince is when the current streak of failed attempts began
	// (empty while the endpoint succeeds).
	FailingSince        string `json:"failing_since,omitempty"`
	ConsecutiveFailures int    `json:"consecutive_failures"`
	// RateLimit bounds the deliveries started per second, MaxConcurrency
	// the requests in flight at once (0: no bound). See flow.go.
	RateLimit      int `json:"rate_limit,omitempty"`
	MaxConcurrency int `json:"max_concurrency,omitempty"`
	// Throttle is what the receiver asked for (View), as of the read.
	Throttle *FlowView `json:"throttle,omitempty"`
	// Health is the endpoint's state (EndpointHealth), on GET and list.
	Health *Health `json:"health,omitempty"`
	// Flow and Leases are the flow control's state.
	Flow   Flow   `json:"-"`
	Leases Leases `json:"-"`
	// Taken is the last number given in the endpoint's virtual queue.
	Taken int64 `json:"-"`
	// Secrets sign the requests, newest first.
	Secrets []Secret `json:"-"`
}

// Secret is an endpoint signing secret. A zero ExpiresAt signs until the
// next rotation; after it, the secret signs until ExpiresAt.
type Secret struct {
	Value     string
	CreatedAt string
	ExpiresAt time.Time
}

// SecretOverlap is how long the previous secret keeps signing after a
// rotation, so that receivers can switch without losing a webhook.
const SecretOverlap = 24 * time.Hour

// ActiveSecrets returns the secrets that sign at now, newest first.
func (e Endpoint) ActiveSecrets(now time.Time) []string {
	var out []string
	for _, s := range e.Secrets {
		if s.ExpiresAt.IsZero() || now.Before(s.ExpiresAt) {
			out = append(out, s.Value)
		}
	}
	return out
}

// Rotate returns the secrets after a rotation at now, with the new secret
// first. Every secret still signing keeps signing for its full overlap: the
// current one for SecretOverlap from now, older ones until their own end
// (two rotations in a day must not cut the first one short). previousEnds
// is when the current secret stops signing.
func (e Endpoint) Rotate(now time.Time) (secret string, secrets []Secret, previousEnds time.Time) {
	secret = NewSecret()
	previousEnds = now.Add(SecretOverlap)
	secrets = []Secret{{Value: secret, CreatedAt: ids.Timestamp(now)}}
	for _, old := range e.Secrets {
		switch {
		case old.ExpiresAt.IsZero():
			old.ExpiresAt = previousEnds
		case !now.Before(old.ExpiresAt):
			continue
		}
		secrets = append(secrets, old)
	}
	return secret, secrets, previousEnds
}

// NewEndpoint returns the endpoint a validated creation input describes,
// enabled, with one fresh secret.
func NewEndpoint(in EndpointInput, id string, now time.Time) Endpoint {
	ep := Endpoint{ID: id, URL: *in.URL, Events: in.Events, Enabled: true, CreatedAt: ids.Timestamp(now), UpdatedAt: ids.Timestamp(now),
		Secrets: []Secret{{Value: NewSecret(), CreatedAt: ids.Timestamp(now)}}}
	if in.Description != nil {
		ep.Description = *in.Description
	}
	ep.RateLimit, ep.MaxConcurrency = in.RateLimit.Int(), in.MaxConcurrency.Int()
	return ep
}

// Patch applies a validated update input at now. Enabling an endpoint
// clears its disabled reason and its failure streak.
func (e Endpoint) Patch(in EndpointInput, now time.Time) Endpoint {
	e.UpdatedAt = ids.Timestamp(now)
	if in.URL != nil {
		e.URL = *in.URL
	}
	if in.Events != nil {
		e.Events = in.Events
	}
	if in.Description != nil {
		e.Description = *in.Description
	}
	if in.RateLimit.Set {
		e.RateLimit = in.RateLimit.Int()
	}
	if in.MaxConcurrency.Set {
		e.MaxConcurrency = in.MaxConcurrency.Int()
	}
	if in.Enabled != nil {
		e.Enabled = *in.Enabled
		if e.Enabled {
			e.DisabledReason, e.DisabledAt, e.ConsecutiveFailures, e.FailingSince = "", "", 0, ""
		} else if e.DisabledAt == "" {
			e.DisabledAt = e.UpdatedAt
		}
	}
	return e
}

// Targets reports whether the endpoint receives an outgoing event: named
// by it (webhook.test), or enabled, subscribed to its type, and not the
// endpoint a health event is about (its trouble goes to the others).
func (e Endpoint) Targets(o Outgoing) bool {
	if o.TargetEndpoint != "" {
		return o.TargetEndpoint == e.ID
	}
	return e.Enabled && e.ID != o.About && e.Subscribed(o.Event.Type)
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
	// RateLimit and MaxConcurrency: a number sets the bound, null removes it.
	RateLimit      OptionalInt `json:"rate_limit"`
	MaxConcurrency OptionalInt `json:"max_concurrency"`
}

// NullableFields are the fields of an update that null removes.
var NullableFields = []string{"rate_limit", "max_concurrency"}

// OptionalInt is a field that may be absent (Set false), null (Value nil)
// or a number.
type OptionalInt struct {
	Set   bool
	Value *int
}

// UnmarshalJSON implements json.Unmarshaler (called only for a present
// field).
func (o *OptionalInt) UnmarshalJSON(b []byte) error {
	o.Set = true
	var n *float64
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	if n != nil {
		v := int(*n)
		if float64(v) != *n {
			v = -1 // not a whole number: refused by check
		}
		o.Value = &v
	}
	return nil
}

// Int is the value, 0 for absent or null.
func (o OptionalInt) Int() int {
	if o.Value == nil {
		return 0
	}
	return *o.Value
}

func (o OptionalInt) check(p apierr.Problems, field string, most int) {
	if o.Value != nil && (*o.Value < 1 || *o.Value > most) {
		p.Add(field, "must be a whole number from 1 to "+strconv.Itoa(most)+", or null for no limit")
	}
}

// Validate checks the fields that are present; create requires url and
// events, an update at least one field. The URL's address rules are the
// addrguard.Guard's, checked by the caller (they may resolve names).
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
	if in.Description != nil {
		switch {
		case utf8.RuneCountInString(*in.Description) > 500:
			p.Add("description", "must be at most 500 characters")
		case domain.HasControl(*in.Description, true):
			p.Add("description", domain.ProblemControl)
		}
	}
	in.RateLimit.check(p, "rate_limit", MaxRateLimit)
	in.MaxConcurrency.check(p, "max_concurrency", MaxMaxConcurrency)
	if create && in.Enabled != nil {
		p.Add("enabled", "is set with PATCH; a new endpoint is enabled")
	}
	if !create && in.URL == nil && in.Events == nil && in.Description == nil && in.Enabled == nil && !in.RateLimit.Set && !in.MaxConcurrency.Set {
		p.Add("body", "name at least one of url, events, description, enabled, rate_limit, max_concurrency")
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
		if t != AllEvents && !slices.Contains(domain.EventTypes, t) {
			p.Add("events", "unknown event type "+t+"; known: "+strings.Join(domain.EventTypes, ", ")+" or *")
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
