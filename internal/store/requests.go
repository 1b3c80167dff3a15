package store

import (
	"time"

	"github.com/botix/public-api/internal/ids"
)

// EntityDeliveryRequest is the entity of delivery requests; the
// dispatcher's stream filter selects their INSERTs as it does events'.
const EntityDeliveryRequest = "delivery_request"

// Delivery request kinds.
const (
	RequestRetry    = "retry"
	RequestRedirect = "redirect"
)

// DeliveryRequest asks for one extra attempt of a delivery: a manual retry
// or a redirect to an inspector. Written in the API's transaction, it
// reaches the delivery queue through the table's stream, so an accepted
// request is never lost to a crash.
type DeliveryRequest struct {
	PK         string `dynamodbav:"pk"`
	SK         string `dynamodbav:"sk"`
	Entity     string `dynamodbav:"entity"`
	ProjectID  string `dynamodbav:"project_id"`
	ID         string `dynamodbav:"id"`
	DeliveryID string `dynamodbav:"delivery_id"`
	Kind       string `dynamodbav:"kind"`
	// TargetURL replaces the endpoint's URL (redirects).
	TargetURL string `dynamodbav:"target_url,omitempty"`
	CreatedAt string `dynamodbav:"created_at"`
	ExpiresAt int64  `dynamodbav:"expires_at"`
}

// AddDeliveryRequest plans a delivery request.
func (s *Store) AddDeliveryRequest(p *Plan, r DeliveryRequest, now time.Time) error {
	u := ids.NewULID(now)
	r.PK, r.SK, r.Entity = scoped(r.ProjectID, "DREQ"), u.String(), EntityDeliveryRequest
	r.ID = "dreq_" + u.String()
	r.CreatedAt, r.ExpiresAt = ids.Timestamp(now), now.Add(24*time.Hour).Unix()
	w, err := put(s.Tables.Data, r, "attribute_not_exists(pk)")
	if err != nil {
		return err
	}
	p.Add(w, nil)
	return nil
}
