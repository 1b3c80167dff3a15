package store

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/webhook"
)

const kindEndpoints = "WE"

type secretItem struct {
	Value     string `dynamodbav:"value"`
	CreatedAt string `dynamodbav:"created_at"`
	ExpiresAt int64  `dynamodbav:"expires_at,omitempty"` // epoch s
}

// endpointItem is a webhook.Endpoint in the data table.
type endpointItem struct {
	PK                  string    `dynamodbav:"pk"`
	SK                  string    `dynamodbav:"sk"`
	Entity              string    `dynamodbav:"entity"`
	ProjectID           string    `dynamodbav:"project_id"`
	ID                  string    `dynamodbav:"id"`
	URL                 string    `dynamodbav:"url"`
	Events              []string  `dynamodbav:"events"`
	Description         string    `dynamodbav:"description,omitempty"`
	Enabled             bool      `dynamodbav:"enabled"`
	DisabledReason      string    `dynamodbav:"disabled_reason,omitempty"`
	DisabledAt          string    `dynamodbav:"disabled_at,omitempty"`
	CreatedAt           string    `dynamodbav:"created_at"`
	UpdatedAt           string    `dynamodbav:"updated_at"`
	LastSuccessAt       string    `dynamodbav:"last_success_at,omitempty"`
	LastFailureAt       string    `dynamodbav:"last_failure_at,omitempty"`
	FailingSince        string    `dynamodbav:"failing_since,omitempty"`
	ConsecutiveFailures int       `dynamodbav:"consecutive_failures"`
	RateLimit           int       `dynamodbav:"rate_limit,omitempty"`
	MaxConcurrency      int       `dynamodbav:"max_concurrency,omitempty"`
	Flow                *flowItem `dynamodbav:"flow,omitempty"`
	// Leases are the concurrency slots in use ("3" -> epoch ms); absent
	// until the first is taken.
	Leases map[string]int64 `dynamodbav:"flow_leases,omitempty"`
	// Taken is the last number of the endpoint's virtual queue, a counter
	// of its own (ADD), outside flow, which its writes replace whole.
	Taken   int64        `dynamodbav:"flow_taken,omitempty"`
	Secrets []secretItem `dynamodbav:"secrets"`
}

// flowItem is a webhook.Flow, written whole on condition of its version.
type flowItem struct {
	Version     int64   `dynamodbav:"v"`
	N0          float64 `dynamodbav:"n0,omitempty"`
	T0          int64   `dynamodbav:"t0,omitempty"`
	R0          float64 `dynamodbav:"r0,omitempty"`
	Ceiling     float64 `dynamodbav:"ceiling,omitempty"`
	DecreasedAt int64   `dynamodbav:"decreased_at,omitempty"`
	PausedUntil int64   `dynamodbav:"paused_until,omitempty"`
	Cause       string  `dynamodbav:"cause,omitempty"`
}

func (it endpointItem) endpoint() webhook.Endpoint {
	ep := webhook.Endpoint{
		ID: it.ID, URL: it.URL, Events: it.Events, Description: it.Description, Enabled: it.Enabled, DisabledReason: it.DisabledReason, DisabledAt: it.DisabledAt,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, LastSuccessAt: it.LastSuccessAt, LastFailureAt: it.LastFailureAt,
		FailingSince: it.FailingSince, ConsecutiveFailures: it.ConsecutiveFailures, RateLimit: it.RateLimit, MaxConcurrency: it.MaxConcurrency,
	}
	if f := it.Flow; f != nil {
		ep.Flow = webhook.Flow(*f)
	}
	ep.Taken = it.Taken
	if it.Leases != nil {
		ep.Leases = webhook.Leases{}
		for k, v := range it.Leases {
			if slot, err := strconv.Atoi(k); err == nil {
				ep.Leases[slot] = v
			}
		}
	}
	// As of the read: what the receiver asked for, while it lasts.
	ep.Throttle = ep.View(time.Now())
	ep.Secrets = secretsOf(it.Secrets)
	return ep
}

