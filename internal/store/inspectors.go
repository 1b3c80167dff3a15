package store

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/ids"
)

// Inspector limits: how long a capture URL lives, how many requests and
// how many body bytes it keeps.
const (
	InspectorTTL         = 24 * time.Hour
	InspectorMaxRequests = 100
	InspectorMaxBody     = 64 << 10
)

var (
	errInspectorNotFound = apierr.New(apierr.NotFound, "inspector not found or expired")
	errInspectorFull     = apierr.New(apierr.LimitExceeded, "this inspector already holds %d requests; create a new one", InspectorMaxRequests)
)

// Inspector is a capture URL: anything POSTed to it is stored for its
// project to look at.
type Inspector struct {
	PK        string `dynamodbav:"pk" json:"-"`
	SK        string `dynamodbav:"sk" json:"-"`
	Entity    string `dynamodbav:"entity" json:"-"`
	ProjectID string `dynamodbav:"project_id" json:"-"`
	ID        string `dynamodbav:"id" json:"id"`
	URL       string `dynamodbav:"url" json:"url"`
	CreatedAt string `dynamodbav:"created_at" json:"created_at"`
	Count     int    `dynamodbav:"count" json:"requests_count"`
	ExpiresAt int64  `dynamodbav:"expires_at" json:"-"`
	// ExpiresAtText is ExpiresAt for people.
	ExpiresAtText string `dynamodbav:"expires_at_text" json:"expires_at"`
}

// CapturedRequest is one request an inspector caught.
type CapturedRequest struct {
	PK        string            `dynamodbav:"pk" json:"-"`
	SK        string            `dynamodbav:"sk" json:"-"`
	Entity    string            `dynamodbav:"entity" json:"-"`
	ID        string            `dynamodbav:"id" json:"id"`
	Method    string            `dynamodbav:"method" json:"method"`
	Path      string            `dynamodbav:"path" json:"path"`
	Query     string            `dynamodbav:"query,omitempty" json:"query,omitempty"`
	Headers   map[string]string `dynamodbav:"headers" json:"headers"`
	Body      string            `dynamodbav:"body" json:"body"`
	Truncated bool              `dynamodbav:"truncated,omitempty" json:"truncated,omitempty"`
	SourceIP  string            `dynamodbav:"source_ip,omitempty" json:"source_ip,omitempty"`
	At        string            `dynamodbav:"at" json:"received_at"`
	ExpiresAt int64             `dynamodbav:"expires_at" json:"-"`
}

func inspectorPK(id string) string { return "INSP#" + id }

// AddInspector plans a new inspector and fills in its times.
func (s *Store) AddInspector(p *Plan, project string, in *Inspector, now time.Time) error {
	in.PK, in.SK, in.Entity, in.ProjectID = inspectorPK(in.ID), "INSPECTOR", "inspector", project
	in.CreatedAt = ids.Timestamp(now)
	in.ExpiresAt = now.Add(InspectorTTL).Unix()
	in.ExpiresAtText = ids.Timestamp(now.Add(InspectorTTL))
	w, err := put(s.Tables.Data, *in, "attribute_not_exists(pk)")
	if err != nil {
		return err
	}
	p.Add(w, nil)
	return nil
}

// GetInspector returns a live inspector of project ("" for any project:
// the capture URL needs no key), or NOT_FOUND.
func (s *Store) GetInspector(ctx context.Context, project, id string) (Inspector, error) {
	if !ids.ValidInspector(id) {
		return Inspector{}, errInspectorNotFound
	}
	var in Inspector
	if err := s.get(ctx, s.Tables.Data, key(inspectorPK(id), "INSPECTOR"), &in); err != nil {
		if IsNotFound(err) {
			return Inspector{}, errInspectorNotFound
		}
		return Inspector{}, err
	}
	if (project != "" && in.ProjectID != project) || s.now().Unix() >= in.ExpiresAt {
		return Inspector{}, errInspectorNotFound
	}
	return in, nil
}

// Capture stores a request caught by a live inspector, within its count
// limit (one transaction: the count and the request).
func (s *Store) Capture(ctx context.Context, inspectorID string, req CapturedRequest) error {
	if !ids.ValidInspector(inspectorID) {
		return errInspectorNotFound
	}
	now := s.now()
	u := ids.NewULID(now)
	req.PK, req.SK, req.Entity, req.ID = inspectorPK(inspectorID), "REQ#"+u.String(), "inspector_request", "ireq_"+u.String()
	req.At, req.ExpiresAt = ids.Timestamp(now), now.Add(InspectorTTL).Unix()
	w, err := put(s.Tables.Data, req, "")
	if err != nil {
		return err
	}
	var p Plan
	p.Add(types.TransactWriteItem{Update: &types.Update{
		TableName: aws.String(s.Tables.Data), Key: keyAV(key(inspectorPK(inspectorID), "INSPECTOR")),
		UpdateExpression:         aws.String("ADD #count :one"),
		ConditionExpression:      aws.String("attribute_exists(pk) AND expires_at > :now AND #count < :max"),
		ExpressionAttributeNames: map[string]string{"#count": "count"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one": num(1), ":now": num(now.Unix()), ":max": num(InspectorMaxRequests),
		},
	}}, errInspectorFull)
	p.Add(w, nil)
	err = s.Commit(ctx, p)
	if errors.Is(err, errInspectorFull) {
		// Absent, expired or full: tell which.
		if _, gerr := s.GetInspector(ctx, "", inspectorID); gerr != nil {
			return gerr
		}
	}
	return err
}

// InspectorRequestsQuery lists what an inspector caught, newest first.
func InspectorRequestsQuery(inspectorID string) List[CapturedRequest] {
	q := Query{PartitionAttr: attrPK, Partition: inspectorPK(inspectorID), SortAttr: attrSK, From: "REQ#", To: "REQ#~"}
	return listOf(q, func(r CapturedRequest) CapturedRequest { return r })
}
