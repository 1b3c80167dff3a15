package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
)

// recoveryItem is an endpoint's latest recovery in the data table, keyed
// P#<prj>#RCV / <endpoint id>: one item per endpoint, so that "one running
// recovery per endpoint" is the condition of a single write.
type recoveryItem struct {
	PK         string `dynamodbav:"pk"`
	SK         string `dynamodbav:"sk"`
	Entity     string `dynamodbav:"entity"`
	ID         string `dynamodbav:"id"`
	ProjectID  string `dynamodbav:"project_id"`
	EndpointID string `dynamodbav:"endpoint_id"`
	Since      string `dynamodbav:"since"`
	Until      string `dynamodbav:"until"`
	Status     string `dynamodbav:"status"`
	Queued     int    `dynamodbav:"queued"`
	Skipped    int    `dynamodbav:"skipped"`
	After      string `dynamodbav:"after,omitempty"`
	NextStepAt string `dynamodbav:"next_step_at,omitempty"`
	Version    int    `dynamodbav:"version"`
	CreatedAt  string `dynamodbav:"created_at"`
	UpdatedAt  string `dynamodbav:"updated_at"`
	ExpiresAt  int64  `dynamodbav:"expires_at"`
}

func (it recoveryItem) recovery() webhook.Recovery {
	parse := func(s string) time.Time {
		if s == "" {
			return time.Time{}
		}
		t, _ := time.Parse(time.RFC3339Nano, s)
		return t
	}
	return webhook.Recovery{
		ID: it.ID, ProjectID: it.ProjectID, EndpointID: it.EndpointID, Since: parse(it.Since), Until: parse(it.Until),
		Status: webhook.RecoveryStatus(it.Status), Queued: it.Queued, Skipped: it.Skipped, After: it.After, Version: it.Version,
		NextStepAt: parse(it.NextStepAt), CreatedAt: parse(it.CreatedAt), UpdatedAt: parse(it.UpdatedAt),
	}
}

func recoveryKey(project, endpointID string) map[string]string {
	return key(scoped(project, "RCV"), endpointID)
}

// Recoveries is the DynamoDB side of webhook.Recoveries.
type Recoveries struct{ s *Store }

var _ webhook.Recoveries = Recoveries{}

// Recoveries returns the recoveries' adapter.
func (s *Store) Recoveries() Recoveries { return Recoveries{s} }

// Current implements webhook.Recoveries with a consistent GetItem.
func (r Recoveries) Current(ctx context.Context, project, endpointID string) (*webhook.Recovery, error) {
	rec, err := getAs(ctx, r.s, r.s.Tables.Data, recoveryKey(project, endpointID), ErrNotFound, recoveryItem.recovery)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

// errRecoveryVersion marks the recovery item's condition in a Save.
var errRecoveryVersion = errors.New("store: the recovery's version moved")

// Save implements webhook.Recoveries: one TransactWriteItems of the
// recovery item, conditioned on its version, and of its step (a
// delivery_request INSERT the stream carries to the dispatcher: the
// redrives and the continuation) unless rec.Step(msgs) is nil. The
// recovery's move, the redrives it queues and the continuation of its next
// step are written together or not at all.
func (r Recoveries) Save(ctx context.Context, rec webhook.Recovery, msgs []webhook.Message) error {
	k := recoveryKey(rec.ProjectID, rec.EndpointID)
	it := recoveryItem{
		PK: k[attrPK], SK: k[attrSK], Entity: "recovery", ID: rec.ID, ProjectID: rec.ProjectID, EndpointID: rec.EndpointID,
		Since: ids.Timestamp(rec.Since), Until: ids.Timestamp(rec.Until), Status: string(rec.Status), Queued: rec.Queued,
		Skipped: rec.Skipped, After: rec.After, Version: rec.Version, CreatedAt: ids.Timestamp(rec.CreatedAt),
		UpdatedAt: ids.Timestamp(rec.UpdatedAt), ExpiresAt: rec.UpdatedAt.Add(webhook.DeliveryRetention).Unix(),
	}
	if !rec.NextStepAt.IsZero() {
		it.NextStepAt = ids.Timestamp(rec.NextStepAt)
	}
	w, err := put(r.s.Tables.Data, it, "attribute_not_exists(pk)")
	if err != nil {
		return err
	}
	if rec.Version > 1 {
		w.Put.ConditionExpression = aws.String("version = :prev")
		w.Put.ExpressionAttributeValues = map[string]types.AttributeValue{":prev": num(int64(rec.Version - 1))}
	}
	var p Plan
	p.Add(w, errRecoveryVersion)
	if req := rec.Step(msgs); req != nil {
		body, err := json.Marshal(req.Messages)
		if err != nil {
			return err
		}
		u := ids.NewULID(rec.UpdatedAt)
		step := deliveryRequestItem{
			PK: scoped(rec.ProjectID, "DREQ"), SK: u.String(), Entity: EntityDeliveryRequest, ProjectID: rec.ProjectID, ID: rec.ID,
			Kind: string(webhook.RequestRecover), EndpointID: rec.EndpointID, Messages: string(body),
			CreatedAt: ids.Timestamp(rec.UpdatedAt), ExpiresAt: rec.UpdatedAt.Add(24 * time.Hour).Unix(),
		}
		if req.Continuation != nil {
			k, err := json.Marshal(req.Continuation)
			if err != nil {
				return err
			}
			step.Continuation = string(k)
		}
		w, err := put(r.s.Tables.Data, step, "attribute_not_exists(pk)")
		if err != nil {
			return err
		}
		p.Add(w, nil)
	}
	err = r.s.Commit(ctx, p)
	if errors.Is(err, errRecoveryVersion) {
		return webhook.ErrRecoveryRace
	}
	return err
}