func secretsOf(items []secretItem) []webhook.Secret {
	out := make([]webhook.Secret, len(items))
	for i, s := range items {
		out[i] = webhook.Secret{Value: s.Value, CreatedAt: s.CreatedAt}
		if s.ExpiresAt != 0 {
			out[i].ExpiresAt = time.Unix(s.ExpiresAt, 0)
		}
	}
	return out
}

func secretItems(secrets []webhook.Secret) []secretItem {
	out := make([]secretItem, len(secrets))
	for i, s := range secrets {
		out[i] = secretItem{Value: s.Value, CreatedAt: s.CreatedAt}
		if !s.ExpiresAt.IsZero() {
			out[i].ExpiresAt = s.ExpiresAt.Unix()
		}
	}
	return out
}

var errEndpointLimit = apierr.New(apierr.LimitExceeded, "a project has at most %d webhook endpoints; delete one first", webhook.MaxEndpointsPerProject)

func endpointKey(project, id string) (map[string]string, bool) {
	u, err := ids.Parse(ids.WebhookEndpoint, id)
	if err != nil {
		return nil, false
	}
	return key(scoped(project, kindEndpoints), u.String()), true
}

// AddEndpoint plans the creation of an endpoint, within the per-project
// limit (LIMIT_EXCEEDED), counted in the same transaction.
func (s *Store) AddEndpoint(p *Plan, project string, ep webhook.Endpoint) error {
	k, ok := endpointKey(project, ep.ID)
	if !ok {
		return webhook.ErrEndpointNotFound
	}
	w, err := put(s.Tables.Data, endpointItem{
		PK: k[attrPK], SK: k[attrSK], Entity: "webhook_endpoint", ProjectID: project, ID: ep.ID, URL: ep.URL, Events: ep.Events,
		Description: ep.Description, Enabled: ep.Enabled, CreatedAt: ep.CreatedAt, UpdatedAt: ep.UpdatedAt, Secrets: secretItems(ep.Secrets),
		RateLimit: ep.RateLimit, MaxConcurrency: ep.MaxConcurrency,
	}, "attribute_not_exists(pk)")
	if err != nil {
		return err
	}
	p.Add(w, nil)
	p.Add(s.endpointCount(project, 1), errEndpointLimit)
	return nil
}

func (s *Store) endpointCount(project string, delta int64) types.TransactWriteItem {
	u := &types.Update{
		TableName:                 aws.String(s.Tables.Data),
		Key:                       keyAV(key(scoped(project, kindCounters), "webhook_endpoints")),
		UpdateExpression:          aws.String("ADD #n :d SET #entity = :entity"),
		ExpressionAttributeNames:  map[string]string{"#n": "total", "#entity": "entity"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":d": num(delta), ":entity": str("counter")},
	}
	if delta > 0 {
		u.ConditionExpression = aws.String("attribute_not_exists(#n) OR #n < :max")
		u.ExpressionAttributeValues[":max"] = num(webhook.MaxEndpointsPerProject)
	}
	return types.TransactWriteItem{Update: u}
}

// EndpointPatch is a change to an endpoint; nil fields are unchanged.
type EndpointPatch struct {
	URL         *string
	Events      []string
	Description *string
	Enabled     *bool
	Secrets     []webhook.Secret
	// RateLimit and MaxConcurrency: Set with a nil Value removes the limit.
	RateLimit, MaxConcurrency webhook.OptionalInt
	UpdatedAt                 string
}

