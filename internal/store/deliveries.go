package store

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
)

const kindDeliveries = "DLV"

// deliveryItem is a webhook.Delivery in the deliveries table.
type deliveryItem struct {
	PK             string `dynamodbav:"pk"`
	SK             string `dynamodbav:"sk"`
	GSI1PK         string `dynamodbav:"gsi1pk,omitempty"`
	GSI1SK         string `dynamodbav:"gsi1sk,omitempty"`
	GSI2PK         string `dynamodbav:"gsi2pk,omitempty"`
	GSI2SK         string `dynamodbav:"gsi2sk,omitempty"`
	Entity         string `dynamodbav:"entity"`
	ProjectID      string `dynamodbav:"project_id"`
	ID             string `dynamodbav:"id"`
	EventID        string `dynamodbav:"event_id"`
	EventType      string `dynamodbav:"event_type"`
	EndpointID     string `dynamodbav:"endpoint_id"`
	Status         string `dynamodbav:"status"`
	Round          int    `dynamodbav:"round"`
	NextAttempt    int    `dynamodbav:"next_attempt"`
	Attempts       int    `dynamodbav:"attempts"`
	Throttles      int    `dynamodbav:"throttles,omitempty"`
	NextAttemptAt  string `dynamodbav:"next_attempt_at,omitempty"`
	LastStatusCode int    `dynamodbav:"last_status_code,omitempty"`
	LastErrorClass string `dynamodbav:"last_error_class,omitempty"`
	DeadReason     string `dynamodbav:"dead_reason,omitempty"`
	CreatedAt      string `dynamodbav:"created_at"`
	UpdatedAt      string `dynamodbav:"updated_at"`
	DeliveredAt    string `dynamodbav:"delivered_at,omitempty"`
	Payload        string `dynamodbav:"payload"`
	ClaimToken     string `dynamodbav:"claim_token,omitempty"`
	ClaimExpiresAt int64  `dynamodbav:"claim_expires_at,omitempty"` // epoch ms
	RecoveredAt    int64  `dynamodbav:"recovered_at,omitempty"`     // epoch ms
	RecoveryID     string `dynamodbav:"recovery_id,omitempty"`
	ExpiresAt      int64  `dynamodbav:"expires_at"`
}

// deliveryNotListed are the delivery attributes the list indexes (gsi1,
// gsi2) do not copy: the payload, read with one delivery, and the claim
// and TTL, which no list shows. Leaving them out makes a claim write the
// item alone and a status change write small index items.
var deliveryNotListed = map[string]bool{"payload": true, "claim_token": true, "claim_expires_at": true, "expires_at": true}

// DeliveryListAttributes are the non-key attributes the delivery list
// indexes must project (INCLUDE in template.yaml): every attribute of a
// delivery item but its keys and deliveryNotListed.
func DeliveryListAttributes() []string {
	var out []string
	t := reflect.TypeFor[deliveryItem]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("dynamodbav"), ",")
		if deliveryNotListed[name] || name == attrPK || name == attrSK || strings.HasPrefix(name, "gsi") {
			continue
		}
		out = append(out, name)
	}
	return out
}

func (it deliveryItem) delivery() webhook.Delivery {
	d := webhook.Delivery{
		ProjectID: it.ProjectID, ID: it.ID, EventID: it.EventID, EventType: it.EventType, EndpointID: it.EndpointID,
		Status: webhook.Status(it.Status), Round: it.Round, NextAttempt: it.NextAttempt, Attempts: it.Attempts, Throttles: it.Throttles,
		NextAttemptAt: it.NextAttemptAt, LastStatusCode: it.LastStatusCode, LastErrorClass: it.LastErrorClass, DeadReason: it.DeadReason,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, DeliveredAt: it.DeliveredAt, Payload: it.Payload, ClaimToken: it.ClaimToken,
	}
	if it.ClaimExpiresAt != 0 {
		d.ClaimExpiresAt = time.UnixMilli(it.ClaimExpiresAt)
	}
	if it.RecoveredAt != 0 {
		d.RecoveredAt = time.UnixMilli(it.RecoveredAt)
	}
	d.RecoveryID = it.RecoveryID
	return d
}

