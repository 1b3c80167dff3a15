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