// UpdateEndpoint plans a patch (NOT_FOUND if the endpoint is gone when it
// commits). Enabling an endpoint clears its disabled reason and its
// failure streak. Health fields written by the deliver function are not
// touched otherwise.
func (s *Store) UpdateEndpoint(p *Plan, project, id string, patch EndpointPatch) error {
	k, ok := endpointKey(project, id)
	if !ok {
		return webhook.ErrEndpointNotFound
	}
	set := []string{"updated_at = :updated_at"}
	values := map[string]types.AttributeValue{":updated_at": str(patch.UpdatedAt)}
	names := map[string]string{}
	var remove []string
	for _, f := range []struct {
		attr string
		v    any
		ok   bool
	}{
		{"url", derefS(patch.URL), patch.URL != nil},
		{"events", patch.Events, patch.Events != nil},
		{"description", derefS(patch.Description), patch.Description != nil},
		{"enabled", patch.Enabled != nil && *patch.Enabled, patch.Enabled != nil},
		{"secrets", secretItems(patch.Secrets), patch.Secrets != nil},
	} {
		if !f.ok {
			continue
		}
		av, err := attributevalue.Marshal(f.v)
		if err != nil {
			return err
		}
		names["#"+f.attr] = f.attr
		set = append(set, "#"+f.attr+" = :"+f.attr)
		values[":"+f.attr] = av
	}
	for _, l := range []struct {
		attr string
		v    webhook.OptionalInt
	}{{"rate_limit", patch.RateLimit}, {"max_concurrency", patch.MaxConcurrency}} {
		switch {
		case !l.v.Set:
		case l.v.Value == nil:
			remove = append(remove, l.attr)
		default:
			set, values[":"+l.attr] = append(set, l.attr+" = :"+l.attr), num(int64(*l.v.Value))
		}
	}
	switch {
	case patch.Enabled != nil && *patch.Enabled:
		remove = append(remove, "disabled_reason", "disabled_at", "failing_since")
		set = append(set, "consecutive_failures = :zero")
		values[":zero"] = num(0)
	case patch.Enabled != nil:
		set = append(set, "disabled_at = if_not_exists(disabled_at, :updated_at)")
	}
	expr := "SET " + strings.Join(set, ", ")
	if len(remove) > 0 {
		expr += " REMOVE " + strings.Join(remove, ", ")
	}
	u := &types.Update{
		TableName: aws.String(s.Tables.Data), Key: keyAV(k), UpdateExpression: aws.String(expr),
		ConditionExpression: aws.String("attribute_exists(pk)"), ExpressionAttributeValues: values,
	}
	if len(names) > 0 {
		u.ExpressionAttributeNames = names
	}
	p.Add(types.TransactWriteItem{Update: u}, webhook.ErrEndpointNotFound)
	return nil
}

// DeleteEndpoint plans the deletion of an endpoint (NOT_FOUND if absent).
// Its pending deliveries become dead when they find it gone.
func (s *Store) DeleteEndpoint(p *Plan, project, id string) error {
	k, ok := endpointKey(project, id)
	if !ok {
		return webhook.ErrEndpointNotFound
	}
	p.Add(types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(s.Tables.Data), Key: keyAV(k), ConditionExpression: aws.String("attribute_exists(pk)")}}, webhook.ErrEndpointNotFound)
	p.Add(s.endpointCount(project, -1), nil)
	return nil
}

// EndpointsQuery lists a project's endpoints, newest first.
func EndpointsQuery(project string) List[webhook.Endpoint] {
	return listOf(Query{PartitionAttr: attrPK, Partition: scoped(project, kindEndpoints), SortAttr: attrSK}, endpointItem.endpoint)
}

