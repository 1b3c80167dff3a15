package store

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
)

// EntityDeliveryRequest is the entity of delivery requests; the
// dispatcher's stream filter selects their INSERTs as it does events'.
const EntityDeliveryRequest = "delivery_request"

type deliveryRequestItem struct {
	PK         string `dynamodbav:"pk"`
	SK         string `dynamodbav:"sk"`
	Entity     string `dynamodbav:"entity"`
	ProjectID  string `dynamodbav:"project_id"`
	ID         string `dynamodbav:"id"`
	DeliveryID string `dynamodbav:"delivery_id"`
	Kind       string `dynamodbav:"kind"`
	TargetURL  string `dynamodbav:"target_url,omitempty"`
	EndpointID string `dynamodbav:"endpoint_id,omitempty"`
	// Messages is a recovery step's redrives (JSON of []webhook.Message).
	Messages string `dynamodbav:"messages,omitempty"`
	// Continuation asks for a running recovery's next step (JSON of
	// webhook.Continuation).
	Continuation string `dynamodbav:"continuation,omitempty"`
	CreatedAt    string `dynamodbav:"created_at"`
	ExpiresAt    int64  `dynamodbav:"expires_at"`
	// Trace is the traceparent of the request that committed it (traced).
	Trace string `dynamodbav:"traceparent,omitempty"`
}

// AddDeliveryRequest plans a retry or redirect request (its id is filled
// in: dreq_<ulid>; a recovery's steps are written by Recoveries.Save).
// Kept a day: by then the stream has carried it to the queue.
func (s *Store) AddDeliveryRequest(p *Plan, r *webhook.DeliveryRequest, now time.Time) error {
	u := ids.NewULID(now)
	it := deliveryRequestItem{
		PK: scoped(r.ProjectID, "DREQ"), SK: u.String(), Entity: EntityDeliveryRequest, ProjectID: r.ProjectID, ID: "dreq_" + u.String(),
		DeliveryID: r.DeliveryID, Kind: string(r.Kind), TargetURL: r.TargetURL, EndpointID: r.EndpointID,
		CreatedAt: ids.Timestamp(now), ExpiresAt: now.Add(24 * time.Hour).Unix(),
	}
	r.ID = it.ID
	w, err := put(s.Tables.Data, it, "attribute_not_exists(pk)")
	if err != nil {
		return err
	}
	p.Add(w, nil)
	return nil
}

// DecodeOutgoing reads an item of the data table's stream (its new image)
// as the dispatcher's input: an event or a delivery request. ok is false
// for other entities, which are not the dispatcher's (the template's
// stream filter keeps them out).
func DecodeOutgoing(image map[string]types.AttributeValue) (out webhook.Outgoing, ok bool, err error) {
	var kind struct {
		Entity string `dynamodbav:"entity"`
	}
	if err := attributevalue.UnmarshalMap(image, &kind); err != nil {
		return out, false, err
	}
	switch kind.Entity {
	case EntityEvent:
		var it eventItem
		if err := attributevalue.UnmarshalMap(image, &it); err != nil {
			return out, false, err
		}
		ev := it.event()
		return webhook.Outgoing{Event: &ev, TargetEndpoint: it.TargetEndpoint, About: it.AboutEndpoint, Trace: it.Trace}, true, nil
	case EntityDeliveryRequest:
		var it deliveryRequestItem
		if err := attributevalue.UnmarshalMap(image, &it); err != nil {
			return out, false, err
		}
		r := &webhook.DeliveryRequest{ID: it.ID, ProjectID: it.ProjectID, DeliveryID: it.DeliveryID,
			Kind: webhook.RequestKind(it.Kind), TargetURL: it.TargetURL, EndpointID: it.EndpointID}
		if r.Kind == webhook.RequestRecover {
			err = json.Unmarshal([]byte(it.Messages), &r.Messages)
			if err == nil && it.Continuation != "" {
				err = json.Unmarshal([]byte(it.Continuation), &r.Continuation)
			}
			if err != nil || it.ProjectID == "" || it.EndpointID == "" {
				return out, false, fmt.Errorf("store: recovery step %q without project, endpoint or messages", it.ID)
			}
			return webhook.Outgoing{Request: r, Trace: it.Trace}, true, nil
		}
		if it.ProjectID == "" || it.DeliveryID == "" {
			return out, false, fmt.Errorf("store: delivery request %q without project or delivery", it.ID)
		}
		return webhook.Outgoing{Request: r, Trace: it.Trace}, true, nil
	}
	return out, false, nil
}
