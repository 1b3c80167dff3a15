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
	PK                  string       `dynamodbav:"pk"`
	SK                  string       `dynamodbav:"sk"`
	Entity              string       `dynamodbav:"entity"`
	ProjectID           string       `dynamodbav:"project_id"`
	ID                  string       `dynamodbav:"id"`
	URL                 string       `dynamodbav:"url"`
	Events              []string     `dynamodbav:"events"`
	Description         string       `dynamodbav:"description,omitempty"`
	Enabled             bool         `dynamodbav:"enabled"`
	DisabledReason      string       `dynamodbav:"disabled_reason,omitempty"`
	CreatedAt           string       `dynamodbav:"created_at"`
	UpdatedAt           string       `dynamodbav:"updated_at"`
	LastSuccessAt       string       `dynamodbav:"last_success_at,omitempty"`
	LastFailureAt       string       `dynamodbav:"last_failure_at,omitempty"`
	FailingSince        string       `dynamodbav:"failing_since,omitempty"`
	ConsecutiveFailures int          `dynamodbav:"consecutive_failures"`
	Secrets             []secretItem `dynamodbav:"secrets"`
}

func (it endpointItem) endpoint() webhook.Endpoint {
	ep := webhook.Endpoint{
		ID: it.ID, URL: it.URL, Events: it.Events, Description: it.Description, Enabled: it.Enabled, DisabledReason: it.DisabledReason,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, LastSuccessAt: it.LastSuccessAt, LastFailureAt: it.LastFailureAt,
		FailingSince: it.FailingSince, ConsecutiveFailures: it.ConsecutiveFailures,
	}
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
	UpdatedAt   string
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
	if patch.Enabled != nil && *patch.Enabled {
		remove = append(remove, "disabled_reason", "failing_since")
		set = append(set, "consecutive_failures = :zero")
		values[":zero"] = num(0)
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
		UpdateExpression:          aws.String("SET enabled = :false, disabled_reason = :reason, updated_at = :now"),
		ConditionExpression:       aws.String("attribute_exists(pk) AND enabled = :true"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":false": &types.AttributeValueMemberBOOL{Value: false}, ":true": &types.AttributeValueMemberBOOL{Value: true}, ":reason": str(reason), ":now": str(ids.Timestamp(at))},
	})
	var already *types.ConditionalCheckFailedException
	if errors.As(err, &already) {
		return nil
	}
	return classify(err)
}
