package store

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/ids"
)

// DeliveryRetention is how long deliveries and their attempt logs are kept.
const DeliveryRetention = 14 * 24 * time.Hour

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliveryRetrying  = "retrying"
	DeliveryDelivered = "delivered"
	DeliveryDead      = "dead"
)

const kindDeliveries = "DLV"

// DeliveryRecord is one event for one endpoint: created once by the
// dispatcher, moved on by the deliver function, kept 14 days.
type DeliveryRecord struct {
	PK         string `dynamodbav:"pk" json:"-"`
	SK         string `dynamodbav:"sk" json:"-"`
	GSI1PK     string `dynamodbav:"gsi1pk" json:"-"`
	GSI1SK     string `dynamodbav:"gsi1sk" json:"-"`
	GSI2PK     string `dynamodbav:"gsi2pk" json:"-"`
	GSI2SK     string `dynamodbav:"gsi2sk" json:"-"`
	Entity     string `dynamodbav:"entity" json:"-"`
	ProjectID  string `dynamodbav:"project_id" json:"-"`
	ID         string `dynamodbav:"id" json:"id"`
	EventID    string `dynamodbav:"event_id" json:"event_id"`
	EventType  string `dynamodbav:"event_type" json:"event_type"`
	EndpointID string `dynamodbav:"endpoint_id" json:"endpoint_id"`
	Status     string `dynamodbav:"status" json:"status"`
	// Round counts delivery rounds: 1, then +1 per redrive from the DLQ.
	Round int `dynamodbav:"round" json:"round"`
	// NextAttempt is the number, within the round, of the attempt to run.
	NextAttempt int `dynamodbav:"next_attempt" json:"-"`
	// Attempts counts every attempt made, manual ones included.
	Attempts       int    `dynamodbav:"attempts" json:"attempts_count"`
	NextAttemptAt  string `dynamodbav:"next_attempt_at,omitempty" json:"next_attempt_at,omitempty"`
	LastStatusCode int    `dynamodbav:"last_status_code,omitempty" json:"last_status_code,omitempty"`
	LastErrorClass string `dynamodbav:"last_error_class,omitempty" json:"last_error_class,omitempty"`
	DeadReason     string `dynamodbav:"dead_reason,omitempty" json:"dead_reason,omitempty"`
	CreatedAt      string `dynamodbav:"created_at" json:"created_at"`
	UpdatedAt      string `dynamodbav:"updated_at" json:"updated_at"`
	DeliveredAt    string `dynamodbav:"delivered_at,omitempty" json:"delivered_at,omitempty"`
	// Payload is the webhook body, fixed when the delivery is created.
	Payload        string `dynamodbav:"payload" json:"-"`
	ClaimToken     string `dynamodbav:"claim_token,omitempty" json:"-"`
	ClaimExpiresAt int64  `dynamodbav:"claim_expires_at,omitempty" json:"-"`
	ExpiresAt      int64  `dynamodbav:"expires_at" json:"-"`
}

func deliveryKeys(project, id string) (map[string]string, string, error) {
	u, err := ids.Parse(ids.Delivery, id)
	if err != nil {
		return nil, "", ErrNotFound
	}
	return key(scoped(project, kindDeliveries), u.String()), u.String(), nil
}

func statusPK(project, status string) string { return scoped(project, "DLV#S#"+status) }
func endpointDeliveriesPK(project, endpoint string) string {
	return scoped(project, "DLV#WE#"+endpoint)
}

// CreateDelivery stores a new pending delivery unless one with its id (one
// per event and endpoint) exists; it reports whether it created it.
func (s *Store) CreateDelivery(ctx context.Context, d DeliveryRecord) (bool, error) {
	k, sk, err := deliveryKeys(d.ProjectID, d.ID)
	if err != nil {
		return false, err
	}
	d.PK, d.SK, d.Entity = k[attrPK], k[attrSK], "delivery"
	d.GSI1PK, d.GSI1SK = statusPK(d.ProjectID, d.Status), sk
	d.GSI2PK, d.GSI2SK = endpointDeliveriesPK(d.ProjectID, d.EndpointID), sk
	item, err := attributevalue.MarshalMap(d)
	if err != nil {
		return false, err
	}
	_, err = s.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.Tables.Deliveries), Item: item, ConditionExpression: aws.String("attribute_not_exists(pk)")})
	var exists *types.ConditionalCheckFailedException
	if errors.As(err, &exists) {
		return false, nil
	}
	return err == nil, classify(err)
}