func deliveryKeys(project, id string) (map[string]string, string, bool) {
	u, err := ids.Parse(ids.Delivery, id)
	if err != nil {
		return nil, "", false
	}
	return key(scoped(project, kindDeliveries), u.String()), u.String(), true
}

func statusPK(project string, status webhook.Status) string {
	return scoped(project, "DLV#S#"+string(status))
}

func endpointDeliveriesPK(project, endpoint string) string {
	return scoped(project, "DLV#WE#"+endpoint)
}

// listKeys are the SET clauses that give a delivery created claimed its
// list index keys where it has none (an item that has them keeps them, and
// no index is written for them), with their values: gsi1's partition
// (its status's) only if status is not "" (the caller sets it itself).
func listKeys(d webhook.Delivery, sk string, status webhook.Status, values map[string]types.AttributeValue) []string {
	values[":lsk"], values[":gsi2pk"] = str(sk), str(endpointDeliveriesPK(d.ProjectID, d.EndpointID))
	set := []string{"gsi1sk = if_not_exists(gsi1sk, :lsk)", "gsi2pk = if_not_exists(gsi2pk, :gsi2pk)", "gsi2sk = if_not_exists(gsi2sk, :lsk)"}
	if status != "" {
		values[":lgsi1pk"] = str(statusPK(d.ProjectID, status))
		set = append(set, "gsi1pk = if_not_exists(gsi1pk, :lgsi1pk)")
	}
	return set
}

// Deliveries is the deliveries table: the DynamoDB side of
// webhook.Deliveries. Deliveries are keyed P#<prj>#DLV / <ulid>, indexed by
// status (gsi1) and endpoint (gsi2); attempt logs live under
// P#<prj>#DLV#<ulid>. Claims and results are conditional writes that
// return the item, so a worker never reads before it writes.
type Deliveries struct{ s *Store }

var _ webhook.Deliveries = Deliveries{}

// Deliveries returns the deliveries table's adapter.
func (s *Store) Deliveries() Deliveries { return Deliveries{s} }

// Create implements webhook.Deliveries. A delivery created claimed (the
// bulk lane's, its first attempt about to run) is stored without its list
// index keys: the write that records the attempt, or a later claim, adds
// them (listKeys). Its index entries are then written once, at their
// final status, instead of put pending and moved: 3 write units less per
// first-try webhook (the bench's price step).
func (r Deliveries) Create(ctx context.Context, d webhook.Delivery) (bool, error) {
	k, sk, ok := deliveryKeys(d.ProjectID, d.ID)
	if !ok {
		return false, webhook.ErrDeliveryNotFound
	}
	it := deliveryItem{
		PK: k[attrPK], SK: sk, Entity: "delivery", ProjectID: d.ProjectID, ID: d.ID, EventID: d.EventID, EventType: d.EventType, EndpointID: d.EndpointID,
		Status: string(d.Status), Round: d.Round, NextAttempt: d.NextAttempt, Attempts: d.Attempts, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
		Payload: d.Payload, ExpiresAt: r.s.now().Add(webhook.DeliveryRetention).Unix(),
		ClaimToken: d.ClaimToken,
	}
	if d.ClaimToken == "" {
		it.GSI1PK, it.GSI1SK, it.GSI2PK, it.GSI2SK = statusPK(d.ProjectID, d.Status), sk, endpointDeliveriesPK(d.ProjectID, d.EndpointID), sk
	}
	if !d.ClaimExpiresAt.IsZero() {
		it.ClaimExpiresAt = d.ClaimExpiresAt.UnixMilli()
	}
	item, err := attributevalue.MarshalMap(it)
	if err != nil {
		return false, err
	}
	_, err = r.s.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(r.s.Tables.Deliveries), Item: item, ConditionExpression: aws.String("attribute_not_exists(pk)")})
	var exists *types.ConditionalCheckFailedException
	if errors.As(err, &exists) {
		return false, nil
	}
	return err == nil, classify(err)
}

