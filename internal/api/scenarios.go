package api

import (
	"context"
	"encoding/json"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/httpapi"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
)

// Scenarios serves /public/v1/scenarios.
type Scenarios struct {
	Deps
}

// Run is POST /public/v1/scenarios/{scenario_id}/runs: a started run and
// its scenario.started event; 404 NOT_FOUND for an unknown contact.
func (s *Scenarios) Run(ctx context.Context, r *httpapi.Request) (Outcome, error) {
	scenario := r.PathParams["scenario_id"]
	if !domain.ScenarioIDPattern.MatchString(scenario) {
		return Outcome{}, apierr.Problems{"scenario_id": "must be 1-64 letters, digits, '_' or '-'"}.ParamErr()
	}
	var in domain.RunInput
	if err := httpapi.Decode(r.Body, &in); err != nil {
		return Outcome{}, err
	}
	if err := in.Validate().Err(); err != nil {
		return Outcome{}, err
	}
	vars, err := json.Marshal(in.Variables)
	if err != nil {
		return Outcome{}, err
	}
	if in.Variables == nil {
		vars = []byte("{}")
	}
	now := s.now()
	run := domain.ScenarioRun{ID: ids.New(ids.Run, now), ScenarioID: scenario, ContactID: *in.ContactID, Variables: vars, Status: "started", CreatedAt: ids.Timestamp(now)}
	var plan store.Plan
	if err := s.Store.ContactExistsCheck(&plan, r.Project, run.ContactID, contactNotFound(run.ContactID)); err != nil {
		return Outcome{}, err
	}
	if err := s.Store.AddScenarioRun(&plan, r.Project, run); err != nil {
		return Outcome{}, err
	}
	if err := addEvent(s.Store, &plan, r.Project, domain.EventScenarioStarted, run, now); err != nil {
		return Outcome{}, err
	}
	return accepted(run, plan)
}