func derefS(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Endpoints is the webhook endpoints of the data table: the DynamoDB side
// of webhook.Endpoints. Health is written with UpdateItem expressions
// (ADD, if_not_exists) that return the endpoint, never read-modify-write.
type Endpoints struct{ s *Store }

var _ webhook.Endpoints = Endpoints{}

// Endpoints returns the endpoints' adapter.
func (s *Store) Endpoints() Endpoints { return Endpoints{s} }

// Get implements webhook.Endpoints.
func (r Endpoints) Get(ctx context.Context, project, id string) (webhook.Endpoint, error) {
	k, ok := endpointKey(project, id)
	if !ok {
		return webhook.Endpoint{}, webhook.ErrEndpointNotFound
	}
	return getAs(ctx, r.s, r.s.Tables.Data, k, webhook.ErrEndpointNotFound, endpointItem.endpoint)
}

// ForProject implements webhook.Endpoints with one Query.
func (r Endpoints) ForProject(ctx context.Context, project string) ([]webhook.Endpoint, error) {
	out, err := r.s.DB.Query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(r.s.Tables.Data),
		KeyConditionExpression:    aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(scoped(project, kindEndpoints))},
	})
	if err != nil {
		return nil, classify(err)
	}
	var items []endpointItem
	if err := attributevalue.UnmarshalListOfMaps(out.Items, &items); err != nil {
		return nil, err
	}
	eps := make([]webhook.Endpoint, len(items))
	for i, it := range items {
		eps[i] = it.endpoint()
	}
	return eps, nil
}

// RecordSuccess implements webhook.Endpoints.
func (r Endpoints) RecordSuccess(ctx context.Context, project, id string, at time.Time) (webhook.Endpoint, error) {
	return r.updateHealth(ctx, project, id, "SET last_success_at = :at, consecutive_failures = :zero REMOVE failing_since",
		map[string]types.AttributeValue{":at": str(ids.Timestamp(at)), ":zero": num(0)})
}

// RecordFailure implements webhook.Endpoints.
func (r Endpoints) RecordFailure(ctx context.Context, project, id string, at time.Time) (webhook.Endpoint, error) {
	return r.updateHealth(ctx, project, id, "SET last_failure_at = :at, failing_since = if_not_exists(failing_since, :at) ADD consecutive_failures :one",
		map[string]types.AttributeValue{":at": str(ids.Timestamp(at)), ":one": num(1)})
}

func (r Endpoints) updateHealth(ctx context.Context, project, id, expr string, values map[string]types.AttributeValue) (webhook.Endpoint, error) {
	k, ok := endpointKey(project, id)
	if !ok {
		return webhook.Endpoint{}, webhook.ErrEndpointNotFound
	}
	out, err := r.s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(r.s.Tables.Data), Key: keyAV(k), UpdateExpression: aws.String(expr),
		ConditionExpression: aws.String("attribute_exists(pk)"), ExpressionAttributeValues: values, ReturnValues: types.ReturnValueAllNew,
	})
	var gone *types.ConditionalCheckFailedException
	if errors.As(err, &gone) {
		return webhook.Endpoint{}, webhook.ErrEndpointNotFound
	}
	if err != nil {
		return webhook.Endpoint{}, classify(err)
	}
	ep, err := decodeAs(out.Attributes, endpointItem.endpoint)
	if err != nil || ep == nil {
		return webhook.Endpoint{}, err
	}
	return *ep, nil
}

// Disable implements webhook.Endpoints.
func (r Endpoints) Disable(ctx context.Context, project, id, reason string, at time.Time) error {
	k, ok := endpointKey(project, id)
	if !ok {
		return nil
	}
	_, err := r.s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(r.s.Tables.Data), Key: keyAV(k),
		UpdateExpression:          aws.String("SET enabled = :false, disabled_reason = :reason, disabled_at = :now, updated_at = :now"),
		ConditionExpression:       aws.String("attribute_exists(pk) AND enabled = :true"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":false": &types.AttributeValueMemberBOOL{Value: false}, ":true": &types.AttributeValueMemberBOOL{Value: true}, ":reason": str(reason), ":now": str(ids.Timestamp(at))},
	})
	var already *types.ConditionalCheckFailedException
	if errors.As(err, &already) {
		return nil
	}
	return classify(err)
}