// Get implements webhook.Deliveries.
func (r Deliveries) Get(ctx context.Context, project, id string) (webhook.Delivery, error) {
	k, _, ok := deliveryKeys(project, id)
	if !ok {
		return webhook.Delivery{}, webhook.ErrDeliveryNotFound
	}
	return getAs(ctx, r.s, r.s.Tables.Deliveries, k, webhook.ErrDeliveryNotFound, deliveryItem.delivery)
}

// Claim implements webhook.Deliveries with one conditional UpdateItem that
// returns the delivery, payload included, whether it succeeds (ALL_NEW)
// or not (ALL_OLD). The condition is webhook.Claim.Allows; the contract
// test holds the two together.
func (r Deliveries) Claim(ctx context.Context, c webhook.Claim) (*webhook.Delivery, bool, error) {
	k, _, ok := deliveryKeys(c.Project, c.ID)
	if !ok {
		return nil, false, nil
	}
	values := map[string]types.AttributeValue{":token": str(c.Token), ":until": num(c.Until.UnixMilli())}
	names := map[string]string{"#status": "status", "#round": "round"}
	update := "SET claim_token = :token, claim_expires_at = :until"
	if c.Endpoint != "" {
		// A delivery stored claimed whose worker crashed takes its place
		// in the lists now; one that has it keeps it (if_not_exists: no
		// index write). gsi1's partition is its status's: a redrive sets
		// it below; a scheduled claim keeps the status, and a delivery
		// without list keys is one stored claimed, still pending.
		status := webhook.StatusPending
		if c.RedriveOfRound > 0 {
			status = ""
		}
		update += ", " + strings.Join(listKeys(webhook.Delivery{ProjectID: c.Project, EndpointID: c.Endpoint}, k[attrSK], status, values), ", ")
	}
	var cond string
	if c.RedriveOfRound > 0 {
		cond = "#status IN (:dead, :retrying) AND #round = :r AND (attribute_not_exists(claim_expires_at) OR claim_expires_at < :now)"
		values[":dead"], values[":retrying"] = str(string(webhook.StatusDead)), str(string(webhook.StatusRetrying))
		values[":r"], values[":now"] = num(int64(c.RedriveOfRound)), num(c.Now.UnixMilli())
		update += ", #status = :pending, #round = :next_round, next_attempt = :one, gsi1pk = :gsi1pk"
		remove := " REMOVE dead_reason, next_attempt_at, throttles"
		if c.Recovery != "" {
			update += ", recovered_at = :recovered_at, recovery_id = :recovery"
			values[":recovered_at"], values[":recovery"] = num(c.Now.UnixMilli()), str(c.Recovery)
		} else {
			remove += ", recovered_at, recovery_id"
		}
		update += remove
		values[":pending"], values[":next_round"], values[":one"] = str(string(webhook.StatusPending)), num(int64(c.RedriveOfRound+1)), num(1)
		values[":gsi1pk"] = str(statusPK(c.Project, webhook.StatusPending))
	} else {
		cond = "#status IN (:pending, :retrying) AND #round = :r AND next_attempt = :n AND (attribute_not_exists(claim_expires_at) OR claim_expires_at < :now)"
		values[":pending"], values[":retrying"] = str(string(webhook.StatusPending)), str(string(webhook.StatusRetrying))
		values[":r"], values[":n"], values[":now"] = num(int64(c.Round)), num(int64(c.Attempt)), num(c.Now.UnixMilli())
	}
	out, err := r.s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(r.s.Tables.Deliveries), Key: keyAV(k),
		UpdateExpression: aws.String(update), ConditionExpression: aws.String("attribute_exists(pk) AND " + cond),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValues: types.ReturnValueAllNew, ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		d, err := decodeAs(failed.Item, deliveryItem.delivery)
		return d, false, err
	}
	if err != nil {
		return nil, false, classify(err)
	}
	d, err := decodeAs(out.Attributes, deliveryItem.delivery)
	return d, err == nil, err
}

