package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/auth"
	"github.com/botix/public-api/internal/store"
)

func TestAPIKeys(t *testing.T) {
	ctx := context.Background()
	s := dynamotest.Store(t)
	p, err := s.CreateProject(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	key := auth.NewKey()
	keyID, err := s.AddAPIKey(ctx, p.ID, auth.Hash(key))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("a key resolves to its id and project by hash", func(t *testing.T) {
		got, err := s.KeyOfHash(ctx, auth.Hash(key))
		if err != nil || got.Project != p.ID || got.ID != keyID {
			t.Fatalf("got %+v, %v", got, err)
		}
	})
	t.Run("a key cannot be added to a missing project", func(t *testing.T) {
		if _, err := s.AddAPIKey(ctx, "prj_missing", auth.Hash(auth.NewKey())); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a revoked key is unknown", func(t *testing.T) {
		if _, err := s.RevokeAPIKey(ctx, p.ID, keyID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.KeyOfHash(ctx, auth.Hash(key)); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("err = %v", err)
		}
	})
}