// WriteFlow implements webhook.Endpoints: one UpdateItem that replaces the
// flow state and sets the leases taken, conditioned on the state's version
// and on each slot being free; the endpoint comes back either way (ALL_NEW,
// or ALL_OLD from the failed condition).
func (r Endpoints) WriteFlow(ctx context.Context, project, id string, seen int64, next *webhook.Flow, take webhook.Leases, now time.Time) (webhook.Endpoint, bool, error) {
	k, ok := endpointKey(project, id)
	if !ok {
		return webhook.Endpoint{}, false, webhook.ErrEndpointNotFound
	}
	names := map[string]string{}
	values := map[string]types.AttributeValue{}
	var set []string
	cond := []string{"attribute_exists(pk)"}
	if next != nil {
		flow, err := attributevalue.Marshal(flowItem(*next))
		if err != nil {
			return webhook.Endpoint{}, false, err
		}
		names["#flow"], values[":flow"] = "flow", flow
		set = append(set, "#flow = :flow")
		if seen == 0 {
			cond = append(cond, "attribute_not_exists(#flow)")
		} else {
			cond, values[":seen"] = append(cond, "#flow.v = :seen"), num(seen)
		}
	}
	if len(take) > 0 {
		names["#leases"], values[":now"] = "flow_leases", num(now.UnixMilli())
		for slot, until := range take {
			s := strconv.Itoa(slot)
			names["#s"+s], values[":l"+s] = s, num(until)
			set = append(set, "#leases.#s"+s+" = :l"+s)
			cond = append(cond, "(attribute_not_exists(#leases.#s"+s+") OR #leases.#s"+s+" < :now)")
		}
	}
	if len(set) == 0 {
		return webhook.Endpoint{}, false, errors.New("store: WriteFlow without a state or a lease to write")
	}
	in := &dynamodb.UpdateItemInput{
		TableName: aws.String(r.s.Tables.Data), Key: keyAV(k), UpdateExpression: aws.String("SET " + strings.Join(set, ", ")),
		ConditionExpression: aws.String(strings.Join(cond, " AND ")), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValues: types.ReturnValueAllNew, ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	out, err := r.s.DB.UpdateItem(ctx, in)
	if len(take) > 0 && isMissingPath(err) {
		// The endpoint's first lease: the map of slots is created once.
		if _, err := r.s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(r.s.Tables.Data), Key: keyAV(k), UpdateExpression: aws.String("SET flow_leases = if_not_exists(flow_leases, :empty)"),
			ConditionExpression: aws.String("attribute_exists(pk)"), ExpressionAttributeValues: map[string]types.AttributeValue{":empty": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}},
		}); err != nil && !isConditionFailed(err) {
			return webhook.Endpoint{}, false, classify(err)
		}
		out, err = r.s.DB.UpdateItem(ctx, in)
	}
	var lost *types.ConditionalCheckFailedException
	if errors.As(err, &lost) {
		if len(lost.Item) == 0 {
			return webhook.Endpoint{}, false, webhook.ErrEndpointNotFound
		}
		ep, err := decodeAs(lost.Item, endpointItem.endpoint)
		if err != nil || ep == nil {
			return webhook.Endpoint{}, false, err
		}
		return *ep, false, nil
	}
	if err != nil {
		return webhook.Endpoint{}, false, classify(err)
	}
	ep, err := decodeAs(out.Attributes, endpointItem.endpoint)
	if err != nil || ep == nil {
		return webhook.Endpoint{}, false, err
	}
	return *ep, true, nil
}