// GetDelivery returns a delivery of project, or NOT_FOUND.
func (s *Store) GetDelivery(ctx context.Context, project, id string) (DeliveryRecord, error) {
	k, _, err := deliveryKeys(project, id)
	if err != nil {
		return DeliveryRecord{}, err
	}
	var d DeliveryRecord
	err = s.get(ctx, s.Tables.Deliveries, k, &d)
	return d, err
}

// ClaimOutcome says what a claim found.
type ClaimOutcome int

// Claim outcomes.
const (
	// Claimed: the attempt is ours to run.
	Claimed ClaimOutcome = iota + 1
	// Stale: the message is obsolete (delivered, dead, a later attempt or
	// round, or gone); drop it.
	Stale
	// Early: the delivery has not reached this attempt yet (its previous
	// attempt is being recorded); try again shortly.
	Early
	// Busy: another worker holds the attempt.
	Busy
)

// Claim asks for one attempt of a delivery.
type Claim struct {
	Project, ID string
	Round       int
	Attempt     int
	// RedriveOfRound, when set, asks to start round RedriveOfRound+1 of a
	// dead delivery (a message redriven from the dead-letter queue).
	RedriveOfRound int
	Token          string
	Until          time.Time
}

// ClaimAttempt takes an attempt with one conditional UpdateItem that also
// returns the delivery (payload included), so a worker needs no other read.
// Only the holder of the claim may record the attempt's result.
func (s *Store) ClaimAttempt(ctx context.Context, c Claim) (DeliveryRecord, ClaimOutcome, error) {
	k, _, err := deliveryKeys(c.Project, c.ID)
	if err != nil {
		return DeliveryRecord{}, Stale, nil
	}
	now := s.now()
	values := map[string]types.AttributeValue{":token": str(c.Token), ":until": num(c.Until.UnixMilli())}
	names := map[string]string{"#status": "status", "#round": "round"}
	update := "SET claim_token = :token, claim_expires_at = :until"
	var cond string
	if c.RedriveOfRound > 0 {
		cond = "#status = :dead AND #round = :r"
		values[":dead"], values[":r"] = str(DeliveryDead), num(int64(c.RedriveOfRound))
		update += ", #status = :pending, #round = :next_round, next_attempt = :one, gsi1pk = :gsi1pk REMOVE dead_reason, next_attempt_at"
		values[":pending"], values[":next_round"], values[":one"] = str(DeliveryPending), num(int64(c.RedriveOfRound+1)), num(1)
		values[":gsi1pk"] = str(statusPK(c.Project, DeliveryPending))
	} else {
		cond = "#status IN (:pending, :retrying) AND #round = :r AND next_attempt = :n AND (attribute_not_exists(claim_expires_at) OR claim_expires_at < :now)"
		values[":pending"], values[":retrying"] = str(DeliveryPending), str(DeliveryRetrying)
		values[":r"], values[":n"], values[":now"] = num(int64(c.Round)), num(int64(c.Attempt)), num(now.UnixMilli())
	}
	out, err := s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.Tables.Deliveries), Key: keyAV(k),
		UpdateExpression: aws.String(update), ConditionExpression: aws.String("attribute_exists(pk) AND " + cond),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValues: types.ReturnValueAllNew, ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		return diagnose(failed.Item, c, now)
	}
	if err != nil {
		return DeliveryRecord{}, 0, classify(err)
	}
	var d DeliveryRecord
	err = attributevalue.UnmarshalMap(out.Attributes, &d)
	return d, Claimed, err
}

// diagnose explains a failed claim from the delivery as it is.
func diagnose(item map[string]types.AttributeValue, c Claim, now time.Time) (DeliveryRecord, ClaimOutcome, error) {
	if item == nil {
		return DeliveryRecord{}, Stale, nil
	}
	var d DeliveryRecord
	if err := attributevalue.UnmarshalMap(item, &d); err != nil {
		return DeliveryRecord{}, 0, err
	}
	switch {
	case d.Status == DeliveryDelivered, d.Status == DeliveryDead, c.RedriveOfRound > 0:
		return d, Stale, nil
	case d.Round != c.Round || d.NextAttempt > c.Attempt:
		return d, Stale, nil
	case d.NextAttempt < c.Attempt:
		return d, Early, nil
	case d.ClaimExpiresAt >= now.UnixMilli():
		return d, Busy, nil
	}
	return d, Stale, nil
}

