package domain

import (
	"encoding/json"
	"regexp"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/ids"
)

// Scenario run limits.
const (
	MaxVariables      = 50
	MaxVariablesBytes = 8 << 10
)

// ScenarioIDPattern is the shape of a scenario id (scenarios are managed in
// the BOTIX app; the API launches them).
var ScenarioIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

var variableName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// hasControlJSON reports whether a JSON string value holds a control
// character other than tab and line breaks.
func hasControlJSON(v json.RawMessage) bool {
	var s string
	return json.Unmarshal(v, &s) == nil && HasControl(s, true)
}

// ScenarioRun is a started run of a scenario for a contact.
type ScenarioRun struct {
	ID         string          `json:"id" dynamodbav:"id"`
	ScenarioID string          `json:"scenario_id" dynamodbav:"scenario_id"`
	ContactID  string          `json:"contact_id" dynamodbav:"contact_id"`
	Variables  json.RawMessage `json:"variables" dynamodbav:"-"`
	Status     string          `json:"status" dynamodbav:"status"`
	CreatedAt  string          `json:"created_at" dynamodbav:"created_at"`
}

// RunInput is the body of POST /public/v1/scenarios/{scenario_id}/runs.
type RunInput struct {
	ContactID *string                    `json:"contact_id"`
	Variables map[string]json.RawMessage `json:"variables"`
}

// Validate returns the problems of the input; variables are a flat object
// of strings, numbers and booleans.
func (in RunInput) Validate() apierr.Problems {
	p := apierr.Problems{}
	checkID(p, "contact_id", in.ContactID, ids.Contact, "a contact id")
	if len(in.Variables) > MaxVariables {
		p.Add("variables", "at most 50 variables")
	}
	size := 0
	for k, v := range in.Variables {
		size += len(k) + len(v)
		switch {
		case !variableName.MatchString(k):
			p.Add("variables", "names are 1-64 letters, digits, '_' or '-'")
		case len(v) == 0 || v[0] == '{' || v[0] == '[' || string(v) == "null":
			p.Add("variables."+k, "must be a string, number or boolean")
		case v[0] == '"' && hasControlJSON(v):
			p.Add("variables."+k, ProblemControl)
		}
	}
	if size > MaxVariablesBytes {
		p.Add("variables", "must be at most 8 KiB")
	}
	return p
}