// attemptItem is a webhook.Attempt in the deliveries table.
type attemptItem struct {
	PK            string `dynamodbav:"pk"`
	SK            string `dynamodbav:"sk"`
	Entity        string `dynamodbav:"entity"`
	DeliveryID    string `dynamodbav:"delivery_id"`
	Attempt       int    `dynamodbav:"attempt"`
	Round         int    `dynamodbav:"round"`
	Kind          string `dynamodbav:"kind"`
	URL           string `dynamodbav:"url"`
	RequestID     string `dynamodbav:"request_id"`
	StatusCode    int    `dynamodbav:"status_code,omitempty"`
	ResponseBody  string `dynamodbav:"response_body,omitempty"`
	StartedAt     string `dynamodbav:"started_at"`
	DurationMs    int64  `dynamodbav:"duration_ms"`
	ErrorClass    string `dynamodbav:"error_class,omitempty"`
	Error         string `dynamodbav:"error,omitempty"`
	NextAttemptAt string `dynamodbav:"next_attempt_at,omitempty"`
	ExpiresAt     int64  `dynamodbav:"expires_at"`
	// GSI3PK indexes the attempt by the request id it sent (none without a
	// request): DeliveryOfRequest.
	GSI3PK string `dynamodbav:"gsi3pk,omitempty"`
}

// requestPK is gsi3's key of the attempt that sent request id rid.
func requestPK(project, rid string) string {
	return scoped(project, kindDeliveries+"#REQ#"+rid)
}

func (r Deliveries) attemptPut(project, deliverySK string, a webhook.Attempt) (types.TransactWriteItem, error) {
	now := r.s.now()
	return put(r.s.Tables.Deliveries, attemptItem{
		PK: scoped(project, kindDeliveries+"#"+deliverySK), SK: ids.NewULID(now).String(), Entity: "attempt",
		DeliveryID: a.DeliveryID, Attempt: a.Attempt, Round: a.Round, Kind: string(a.Kind), URL: a.URL, RequestID: a.RequestID,
		StatusCode: a.StatusCode, ResponseBody: a.ResponseBody, StartedAt: a.StartedAt, DurationMs: a.DurationMs,
		ErrorClass: a.ErrorClass, Error: a.Error, NextAttemptAt: a.NextAttemptAt, ExpiresAt: now.Add(webhook.DeliveryRetention).Unix(),
		GSI3PK: requestIndexKey(project, a.RequestID),
	}, "")
}

func requestIndexKey(project, rid string) string {
	if rid == "" {
		return ""
	}
	return requestPK(project, rid)
}

