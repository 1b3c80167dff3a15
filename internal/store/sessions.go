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
	// KeyID is the API key that made the session (absent on sessions
	// made before sessions recorded it).
	KeyID string `dynamodbav:"key_id,omitempty"`
	Scope string `dynamodbav:"scope"`
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
	return auth.Session{ID: it.SessionID, Project: it.ProjectID, KeyID: it.KeyID, Scope: auth.Scope(it.Scope), CreatedAt: created, ExpiresAt: expires}
}

var errSessionKeyRevoked = apierr.New(apierr.Unauthorized, "the API key was revoked")

// AddDashboardSession plans a new session of s.Project stored under the
// hash of its token (the token itself is never stored). A session made
// with a key (sess.KeyID) is made only while the key lives: the plan
// checks its reference, so a key revoked while its holder's cache still
// admits it makes no session (UNAUTHORIZED).
func (s *Store) AddDashboardSession(p *Plan, sess auth.Session, tokenHash string) error {
	base := sessionItem{
		Entity: "dashboard_session", ProjectID: sess.Project, SessionID: sess.ID, KeyID: sess.KeyID, Scope: string(sess.Scope),
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
	if sess.KeyID != "" {
		p.Add(types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: aws.String(s.Tables.Data), Key: keyAV(apiKeyRefKey(sess.Project, sess.KeyID)),
			ConditionExpression: aws.String("attribute_exists(pk)"),
		}}, errSessionKeyRevoked)
	}
	return nil
}

// DashboardSessionsQuery lists a project's sessions, newest first: a
// filter drops those that expired a second or more before now, which
// DynamoDB's TTL sweeper may not have deleted yet. The TTL attribute is
// rounded up to the second, so the caller drops the last few by
// auth.Session.Live.
func DashboardSessionsQuery(project string, now time.Time) List[auth.Session] {
	q := Query{PartitionAttr: attrPK, Partition: scoped(project, kindSessions), SortAttr: attrSK,
		Filter: "#exp > :now", Names: map[string]string{"#exp": TTLAttribute},
		Values: map[string]types.AttributeValue{":now": num(now.Unix())}}
	return listOf(q, sessionItem.session)
}

// RevokeDashboardSessions deletes the live sessions of project that the
// key keyID made, or all of them when keyID is "", and returns how many
// it deleted. A session deleted meanwhile by its own revocation is not
// counted.
func (s *Store) RevokeDashboardSessions(ctx context.Context, project, keyID string) (int, error) {
	l := DashboardSessionsQuery(project, s.now())
	if keyID != "" {
		l.Filter += " AND key_id = :key"
		l.Values[":key"] = str(keyID)
	}
	raw := listOf(l.Query, func(it sessionItem) sessionItem { return it })
	revoked := 0
	var start map[string]string
	for {
		page, err := ReadPage(ctx, s, raw, start, 100)
		if err != nil {
			return revoked, err
		}
		for _, ref := range page.Items {
			var p Plan
			s.planSessionDelete(&p, ref)
			switch err := s.Commit(ctx, p); {
			case err == nil:
				revoked++
			case !apierr.Is(err, apierr.NotFound):
				return revoked, err
			}
		}
		if !page.HasMore {
			return revoked, nil
		}
		start = page.Next
	}
}

// planSessionDelete plans the deletion of both items of the session whose
// reference is ref.
func (s *Store) planSessionDelete(p *Plan, ref sessionItem) {
	for _, k := range []map[string]string{key(sessionPK(ref.Hash), "DSESSION"), key(ref.PK, ref.SK)} {
		// The condition makes a revocation that raced another one
		// NOT_FOUND instead of a second "deleted".
		p.Add(types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(s.Tables.Data), Key: keyAV(k), ConditionExpression: aws.String("attribute_exists(pk)")}}, errSessionNotFound)
	}
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
	s.planSessionDelete(p, ref)
	return nil
}
