package store

import (
	"context"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
)

const kindEndpoints = "WE"

// Secret is an endpoint signing secret. ExpiresAt (epoch s) is set on the
// previous secret after a rotation: it keeps signing until then.
type Secret struct {
	Value     string `dynamodbav:"value"`
	CreatedAt string `dynamodbav:"created_at"`
	ExpiresAt int64  `dynamodbav:"expires_at,omitempty"`
}

// EndpointRecord is a stored webhook endpoint: the public fields, its
// secrets (newest first) and its failure streak.
type EndpointRecord struct {
	PK           string   `dynamodbav:"pk"`
	SK           string   `dynamodbav:"sk"`
	Entity       string   `dynamodbav:"entity"`
	ProjectID    string   `dynamodbav:"project_id"`
	Secrets      []Secret `dynamodbav:"secrets"`
	FailingSince string   `dynamodbav:"failing_since,omitempty"`
	domain.Endpoint
}

// ActiveSecrets returns the secrets that sign at now, newest first.
func (r EndpointRecord) ActiveSecrets(now time.Time) []string {
	var out []string
	for _, s := range r.Secrets {
		if s.ExpiresAt == 0 || now.Unix() < s.ExpiresAt {
			out = append(out, s.Value)
		}
	}
	return out
}

var (
	errEndpointNotFound = apierr.New(apierr.NotFound, "webhook endpoint not found")
	errEndpointLimit    = apierr.New(apierr.LimitExceeded, "a project has at most %d webhook endpoints; delete one first", domain.MaxEndpointsPerProject)
)

func endpointKey(project, id string) (map[string]string, error) {
	u, err := ids.Parse(ids.WebhookEndpoint, id)
	if err != nil {
		return nil, errEndpointNotFound
	}
	return key(scoped(project, kindEndpoints), u.String()), nil
}

// AddEndpoint plans the creation of an endpoint, within the per-project
// limit (LIMIT_EXCEEDED), counted in the same transaction.
func (s *Store) AddEndpoint(p *Plan, project string, rec EndpointRecord) error {
	k, err := endpointKey(project, rec.ID)
	if err != nil {
		return err
	}
	rec.PK, rec.SK, rec.Entity, rec.ProjectID = k[attrPK], k[attrSK], "webhook_endpoint", project
	w, err := put(s.Tables.Data, rec, "attribute_not_exists(pk)")
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
		u.ExpressionAttributeValues[":max"] = num(domain.MaxEndpointsPerProject)
	}
	return types.TransactWriteItem{Update: u}
}

// GetEndpoint returns an endpoint of project, or NOT_FOUND.
func (s *Store) GetEndpoint(ctx context.Context, project, id string) (EndpointRecord, error) {
	k, err := endpointKey(project, id)
	if err != nil {
		return EndpointRecord{}, err
	}
	var rec EndpointRecord
	if err := s.get(ctx, s.Tables.Data, k, &rec); err != nil {
		if IsNotFound(err) {
			return EndpointRecord{}, errEndpointNotFound
		}
		return EndpointRecord{}, err
	}
	return rec, nil
}

// EndpointPatch is a change to an endpoint; nil fields are unchanged.
type EndpointPatch struct {
	URL         *string
	Events      []string
	Description *string
	Enabled     *bool
	Secrets     []Secret
	UpdatedAt   string
}

// UpdateEndpoint plans a patch. Enabling an endpoint clears its disabled
// reason and its failure streak. Health fields written by the deliver
// function are not touched.
func (s *Store) UpdateEndpoint(p *Plan, project, id string, patch EndpointPatch) error {
	k, err := endpointKey(project, id)
	if err != nil {
		return err
	}
	set := []string{"updated_at = :updated_at"}
	values := map[string]types.AttributeValue{":updated_at": str(patch.UpdatedAt)}
	names := map[string]string{}
	var remove []string
	add := func(attr, name string, v any) error {
		av, err := attributevalue.Marshal(v)
		if err != nil {
			return err
		}
		names["#"+attr] = attr
		set = append(set, "#"+attr+" = "+name)
		values[name] = av
		return nil
	}
	for _, f := range []struct {
		attr string
		v    any
		ok   bool
	}{
		{"url", derefS(patch.URL), patch.URL != nil},
		{"events", patch.Events, patch.Events != nil},
		{"description", derefS(patch.Description), patch.Description != nil},
		{"enabled", patch.Enabled != nil && *patch.Enabled, patch.Enabled != nil},
		{"secrets", patch.Secrets, patch.Secrets != nil},
	} {
		if f.ok {
			if err := add(f.attr, ":"+f.attr, f.v); err != nil {
				return err
			}
		}
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
	p.Add(types.TransactWriteItem{Update: u}, errEndpointNotFound)
	return nil
}

// DeleteEndpoint plans the deletion of an endpoint (NOT_FOUND if absent).
// Its pending deliveries become dead when they find it gone.
func (s *Store) DeleteEndpoint(p *Plan, project, id string) error {
	k, err := endpointKey(project, id)
	if err != nil {
		return err
	}
	p.Add(types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(s.Tables.Data), Key: keyAV(k), ConditionExpression: aws.String("attribute_exists(pk)")}}, errEndpointNotFound)
	p.Add(s.endpointCount(project, -1), nil)
	return nil
}

// EndpointsQuery lists a project's endpoints, newest first.
func EndpointsQuery(project string) Query {
	return Query{PartitionAttr: attrPK, Partition: scoped(project, kindEndpoints), SortAttr: attrSK}
}

// ProjectEndpoints returns every endpoint of a project (at most
// MaxEndpointsPerProject, one Query).
func (s *Store) ProjectEndpoints(ctx context.Context, project string) ([]EndpointRecord, error) {
	out, err := s.DB.Query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.Tables.Data),
		KeyConditionExpression:    aws.String("pk = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(scoped(project, kindEndpoints))},
	})
	if err != nil {
		return nil, classify(err)
	}
	var recs []EndpointRecord
	err = attributevalue.UnmarshalListOfMaps(out.Items, &recs)
	return recs, err
}

func derefS(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// IsEndpointNotFound reports whether err says a webhook endpoint does not
// exist.
func IsEndpointNotFound(err error) bool { return err == errEndpointNotFound }