// DeliveryOfRequest returns the id of the delivery whose attempt sent
// request id rid ("" when none did in the retention window): one Query of
// gsi3, which holds only the attempts' keys, and the attempt's pk names
// its delivery.
func (r Deliveries) DeliveryOfRequest(ctx context.Context, project, rid string) (string, error) {
	res, err := r.s.DB.Query(ctx, &dynamodb.QueryInput{
		TableName: aws.String(r.s.Tables.Deliveries), IndexName: aws.String(IndexGSI3),
		KeyConditionExpression:    aws.String("gsi3pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(requestPK(project, rid))},
		Limit:                     aws.Int32(1),
	})
	if err != nil {
		return "", classify(err)
	}
	prefix := scoped(project, kindDeliveries+"#")
	for _, item := range res.Items {
		if pk, ok := item[attrPK].(*types.AttributeValueMemberS); ok && strings.HasPrefix(pk.Value, prefix) {
			return ids.Delivery + "_" + strings.TrimPrefix(pk.Value, prefix), nil
		}
	}
	return "", nil
}

// Finish implements webhook.Deliveries: the delivery's new state, the
// attempt log and the attempt's count in one transaction, conditioned on
// the claim token.
func (r Deliveries) Finish(ctx context.Context, d webhook.Delivery, token string, res webhook.Result, a webhook.Attempt) error {
	k, sk, ok := deliveryKeys(d.ProjectID, d.ID)
	if !ok {
		return webhook.ErrClaimLost
	}
	values := map[string]types.AttributeValue{
		":token": str(token), ":status": str(string(res.Status)), ":gsi1pk": str(statusPK(d.ProjectID, res.Status)),
		":one": num(1), ":now": str(ids.Timestamp(r.s.now())), ":code": num(int64(res.LastStatus)), ":class": str(res.LastClass),
	}
	set := []string{"#status = :status", "gsi1pk = :gsi1pk", "updated_at = :now", "last_status_code = :code", "last_error_class = :class"}
	set = append(set, listKeys(d, sk, "", values)...)
	remove := []string{"claim_token", "claim_expires_at"}
	if res.NextAttemptAt != "" {
		set, values[":at"] = append(set, "next_attempt_at = :at"), str(res.NextAttemptAt)
	} else {
		remove = append(remove, "next_attempt_at")
	}
	if res.DeadReason != "" {
		set, values[":reason"] = append(set, "dead_reason = :reason"), str(res.DeadReason)
	}
	if res.Status == webhook.StatusDelivered {
		set = append(set, "delivered_at = :now")
	}
	add := "attempts :one, next_attempt :one"
	if res.Throttled {
		add += ", throttles :one"
	}
	logItem, err := r.attemptPut(d.ProjectID, sk, a)
	if err != nil {
		return err
	}
	plan := Plan{Items: []types.TransactWriteItem{logItem, r.countAttempt(d, a, res.Status)}}
	if d.RecoveryID != "" && (res.Status == webhook.StatusDelivered || res.Status == webhook.StatusDead) {
		plan.Items = append(plan.Items, r.countOutcome(d, res.Status))
	}
	err = r.s.commit(ctx, plan, &types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(r.s.Tables.Deliveries), Key: keyAV(k),
		UpdateExpression:          aws.String("SET " + strings.Join(set, ", ") + " ADD " + add + " REMOVE " + strings.Join(remove, ", ")),
		ConditionExpression:       aws.String("claim_token = :token"),
		ExpressionAttributeNames:  map[string]string{"#status": "status"},
		ExpressionAttributeValues: values,
	}})
	var g *guardFailed
	if errors.As(err, &g) {
		return webhook.ErrClaimLost
	}
	return err
}

// RecordExtra implements webhook.Deliveries: the attempt log, the
// delivery's update and (but for a redirect) the attempt's count in one
// transaction.
func (r Deliveries) RecordExtra(ctx context.Context, d webhook.Delivery, delivered bool, a webhook.Attempt) error {
	k, sk, ok := deliveryKeys(d.ProjectID, d.ID)
	if !ok {
		return webhook.ErrDeliveryNotFound
	}
	logItem, err := r.attemptPut(d.ProjectID, sk, a)
	if err != nil {
		return err
	}
	u := &types.Update{
		TableName: aws.String(r.s.Tables.Deliveries), Key: keyAV(k), ConditionExpression: aws.String("attribute_exists(pk)"),
		UpdateExpression:          aws.String("SET updated_at = :now ADD attempts :one"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":now": str(ids.Timestamp(r.s.now())), ":one": num(1)},
	}
	if delivered {
		// A delivery delivered already keeps its first delivered_at.
		lk := listKeys(d, sk, "", u.ExpressionAttributeValues)
		u.UpdateExpression = aws.String("SET updated_at = :now, #status = :delivered, gsi1pk = :gsi1pk, delivered_at = if_not_exists(delivered_at, :now), " + strings.Join(lk, ", ") + " ADD attempts :one REMOVE next_attempt_at, dead_reason")
		u.ExpressionAttributeNames = map[string]string{"#status": "status"}
		u.ExpressionAttributeValues[":delivered"] = str(string(webhook.StatusDelivered))
		u.ExpressionAttributeValues[":gsi1pk"] = str(statusPK(d.ProjectID, webhook.StatusDelivered))
	} else {
		lk := listKeys(d, sk, d.Status, u.ExpressionAttributeValues)
		u.UpdateExpression = aws.String("SET updated_at = :now, " + strings.Join(lk, ", ") + " ADD attempts :one")
	}
	var p Plan
	p.Add(logItem, nil)
	p.Add(types.TransactWriteItem{Update: u}, webhook.ErrDeliveryNotFound)
	if a.Kind != webhook.KindRedirect {
		p.Add(r.countAttempt(d, a, webhook.MarkExtra(d, delivered, "").Status), nil)
	}
	return r.s.Commit(ctx, p)
}

