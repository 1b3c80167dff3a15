package store

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/auth"
	"github.com/botix/public-api/internal/ids"
)

// A dashboard session is two items, as an API key is: the lookup item under
// the token's hash, which authentication reads, and the project's
// reference under the session id, which revocation reads to find the
// hash. Both carry the TTL attribute, so DynamoDB sweeps them after expiry;
// until then the expiry time decides.

var errSessionNotFound = apierr.New(apierr.NotFound, "dashboard session not found, expired or already revoked")

var _ auth.SessionStore = (*Store)(nil)

type sessionItem struct {
	PK        string `dynamodbav:"pk"`
	SK        string `dynamodbav:"sk"`
	Entity    string `dynamodbav:"entity"`
	ProjectID string `dynamodbav:"project_id"`
	SessionID string `dynamodbav:"session_id"`
	Scope     string `dynamodbav:"scope"`
	// Hash is on the reference only.
	Hash          string `dynamodbav:"token_hash,omitempty"`
	CreatedAt     string `dynamodbav:"created_at"`
	ExpiresAtText string `dynamodbav:"expires_at_text"`
	ExpiresAt     int64  `dynamodbav:"expires_at"`
}

func sessionPK(hash string) string { return "DSESSION#" + hash }

const kindSessions = "DSESS"

func (it sessionItem) session() auth.Session {
	created, _ := time.Parse(time.RFC3339Nano, it.CreatedAt)
	expires, _ := time.Parse(time.RFC3339Nano, it.ExpiresAtText)
	return auth.Session{ID: it.SessionID, Project: it.ProjectID, Scope: auth.Scope(it.Scope), CreatedAt: created, ExpiresAt: expires}
}

// AddDashboardSession plans a new session of s.Project stored under the
// hash of its token (the token itself is never stored).
func (s *Store) AddDashboardSession(p *Plan, sess auth.Session, tokenHash string) error {
	base := sessionItem{
		Entity: "dashboard_session", ProjectID: sess.Project, SessionID: sess.ID, Scope: string(sess.Scope),
		CreatedAt: ids.Timestamp(sess.CreatedAt), ExpiresAtText: ids.Timestamp(sess.ExpiresAt), ExpiresAt: expiresEpoch(sess.ExpiresAt),
	}
	lookup, ref := base, base
	lookup.PK, lookup.SK = sessionPK(tokenHash), "DSESSION"
	ref.PK, ref.SK, ref.Entity, ref.Hash = scoped(sess.Project, kindSessions), sess.ID, "dashboard_session_ref", tokenHash
	for _, it := range []sessionItem{lookup, ref} {
		w, err := put(s.Tables.Data, it, "attribute_not_exists(pk)")
		if err != nil {
			return err
		}
		p.Add(w, nil)
	}
	return nil
}

// expiresEpoch is the TTL attribute of an expiry: the first whole second
// at or after it, so the sweeper never deletes a session still live.
func expiresEpoch(t time.Time) int64 {
	if t.Truncate(time.Second).Equal(t) {
		return t.Unix()
	}
	return t.Unix() + 1
}

// SessionOfToken implements auth.SessionStore: the session stored under
// tokenHash, expired or not, or ErrNotFound.
func (s *Store) SessionOfToken(ctx context.Context, tokenHash string) (auth.Session, error) {
	var it sessionItem
	if err := s.get(ctx, s.Tables.Data, key(sessionPK(tokenHash), "DSESSION"), &it); err != nil {
		return auth.Session{}, err
	}
	return it.session(), nil
}

// DeleteDashboardSession plans the revocation of a live session of project:
// both its items go, so its token is unknown from the commit on. An
// unknown id, another project's session, an expired or an already revoked
// one is NOT_FOUND.
func (s *Store) DeleteDashboardSession(ctx context.Context, p *Plan, project, id string) error {
	if _, err := ids.Parse(ids.DashboardSession, id); err != nil {
		return errSessionNotFound
	}
	refKey := key(scoped(project, kindSessions), id)
	var ref sessionItem
	if err := s.get(ctx, s.Tables.Data, refKey, &ref); err != nil {
		if IsNotFound(err) {
			return errSessionNotFound
		}
		return err
	}
	if !ref.session().Live(s.now()) {
		return errSessionNotFound
	}
	for _, k := range []map[string]string{key(sessionPK(ref.Hash), "DSESSION"), refKey} {
		// The condition makes a revocation that raced another one
		// NOT_FOUND instead of a second "deleted".
		p.Add(types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(s.Tables.Data), Key: keyAV(k), ConditionExpression: aws.String("attribute_exists(pk)")}}, errSessionNotFound)
	}
	return nil
}