// AttemptRecord is the log of one attempt, kept 14 days.
type AttemptRecord struct {
	PK         string `dynamodbav:"pk" json:"-"`
	SK         string `dynamodbav:"sk" json:"-"`
	Entity     string `dynamodbav:"entity" json:"-"`
	DeliveryID string `dynamodbav:"delivery_id" json:"delivery_id"`
	// Attempt is the attempt's number across rounds (X-Delivery-Attempt).
	Attempt int `dynamodbav:"attempt" json:"attempt"`
	Round   int `dynamodbav:"round" json:"round"`
	// Kind is scheduled, manual (a retry asked through the API) or
	// redirect (sent to an inspector).
	Kind          string `dynamodbav:"kind" json:"kind"`
	URL           string `dynamodbav:"url" json:"url"`
	RequestID     string `dynamodbav:"request_id" json:"request_id"`
	StatusCode    int    `dynamodbav:"status_code,omitempty" json:"status_code,omitempty"`
	ResponseBody  string `dynamodbav:"response_body,omitempty" json:"response_body,omitempty"`
	StartedAt     string `dynamodbav:"started_at" json:"started_at"`
	DurationMs    int64  `dynamodbav:"duration_ms" json:"duration_ms"`
	ErrorClass    string `dynamodbav:"error_class,omitempty" json:"error_class,omitempty"`
	Error         string `dynamodbav:"error,omitempty" json:"error,omitempty"`
	NextAttemptAt string `dynamodbav:"next_attempt_at,omitempty" json:"next_attempt_at,omitempty"`
	ExpiresAt     int64  `dynamodbav:"expires_at" json:"-"`
}

// Result is how a claimed attempt changes its delivery.
type Result struct {
	Status        string
	NextAttemptAt string
	DeadReason    string
	LastStatus    int
	LastClass     string
}

// FinishAttempt records a claimed attempt: the delivery's new state and
// the attempt log, in one transaction conditioned on the claim. It returns
// *FencedError if the claim was lost (the attempt ran twice; the other
// worker's record stands).
func (s *Store) FinishAttempt(ctx context.Context, d DeliveryRecord, token string, r Result, log AttemptRecord) error {
	k, sk, _ := deliveryKeys(d.ProjectID, d.ID)
	now := ids.Timestamp(s.now())
	values := map[string]types.AttributeValue{
		":token": str(token), ":status": str(r.Status), ":gsi1pk": str(statusPK(d.ProjectID, r.Status)),
		":next": num(int64(d.NextAttempt + 1)), ":one": num(1), ":now": str(now),
		":code": num(int64(r.LastStatus)), ":class": str(r.LastClass),
	}
	set := "SET #status = :status, gsi1pk = :gsi1pk, next_attempt = :next, updated_at = :now, last_status_code = :code, last_error_class = :class"
	remove := " REMOVE claim_token, claim_expires_at"
	switch {
	case r.NextAttemptAt != "":
		set += ", next_attempt_at = :at"
		values[":at"] = str(r.NextAttemptAt)
	default:
		remove += ", next_attempt_at"
	}
	if r.DeadReason != "" {
		set += ", dead_reason = :reason"
		values[":reason"] = str(r.DeadReason)
	}
	if r.Status == DeliveryDelivered {
		set += ", delivered_at = :now"
	}
	logItem, err := s.attemptPut(d.ProjectID, sk, log)
	if err != nil {
		return err
	}
	err = s.commit(ctx, Plan{Items: []types.TransactWriteItem{logItem}}, &types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(s.Tables.Deliveries), Key: keyAV(k),
		UpdateExpression:          aws.String(set + " ADD attempts :one" + remove),
		ConditionExpression:       aws.String("claim_token = :token"),
		ExpressionAttributeNames:  map[string]string{"#status": "status"},
		ExpressionAttributeValues: values,
	}})
	var g *guardFailed
	if errors.As(err, &g) {
		return ErrClaimLost
	}
	return err
}

// ErrClaimLost reports that an attempt's claim expired and another worker
// took the attempt over.
var ErrClaimLost = errors.New("store: the claim on the attempt was lost")