// Attempts implements webhook.Deliveries.
func (r Deliveries) Attempts(ctx context.Context, project, id string) ([]webhook.Attempt, error) {
	_, sk, ok := deliveryKeys(project, id)
	if !ok {
		return nil, webhook.ErrDeliveryNotFound
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(r.s.Tables.Deliveries),
		KeyConditionExpression:    aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(scoped(project, kindDeliveries+"#"+sk))},
		ConsistentRead:            aws.Bool(true),
	}
	out := []webhook.Attempt{}
	err := r.s.each(ctx, in, func(item map[string]types.AttributeValue) error {
		var it attemptItem
		if err := attributevalue.UnmarshalMap(item, &it); err != nil {
			return err
		}
		out = append(out, webhook.Attempt{
			DeliveryID: it.DeliveryID, Attempt: it.Attempt, Round: it.Round, Kind: webhook.AttemptKind(it.Kind), URL: it.URL,
			RequestID: it.RequestID, StatusCode: it.StatusCode, ResponseBody: it.ResponseBody, StartedAt: it.StartedAt,
			DurationMs: it.DurationMs, ErrorClass: it.ErrorClass, Error: it.Error, NextAttemptAt: it.NextAttemptAt,
		})
		return nil
	})
	return out, err
}

// FailedPage implements webhook.Deliveries: one Query of the endpoint's
// deliveries (GSI2) created in [since, until], Limit limit, from the
// delivery after (ExclusiveStartKey), filtered to the failed ones and read
// without their payloads.
func (r Deliveries) FailedPage(ctx context.Context, project, endpointID string, since, until time.Time, after string, limit int) ([]webhook.Delivery, string, error) {
	from, to := ids.LowerBound(since.Truncate(time.Millisecond)), ids.UpperBound(until.Truncate(time.Millisecond))
	if from > to {
		return nil, "", nil
	}
	in := &dynamodb.QueryInput{
		TableName: aws.String(r.s.Tables.Deliveries), IndexName: aws.String(IndexGSI2),
		KeyConditionExpression:   aws.String("gsi2pk = :pk AND gsi2sk BETWEEN :from AND :to"),
		FilterExpression:         aws.String("#status IN (:retrying, :dead)"),
		ProjectionExpression:     aws.String("id, project_id, endpoint_id, event_id, event_type, #status, #round, next_attempt, attempts, created_at, recovered_at"),
		ExpressionAttributeNames: map[string]string{"#status": "status", "#round": "round"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(endpointDeliveriesPK(project, endpointID)), ":from": str(from), ":to": str(to),
			":retrying": str(string(webhook.StatusRetrying)), ":dead": str(string(webhook.StatusDead)),
		},
		Limit: aws.Int32(int32(limit)),
	}
	if after != "" {
		k, sk, ok := deliveryKeys(project, after)
		if !ok {
			return nil, "", webhook.ErrDeliveryNotFound
		}
		start := keyAV(k)
		start[attrGSI2PK], start[attrGSI2SK] = str(endpointDeliveriesPK(project, endpointID)), str(sk)
		in.ExclusiveStartKey = start
	}
	res, err := r.s.DB.Query(ctx, in)
	if err != nil {
		return nil, "", classify(err)
	}
	var out []webhook.Delivery
	for _, item := range res.Items {
		d, err := decodeAs(item, deliveryItem.delivery)
		if err != nil {
			return nil, "", err
		}
		out = append(out, *d)
	}
	last := ""
	if res.LastEvaluatedKey != nil {
		last = ids.Delivery + "_" + stringKey(res.LastEvaluatedKey)[attrSK]
	}
	return out, last, nil
}

