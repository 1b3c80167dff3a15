package store

import (
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
)

type runItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Entity    string `dynamodbav:"entity"`
	ProjectID string `dynamodbav:"project_id"`
	domain.ScenarioRun
	// Variables is the run's variables as JSON text.
	Variables string `dynamodbav:"variables"`
}

// AddScenarioRun adds the write of a started run to the plan.
func (s *Store) AddScenarioRun(p *Plan, project string, run domain.ScenarioRun) error {
	u, err := ids.Parse(ids.Run, run.ID)
	if err != nil {
		return err
	}
	w, err := put(s.Tables.Data, runItem{PK: scoped(project, "RUN"), SK: u.String(), Entity: "scenario_run", ProjectID: project, ScenarioRun: run, Variables: string(run.Variables)}, "attribute_not_exists(pk)")
	if err != nil {
		return err
	}
	p.Add(w, nil)
	return nil
}
