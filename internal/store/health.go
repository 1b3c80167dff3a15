package store

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
)

// kindHealthMarks is the partition of a project's health marks: one item
// per announced health event, keyed by endpoint, streak and type, whose
// conditional put is what makes the announcement happen once.
const kindHealthMarks = "WEHEALTH"

// HealthEvents is the outbox side of webhook.HealthEvents: a health event
// is written in one transaction with its mark (or, for a disable, with the
// endpoint's disabling update), so that it exists exactly once.
type HealthEvents struct{ s *Store }

var _ webhook.HealthEvents = HealthEvents{}

// HealthEvents returns the health events' adapter.
func (s *Store) HealthEvents() HealthEvents { return HealthEvents{s} }

type healthMarkItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Entity    string `dynamodbav:"entity"`
	EventID   string `dynamodbav:"event_id"`
	ExpiresAt int64  `dynamodbav:"expires_at"`
}

// errNotDue reports a cancelled announcement: already announced, or its
// precondition no longer holds.
var errNotDue = errors.New("store: health event already announced or no longer due")

func healthMarkKey(project, endpoint, streak, kind string) map[string]string {
	return key(scoped(project, kindHealthMarks), endpoint+"#"+streak+"#"+kind)
}

// Announce implements webhook.HealthEvents: the mark's conditional put,
// the check of the endpoint's streak and the event, in one transaction.
// Marks live as long as events (EventRetention), longer than a streak
// lasts before its endpoint is disabled.
func (h HealthEvents) Announce(ctx context.Context, a webhook.Announcement) (bool, error) {
	project := a.Event.ProjectID
	ek, ok := endpointKey(project, a.Endpoint)
	if !ok || a.Streak == "" {
		return false, nil
	}
	u, err := ids.Parse(ids.Event, a.Event.ID)
	if err != nil {
		return false, err
	}
	var p Plan
	w, err := put(h.s.Tables.Data, healthMarkItem{
		PK: scoped(project, kindHealthMarks), SK: healthMarkKey(project, a.Endpoint, a.Streak, a.Kind)[attrSK],
		Entity: "health_mark", EventID: a.Event.ID, ExpiresAt: ids.Time(u).Add(EventRetention).Unix(),
	}, "attribute_not_exists(pk)")
	if err != nil {
		return false, err
	}
	p.Add(w, errNotDue)
	p.Add(types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: aws.String(h.s.Tables.Data), Key: keyAV(ek), ConditionExpression: aws.String("failing_since = :streak AND enabled = :true"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":streak": str(a.Streak), ":true": &types.AttributeValueMemberBOOL{Value: true}},
	}}, errNotDue)
	return h.commitWithEvent(ctx, p, a)
}

// Recover implements webhook.HealthEvents: the success's update of the
// endpoint (what Endpoints.RecordSuccess writes), conditioned on its
// streak, the check that the streak's failing mark exists, and the event,
// in one transaction. The condition on the streak is what makes the
// recovery once: the update ends it.
func (h HealthEvents) Recover(ctx context.Context, a webhook.Announcement, at time.Time) (bool, error) {
	project := a.Event.ProjectID
	ek, ok := endpointKey(project, a.Endpoint)
	if !ok || a.Streak == "" {
		return false, nil
	}
	var p Plan
	p.Add(types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(h.s.Tables.Data), Key: keyAV(ek),
		UpdateExpression:          aws.String("SET last_success_at = :at, consecutive_failures = :zero REMOVE failing_since"),
		ConditionExpression:       aws.String("failing_since = :streak"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":at": str(ids.Timestamp(at)), ":zero": num(0), ":streak": str(a.Streak)},
	}}, errNotDue)
	p.Add(types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: aws.String(h.s.Tables.Data), Key: keyAV(healthMarkKey(project, a.Endpoint, a.Streak, domain.EventEndpointFailing)),
		ConditionExpression: aws.String("attribute_exists(pk)"),
	}}, errNotDue)
	return h.commitWithEvent(ctx, p, a)
}

// Disable implements webhook.HealthEvents: the endpoint's disabling
// update, conditioned on its being enabled, and the event, in one
// transaction.
func (h HealthEvents) Disable(ctx context.Context, a webhook.Announcement, reason string, at time.Time) (bool, error) {
	ek, ok := endpointKey(a.Event.ProjectID, a.Endpoint)
	if !ok {
		return false, nil
	}
	var p Plan
	p.Add(types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(h.s.Tables.Data), Key: keyAV(ek),
		UpdateExpression:    aws.String("SET enabled = :false, disabled_reason = :reason, disabled_at = :now, updated_at = :now"),
		ConditionExpression: aws.String("attribute_exists(pk) AND enabled = :true"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":false": &types.AttributeValueMemberBOOL{Value: false}, ":true": &types.AttributeValueMemberBOOL{Value: true},
			":reason": str(reason), ":now": str(ids.Timestamp(at)),
		},
	}}, errNotDue)
	return h.commitWithEvent(ctx, p, a)
}

func (h HealthEvents) commitWithEvent(ctx context.Context, p Plan, a webhook.Announcement) (bool, error) {
	if err := h.s.addEvent(&p, webhook.Outgoing{Event: &a.Event, About: a.Endpoint}); err != nil {
		return false, err
	}
	switch err := h.s.Commit(ctx, p); {
	case errors.Is(err, errNotDue):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}