func (s *Store) attemptPut(project, deliverySK string, log AttemptRecord) (types.TransactWriteItem, error) {
	log.PK, log.SK, log.Entity = scoped(project, kindDeliveries+"#"+deliverySK), ids.NewULID(s.now()).String(), "attempt"
	log.ExpiresAt = s.now().Add(DeliveryRetention).Unix()
	return put(s.Tables.Deliveries, log, "")
}

// RecordExtraAttempt logs a manual or redirected attempt. A manual attempt
// that succeeded marks the delivery delivered (a scheduled attempt later
// finds it so and stops); nothing else about the delivery's round changes.
func (s *Store) RecordExtraAttempt(ctx context.Context, d DeliveryRecord, delivered bool, log AttemptRecord) error {
	k, sk, _ := deliveryKeys(d.ProjectID, d.ID)
	logItem, err := s.attemptPut(d.ProjectID, sk, log)
	if err != nil {
		return err
	}
	now := ids.Timestamp(s.now())
	u := &types.Update{
		TableName: aws.String(s.Tables.Deliveries), Key: keyAV(k), ConditionExpression: aws.String("attribute_exists(pk)"),
		UpdateExpression:          aws.String("SET updated_at = :now ADD attempts :one"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":now": str(now), ":one": num(1)},
	}
	if delivered && d.Status != DeliveryDelivered {
		u.UpdateExpression = aws.String("SET updated_at = :now, #status = :delivered, gsi1pk = :gsi1pk, delivered_at = :now ADD attempts :one REMOVE next_attempt_at, dead_reason")
		u.ExpressionAttributeNames = map[string]string{"#status": "status"}
		u.ExpressionAttributeValues[":delivered"] = str(DeliveryDelivered)
		u.ExpressionAttributeValues[":gsi1pk"] = str(statusPK(d.ProjectID, DeliveryDelivered))
	}
	return s.Commit(ctx, Plan{Items: []types.TransactWriteItem{logItem, {Update: u}}})
}

// Attempts returns a delivery's attempt log, oldest first.
func (s *Store) Attempts(ctx context.Context, project, id string) ([]AttemptRecord, error) {
	_, sk, err := deliveryKeys(project, id)
	if err != nil {
		return nil, err
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.Tables.Deliveries),
		KeyConditionExpression:    aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(scoped(project, kindDeliveries+"#"+sk))},
		ConsistentRead:            aws.Bool(true),
	}
	var out []AttemptRecord
	for {
		res, err := s.DB.Query(ctx, in)
		if err != nil {
			return nil, classify(err)
		}
		var page []AttemptRecord
		if err := attributevalue.UnmarshalListOfMaps(res.Items, &page); err != nil {
			return nil, err
		}
		out = append(out, page...)
		if res.LastEvaluatedKey == nil {
			return out, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// DeliveryFilter selects deliveries. Status and EndpointID are key
// conditions (GSI1 and GSI2); with both, the endpoint's index is read and
// the status filtered. EventType is always a filter.
type DeliveryFilter struct {
	Status     string
	EndpointID string
	EventType  string
	// Since and Until bound the delivery's event time (exclusive).
	Since, Until time.Time
}

// DeliveriesQuery lists a project's deliveries, newest first.
func DeliveriesQuery(project string, f DeliveryFilter) Query {
	q := Query{table: onDeliveries, PartitionAttr: attrPK, Partition: scoped(project, kindDeliveries), SortAttr: attrSK}
	var filters []string
	values := map[string]types.AttributeValue{}
	names := map[string]string{}
	switch {
	case f.EndpointID != "":
		q = Query{table: onDeliveries, Index: IndexGSI2, PartitionAttr: attrGSI2PK, Partition: endpointDeliveriesPK(project, f.EndpointID), SortAttr: attrGSI2SK}
		if f.Status != "" {
			filters = append(filters, "#status = :status")
			names["#status"], values[":status"] = "status", str(f.Status)
		}
	case f.Status != "":
		q = Query{table: onDeliveries, Index: IndexGSI1, PartitionAttr: attrGSI1PK, Partition: statusPK(project, f.Status), SortAttr: attrGSI1SK}
	}
	if f.EventType != "" {
		filters = append(filters, "event_type = :type")
		values[":type"] = str(f.EventType)
	}
	q.From, q.To = ulidRange(f.Since, f.Until)
	if len(filters) > 0 {
		q.Filter, q.Values = strings.Join(filters, " AND "), values
		if len(names) > 0 {
			q.Names = names
		}
	}
	return q
}