// recoveryOutcomesKey is the item that counts how the rounds a recovery
// started ended (a counter per recovery, kept DeliveryRetention).
func recoveryOutcomesKey(project, recoveryID string) map[string]string {
	return key(scoped(project, "RCVOUT"), recoveryID)
}

// countOutcome is the write that counts the end (delivered or dead) of a
// round recovery d.RecoveryID started: an ADD to the recovery's counter,
// in the transaction that records the attempt, so a round is counted
// exactly once. Only a recovered round's last attempt carries it.
func (r Deliveries) countOutcome(d webhook.Delivery, left webhook.Status) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                aws.String(r.s.Tables.Deliveries),
		Key:                      keyAV(recoveryOutcomesKey(d.ProjectID, d.RecoveryID)),
		UpdateExpression:         aws.String("ADD #outcome :one SET entity = :entity, expires_at = if_not_exists(expires_at, :expires)"),
		ExpressionAttributeNames: map[string]string{"#outcome": string(left)},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one": num(1), ":entity": str("recovery_outcomes"), ":expires": num(r.s.now().Add(webhook.DeliveryRetention).Unix()),
		},
	}}
}

// RecoveryOutcomes implements webhook.Deliveries: one GetItem.
func (r Deliveries) RecoveryOutcomes(ctx context.Context, project, recoveryID string) (webhook.RecoveryOutcomes, error) {
	out, err := r.s.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.s.Tables.Deliveries), Key: keyAV(recoveryOutcomesKey(project, recoveryID)), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return webhook.RecoveryOutcomes{}, classify(err)
	}
	var it struct {
		Delivered int `dynamodbav:"delivered"`
		Dead      int `dynamodbav:"dead"`
	}
	if err := attributevalue.UnmarshalMap(out.Item, &it); err != nil {
		return webhook.RecoveryOutcomes{}, err
	}
	return webhook.RecoveryOutcomes{Delivered: it.Delivered, Dead: it.Dead}, nil
}

// lastFailureReads is how many of an endpoint's newest deliveries
// LastFailureClass reads (before its filter): one small Query.
const lastFailureReads = 25

// LastFailureClass returns the error class the deliverer recorded on the
// endpoint's newest failed (retrying or dead) delivery among its
// lastFailureReads newest: the cause an endpoint's health shows ("" when
// none is found). It reads only on GET and list, never on a delivery.
func (r Deliveries) LastFailureClass(ctx context.Context, project, endpointID string) (string, error) {
	res, err := r.s.DB.Query(ctx, &dynamodb.QueryInput{
		TableName: aws.String(r.s.Tables.Deliveries), IndexName: aws.String(IndexGSI2),
		KeyConditionExpression:   aws.String("gsi2pk = :pk"),
		FilterExpression:         aws.String("#status IN (:retrying, :dead) AND attribute_exists(last_error_class) AND last_error_class <> :none"),
		ProjectionExpression:     aws.String("last_error_class"),
		ExpressionAttributeNames: map[string]string{"#status": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(endpointDeliveriesPK(project, endpointID)), ":none": str(""),
			":retrying": str(string(webhook.StatusRetrying)), ":dead": str(string(webhook.StatusDead)),
		},
		ScanIndexForward: aws.Bool(false), Limit: aws.Int32(lastFailureReads),
	})
	if err != nil {
		return "", classify(err)
	}
	for _, item := range res.Items {
		if c, ok := item["last_error_class"].(*types.AttributeValueMemberS); ok {
			return c.Value, nil
		}
	}
	return "", nil
}

// DeliveryFilter selects deliveries. Status and EndpointID are key
// conditions (GSI1 and GSI2); with both, the endpoint's index is read and
// the status filtered. EventType is always a filter. EventID narrows the
// sort key of whichever index is read to the event's millisecond, then
// filters: every index sorts by the delivery's ULID, whose time is its
// event's (webhook.DeliveryID), so finding one event's deliveries reads
// only the deliveries of the events of that millisecond, however large the
// log is, and needs no index of its own.
type DeliveryFilter struct {
	Status     webhook.Status
	EndpointID string
	EventType  string
	EventID    string
	// DeliveryID narrows the sort key of whichever index is read to the
	// delivery's own (every index sorts by it): at most one item is read.
	DeliveryID string
	// none makes the filter match nothing (NarrowToRequest found no
	// delivery, or another than DeliveryID).
	none bool
	// Since and Until bound the delivery's event time (exclusive).
	Since, Until time.Time
}

