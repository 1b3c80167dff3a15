package store

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/webhook"
)

// kindRetryCooldown keys the item that holds a delivery's manual-retry
// cooldown: P#<project>#DRETRY, sorted by delivery id.
const kindRetryCooldown = "DRETRY"

// retryCooldownItem says until when (epoch ms) a delivery may not be
// retried by hand again; it expires an hour after that.
type retryCooldownItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Entity    string `dynamodbav:"entity"`
	Until     int64  `dynamodbav:"until"`
	ExpiresAt int64  `dynamodbav:"expires_at"`
}

// RetryCooldown returns how long after now the delivery's manual-retry
// cooldown still runs (0: a manual retry may go now).
func (s *Store) RetryCooldown(ctx context.Context, project, delivery string, now time.Time) (time.Duration, error) {
	var it retryCooldownItem
	err := s.get(ctx, s.Tables.Data, key(scoped(project, kindRetryCooldown), delivery), &it)
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return max(time.UnixMilli(it.Until).Sub(now), 0), nil
}

// AddRetryCooldown plans the cooldown a manual retry of the delivery
// starts at now (webhook.ManualRetryCooldown). Its write is conditioned
// on no cooldown running, so that of two retries racing past
// RetryCooldown one commits and the other gets onConflict.
func (s *Store) AddRetryCooldown(p *Plan, project, delivery string, now time.Time, onConflict error) error {
	until := now.Add(webhook.ManualRetryCooldown)
	w, err := put(s.Tables.Data, retryCooldownItem{
		PK: scoped(project, kindRetryCooldown), SK: delivery, Entity: "retry_cooldown",
		Until: until.UnixMilli(), ExpiresAt: until.Add(time.Hour).Unix(),
	}, "attribute_not_exists(pk) OR #until <= :now")
	if err != nil {
		return err
	}
	w.Put.ExpressionAttributeNames = map[string]string{"#until": "until"}
	w.Put.ExpressionAttributeValues = map[string]types.AttributeValue{":now": num(now.UnixMilli())}
	p.Add(w, onConflict)
	return nil
}
