package store

import (
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
)

const kindMessages = "MSG"

type messageItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	GSI1PK    string `dynamodbav:"gsi1pk"`
	GSI1SK    string `dynamodbav:"gsi1sk"`
	Entity    string `dynamodbav:"entity"`
	ProjectID string `dynamodbav:"project_id"`
	domain.Message
}

// AddMessage adds the write of message m to the plan. The message is
// listed per project (pk) and per contact (gsi1).
func (s *Store) AddMessage(p *Plan, project string, m domain.Message) error {
	u, err := ids.Parse(ids.Message, m.ID)
	if err != nil {
		return err
	}
	w, err := put(s.Tables.Data, messageItem{
		PK: scoped(project, kindMessages), SK: u.String(), GSI1PK: contactMessagesPK(project, m.ContactID), GSI1SK: u.String(),
		Entity: "message", ProjectID: project, Message: m,
	}, "attribute_not_exists(pk)")
	if err != nil {
		return err
	}
	p.Add(w, nil)
	return nil
}