// DeliveriesQuery lists a project's deliveries, newest first.
func DeliveriesQuery(project string, f DeliveryFilter) List[webhook.Delivery] {
	q := Query{table: onDeliveries, PartitionAttr: attrPK, Partition: scoped(project, kindDeliveries), SortAttr: attrSK}
	var filters []string
	values := map[string]types.AttributeValue{}
	names := map[string]string{}
	switch {
	case f.EndpointID != "":
		q = Query{table: onDeliveries, Index: IndexGSI2, PartitionAttr: attrGSI2PK, Partition: endpointDeliveriesPK(project, f.EndpointID), SortAttr: attrGSI2SK}
		if f.Status != "" {
			filters = append(filters, "#status = :status")
			names["#status"], values[":status"] = "status", str(string(f.Status))
		}
	case f.Status != "":
		q = Query{table: onDeliveries, Index: IndexGSI1, PartitionAttr: attrGSI1PK, Partition: statusPK(project, f.Status), SortAttr: attrGSI1SK}
	}
	if f.EventType != "" {
		filters = append(filters, "event_type = :type")
		values[":type"] = str(f.EventType)
	}
	q.From, q.To = ulidRange(f.Since, f.Until)
	if f.EventID != "" {
		q.From, q.To = eventRange(q.From, q.To, f.EventID)
		filters = append(filters, "event_id = :event")
		values[":event"] = str(f.EventID)
	}
	if f.DeliveryID != "" {
		q.From, q.To = deliveryRange(q.From, q.To, f.DeliveryID)
	}
	if f.none {
		q.From, q.To = "~", "0"
	}
	if len(filters) > 0 {
		q.Filter, q.Values = strings.Join(filters, " AND "), values
		if len(names) > 0 {
			q.Names = names
		}
	}
	return listOf(q, deliveryItem.delivery)
}

// NarrowToRequest narrows f to the delivery whose attempt sent request id
// rid (the X-Botix-Request-Id header a receiver logged): DeliveryOfRequest,
// then the list reads that one delivery's key as delivery_id does, with
// every other filter. No such delivery, or one other than f.DeliveryID,
// leaves a filter that matches nothing.
func (r Deliveries) NarrowToRequest(ctx context.Context, project string, f *DeliveryFilter, rid string) error {
	id, err := r.DeliveryOfRequest(ctx, project, rid)
	if err != nil {
		return err
	}
	if id == "" || (f.DeliveryID != "" && f.DeliveryID != id) {
		f.none = true
		return nil
	}
	f.DeliveryID = id
	return nil
}

// deliveryRange narrows the sort key range [from, to] ("" unbounded) to
// the one delivery's key; a malformed id, or one outside the range, gives
// an empty range.
func deliveryRange(from, to, deliveryID string) (string, string) {
	_, sk, ok := deliveryKeys("", deliveryID)
	if !ok || (from != "" && sk < from) || (to != "" && sk > to) {
		return "~", "0"
	}
	return sk, sk
}

// eventRange narrows the sort key range [from, to] ("" unbounded) to the
// millisecond of the event's ULID, where all its deliveries sort. A
// malformed event id gives an empty range: it has no deliveries.
func eventRange(from, to, eventID string) (string, string) {
	u, err := ids.Parse(ids.Event, eventID)
	if err != nil {
		return "~", "0"
	}
	t := ids.Time(u)
	lo, hi := ids.LowerBound(t), ids.UpperBound(t)
	if from == "" || lo > from {
		from = lo
	}
	if to == "" || hi < to {
		to = hi
	}
	return from, to
}