// TakeNumbers implements webhook.Endpoints. After the last number given
// it is an unconditional ADD. Past an idle endpoint's due number (after
// above the counter) it sets the counter on condition that it is still
// below after; when another batch moved it first, the ADD follows it.
func (r Endpoints) TakeNumbers(ctx context.Context, project, id string, n int, after int64) (webhook.Endpoint, int64, error) {
	k, ok := endpointKey(project, id)
	if !ok {
		return webhook.Endpoint{}, 0, webhook.ErrEndpointNotFound
	}
	in := &dynamodb.UpdateItemInput{
		TableName: aws.String(r.s.Tables.Data), Key: keyAV(k), ReturnValues: types.ReturnValueAllNew,
		UpdateExpression: aws.String("ADD flow_taken :n"), ConditionExpression: aws.String("attribute_exists(pk)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": num(int64(n))},
	}
	if after > 0 {
		out, err := r.s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(r.s.Tables.Data), Key: keyAV(k), ReturnValues: types.ReturnValueAllNew,
			UpdateExpression:                    aws.String("SET flow_taken = :last"),
			ConditionExpression:                 aws.String("attribute_exists(pk) AND (attribute_not_exists(flow_taken) OR flow_taken < :after)"),
			ExpressionAttributeValues:           map[string]types.AttributeValue{":last": num(after + int64(n)), ":after": num(after)},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		var moved *types.ConditionalCheckFailedException
		switch {
		case errors.As(err, &moved) && len(moved.Item) == 0:
			return webhook.Endpoint{}, 0, webhook.ErrEndpointNotFound
		case errors.As(err, &moved):
			// Another batch caught the counter up first: follow it.
		case err != nil:
			return webhook.Endpoint{}, 0, classify(err)
		default:
			ep, err := decodeAs(out.Attributes, endpointItem.endpoint)
			if err != nil || ep == nil {
				return webhook.Endpoint{}, 0, err
			}
			return *ep, after + 1, nil
		}
	}
	out, err := r.s.DB.UpdateItem(ctx, in)
	var gone *types.ConditionalCheckFailedException
	if errors.As(err, &gone) {
		return webhook.Endpoint{}, 0, webhook.ErrEndpointNotFound
	}
	if err != nil {
		return webhook.Endpoint{}, 0, classify(err)
	}
	ep, err := decodeAs(out.Attributes, endpointItem.endpoint)
	if err != nil || ep == nil {
		return webhook.Endpoint{}, 0, err
	}
	return *ep, ep.Taken - int64(n) + 1, nil
}

// Release implements webhook.Endpoints: one UpdateItem removes the slots
// that still hold the values given; when one was taken over (its lease
// ended first), the others are released without it.
func (r Endpoints) Release(ctx context.Context, project, id string, leases webhook.Leases) error {
	k, ok := endpointKey(project, id)
	if !ok || len(leases) == 0 {
		return nil
	}
	names := map[string]string{"#leases": "flow_leases"}
	values := map[string]types.AttributeValue{}
	var remove, cond []string
	for slot, until := range leases {
		s := strconv.Itoa(slot)
		names["#s"+s], values[":l"+s] = s, num(until)
		remove = append(remove, "#leases.#s"+s)
		cond = append(cond, "#leases.#s"+s+" = :l"+s)
	}
	_, err := r.s.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(r.s.Tables.Data), Key: keyAV(k), UpdateExpression: aws.String("REMOVE " + strings.Join(remove, ", ")),
		ConditionExpression: aws.String(strings.Join(cond, " AND ")), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var lost *types.ConditionalCheckFailedException
	if !errors.As(err, &lost) {
		return classify(err)
	}
	var it endpointItem
	if len(lost.Item) == 0 || attributevalue.UnmarshalMap(lost.Item, &it) != nil {
		return nil // gone
	}
	held := webhook.Leases{}
	for slot, until := range leases {
		if it.Leases[strconv.Itoa(slot)] == until {
			held[slot] = until
		}
	}
	if len(held) == len(leases) {
		return nil // nothing we can release
	}
	return r.Release(ctx, project, id, held)
}

func isMissingPath(err error) bool {
	var v interface{ ErrorCode() string }
	return errors.As(err, &v) && v.ErrorCode() == "ValidationException" && strings.Contains(err.Error(), "document path")
}

func isConditionFailed(err error) bool {
	var c *types.ConditionalCheckFailedException
	return errors.As(err, &c)
}
