package store

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/auth"
	"github.com/botix/public-api/internal/ids"
)

// Project is a tenant: every resource and API key belongs to one.
type Project struct {
	ID        string `json:"id" dynamodbav:"id"`
	Name      string `json:"name" dynamodbav:"name"`
	CreatedAt string `json:"created_at" dynamodbav:"created_at"`
}

type projectItem struct {
	PK     string `dynamodbav:"pk"`
	SK     string `dynamodbav:"sk"`
	Entity string `dynamodbav:"entity"`
	Project
}

type apiKeyItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Entity    string `dynamodbav:"entity"`
	ProjectID string `dynamodbav:"project_id"`
	KeyID     string `dynamodbav:"key_id"`
	Hash      string `dynamodbav:"key_hash,omitempty"`
	CreatedAt string `dynamodbav:"created_at"`
}

// CreateProject stores a new project named name.
func (s *Store) CreateProject(ctx context.Context, name string) (Project, error) {
	now := s.now()
	p := Project{ID: ids.New(ids.Project, now), Name: name, CreatedAt: ids.Timestamp(now)}
	av, err := attributevalue.MarshalMap(projectItem{PK: projectPK(p.ID), SK: "PROJECT", Entity: "project", Project: p})
	if err != nil {
		return Project{}, err
	}
	_, err = s.DB.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.Tables.Data), Item: av, ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	return p, classify(err)
}

// GetProject returns a project or ErrNotFound.
func (s *Store) GetProject(ctx context.Context, id string) (Project, error) {
	var it projectItem
	if err := s.get(ctx, s.Tables.Data, key(projectPK(id), "PROJECT"), &it); err != nil {
		return Project{}, err
	}
	return it.Project, nil
}

// AddAPIKey stores the SHA-256 hash of an API key for project and returns
// the key's id. The plain key is never stored. The project must exist.
func (s *Store) AddAPIKey(ctx context.Context, project, keyHash string) (string, error) {
	now := s.now()
	keyID := ids.New(ids.APIKey, now)
	lookup := apiKeyItem{PK: apiKeyPK(keyHash), SK: "APIKEY", Entity: "api_key", ProjectID: project, KeyID: keyID, CreatedAt: ids.Timestamp(now)}
	ref := apiKeyItem{PK: projectPK(project), SK: "APIKEY#" + keyID, Entity: "api_key_ref", ProjectID: project, KeyID: keyID, Hash: keyHash, CreatedAt: ids.Timestamp(now)}
	var p Plan
	for _, it := range []apiKeyItem{lookup, ref} {
		w, err := put(s.Tables.Data, it, "attribute_not_exists(pk)")
		if err != nil {
			return "", err
		}
		p.Add(w, nil)
	}
	p.Add(types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
		TableName: aws.String(s.Tables.Data), Key: keyAV(key(projectPK(project), "PROJECT")),
		ConditionExpression: aws.String("attribute_exists(pk)"),
	}}, ErrNotFound)
	return keyID, s.Commit(ctx, p)
}

var _ auth.KeyStore = (*Store)(nil)

// apiKeyRefKey is the key of the project's reference to its key keyID.
func apiKeyRefKey(project, keyID string) map[string]string {
	return key(projectPK(project), "APIKEY#"+keyID)
}

// KeyOfHash implements auth.KeyStore: the key with this hash, or
// ErrNotFound.
func (s *Store) KeyOfHash(ctx context.Context, keyHash string) (auth.Key, error) {
	var it apiKeyItem
	if err := s.get(ctx, s.Tables.Data, key(apiKeyPK(keyHash), "APIKEY"), &it); err != nil {
		return auth.Key{}, err
	}
	return auth.Key{ID: it.KeyID, Project: it.ProjectID}, nil
}

// KeyLive implements auth.KeyStore: nil while project has the key keyID,
// ErrNotFound once it was revoked (or never was).
func (s *Store) KeyLive(ctx context.Context, project, keyID string) error {
	var ref apiKeyItem
	return s.get(ctx, s.Tables.Data, apiKeyRefKey(project, keyID), &ref)
}

// RevokeAPIKey deletes an API key of project by its id, then the dashboard
// sessions it made (see RevokeDashboardSessions), and returns how many
// sessions it revoked. Unknown ids (and other projects' keys) are
// ErrNotFound. No session of the key can be made after the key is gone
// (AddDashboardSession checks the key), so none outlives the revocation;
// should deleting the sessions fail, they still stop within the key
// cache's TTL (auth.Cached checks a session's key) and revoke_sessions
// deletes them.
func (s *Store) RevokeAPIKey(ctx context.Context, project, keyID string) (int, error) {
	var ref apiKeyItem
	if err := s.get(ctx, s.Tables.Data, apiKeyRefKey(project, keyID), &ref); err != nil {
		return 0, err
	}
	var p Plan
	for _, k := range []map[string]string{key(apiKeyPK(ref.Hash), "APIKEY"), apiKeyRefKey(project, keyID)} {
		p.Add(types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(s.Tables.Data), Key: keyAV(k)}}, nil)
	}
	if err := s.Commit(ctx, p); err != nil {
		return 0, err
	}
	return s.RevokeDashboardSessions(ctx, project, keyID)
}

// get reads one item with a strongly consistent read into out; a missing
// item is ErrNotFound.
func (s *Store) get(ctx context.Context, table string, k map[string]string, out any) error {
	res, err := s.DB.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: keyAV(k), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return classify(err)
	}
	if res.Item == nil {
		return ErrNotFound
	}
	return attributevalue.UnmarshalMap(res.Item, out)
}

// getAs reads the item at k as I and returns it as T; notFound when there
// is none.
func getAs[I, T any](ctx context.Context, s *Store, table string, k map[string]string, notFound error, read func(I) T) (T, error) {
	var it I
	if err := s.get(ctx, table, k, &it); err != nil {
		var zero T
		if IsNotFound(err) {
			return zero, notFound
		}
		return zero, err
	}
	return read(it), nil
}

// decodeAs reads an item that a write returned (ALL_OLD, ALL_NEW) as I
// and returns it as T; nil when the write found no item.
func decodeAs[I, T any](av map[string]types.AttributeValue, read func(I) T) (*T, error) {
	if av == nil {
		return nil, nil
	}
	var it I
	if err := attributevalue.UnmarshalMap(av, &it); err != nil {
		return nil, err
	}
	out := read(it)
	return &out, nil
}

// IsNotFound reports whether err is ErrNotFound.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
