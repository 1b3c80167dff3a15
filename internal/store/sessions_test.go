package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/auth"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
)

func TestDashboardSessions(t *testing.T) {
	ctx := context.Background()
	s := dynamotest.Store(t)
	now := time.Now().UTC().Truncate(time.Millisecond)
	s.Now = func() time.Time { return now }
	add := func(project string, ttl time.Duration) (auth.Session, string) {
		t.Helper()
		sess := auth.Session{ID: ids.New(ids.DashboardSession, now), Project: project, Scope: auth.ScopeReadRetry, CreatedAt: now, ExpiresAt: now.Add(ttl)}
		token := auth.NewSessionToken()
		var p store.Plan
		if err := s.AddDashboardSession(&p, sess, auth.Hash(token)); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(ctx, p); err != nil {
			t.Fatal(err)
		}
		return sess, token
	}
	revoke := func(project, id string) error {
		var p store.Plan
		if err := s.DeleteDashboardSession(ctx, &p, project, id); err != nil {
			return err
		}
		return s.Commit(ctx, p)
	}
	sess, token := add("prj_a", time.Hour)

	t.Run("the token's hash finds the session, to the millisecond", func(t *testing.T) {
		got, err := s.SessionOfToken(ctx, auth.Hash(token))
		if err != nil || got.ID != sess.ID || got.Project != "prj_a" || got.Scope != auth.ScopeReadRetry || !got.ExpiresAt.Equal(sess.ExpiresAt) || !got.CreatedAt.Equal(now) {
			t.Fatalf("got %+v, %v; want %+v", got, err, sess)
		}
	})
	t.Run("the token itself is stored nowhere; both items carry the TTL attribute", func(t *testing.T) {
		out, err := s.DB.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(s.Tables.Data)})
		if err != nil {
			t.Fatal(err)
		}
		withTTL := 0
		for _, it := range out.Items {
			for name, v := range it {
				if sv, ok := v.(*types.AttributeValueMemberS); ok && strings.Contains(sv.Value, token) {
					t.Fatalf("the token is stored in %s: %v", name, it)
				}
			}
			if e, ok := it["entity"].(*types.AttributeValueMemberS); ok && strings.HasPrefix(e.Value, "dashboard_session") {
				if _, ok := it[store.TTLAttribute].(*types.AttributeValueMemberN); ok {
					withTTL++
				}
			}
		}
		if withTTL != 2 {
			t.Fatalf("%d session items carry %s, want 2", withTTL, store.TTLAttribute)
		}
	})
	t.Run("another project cannot revoke it", func(t *testing.T) {
		if err := revoke("prj_b", sess.ID); !apierr.Is(err, apierr.NotFound) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a malformed id is NOT_FOUND without a read", func(t *testing.T) {
		if err := revoke("prj_a", "dss_nope"); !apierr.Is(err, apierr.NotFound) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("revocation deletes the lookup: the token is unknown; a second revocation is NOT_FOUND", func(t *testing.T) {
		if err := revoke("prj_a", sess.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionOfToken(ctx, auth.Hash(token)); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("after revocation: %v", err)
		}
		if err := revoke("prj_a", sess.ID); !apierr.Is(err, apierr.NotFound) {
			t.Fatalf("second revocation: %v", err)
		}
	})
	t.Run("an expired session cannot be revoked (it is gone for the API)", func(t *testing.T) {
		old, _ := add("prj_a", time.Minute)
		now = now.Add(time.Minute)
		defer func() { now = now.Add(-time.Minute) }()
		if err := revoke("prj_a", old.ID); !apierr.Is(err, apierr.NotFound) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestDashboardSessionsEndWithTheirKey(t *testing.T) {
	ctx := context.Background()
	s := dynamotest.Store(t)
	now := time.Now().UTC().Truncate(time.Millisecond)
	s.Now = func() time.Time { return now }
	prj, err := s.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	newKey := func() string {
		t.Helper()
		id, err := s.AddAPIKey(ctx, prj.ID, auth.Hash(auth.NewKey()))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	add := func(keyID string, ttl time.Duration) (auth.Session, string, error) {
		sess := auth.Session{ID: ids.New(ids.DashboardSession, now), Project: prj.ID, KeyID: keyID, Scope: auth.ScopeRead, CreatedAt: now, ExpiresAt: now.Add(ttl)}
		token := auth.NewSessionToken()
		var p store.Plan
		if err := s.AddDashboardSession(&p, sess, auth.Hash(token)); err != nil {
			return sess, token, err
		}
		return sess, token, s.Commit(ctx, p)
	}
	must := func(sess auth.Session, token string, err error) (auth.Session, string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return sess, token
	}
	listed := func() []auth.Session {
		t.Helper()
		page, err := store.ReadPage(ctx, s, store.DashboardSessionsQuery(prj.ID, now), nil, 100)
		if err != nil {
			t.Fatal(err)
		}
		return page.Items
	}
	k1, k2 := newKey(), newKey()
	s1, tok1 := must(add(k1, time.Hour))
	s2, tok2 := must(add(k2, time.Hour))
	must(add(k2, time.Minute))

	t.Run("a session records its key; the list holds the live ones with their keys", func(t *testing.T) {
		got, err := s.SessionOfToken(ctx, auth.Hash(tok1))
		if err != nil || got.KeyID != k1 {
			t.Fatalf("got %+v, %v", got, err)
		}
		now = now.Add(2 * time.Minute)
		defer func() { now = now.Add(-2 * time.Minute) }()
		keys := map[string]string{}
		for _, x := range listed() {
			keys[x.ID] = x.KeyID
		}
		if len(keys) != 2 || keys[s1.ID] != k1 || keys[s2.ID] != k2 {
			t.Fatalf("listed %v", keys)
		}
	})
	t.Run("revoking a key revokes its sessions, and only its", func(t *testing.T) {
		n, err := s.RevokeAPIKey(ctx, prj.ID, k1)
		if err != nil || n != 1 {
			t.Fatalf("revoked %d sessions, %v", n, err)
		}
		if _, err := s.SessionOfToken(ctx, auth.Hash(tok1)); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the revoked key's session: %v", err)
		}
		if _, err := s.SessionOfToken(ctx, auth.Hash(tok2)); err != nil {
			t.Fatalf("the other key's session: %v", err)
		}
		if err := s.KeyLive(ctx, prj.ID, k1); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("KeyLive of the revoked key: %v", err)
		}
		if err := s.KeyLive(ctx, prj.ID, k2); err != nil {
			t.Fatalf("KeyLive of the live key: %v", err)
		}
	})
	t.Run("a revoked key makes no session -> UNAUTHORIZED", func(t *testing.T) {
		if _, _, err := add(k1, time.Hour); !apierr.Is(err, apierr.Unauthorized) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("revoke_sessions of a key, then of the project", func(t *testing.T) {
		must(add("", time.Hour)) // made before sessions recorded their key
		if n, err := s.RevokeDashboardSessions(ctx, prj.ID, k2); err != nil || n != 2 {
			t.Fatalf("revoked %d of k2, %v", n, err)
		}
		if n, err := s.RevokeDashboardSessions(ctx, prj.ID, ""); err != nil || n != 1 {
			t.Fatalf("revoked %d of the project, %v", n, err)
		}
		if l := listed(); len(l) != 0 {
			t.Fatalf("listed %+v", l)
		}
	})
}
