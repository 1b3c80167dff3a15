package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/botix/public-api/infra/testkit/dynamotest"
	"github.com/botix/public-api/internal/apierr"
	"github.com/botix/public-api/internal/domain"
	"github.com/botix/public-api/internal/ids"
	"github.com/botix/public-api/internal/store"
)

func newContact(phone string, tags ...string) domain.Contact {
	now := time.Now()
	return domain.Contact{ID: ids.New(ids.Contact, now), Phone: phone, Name: "Ivan", Tags: append([]string{}, tags...), CreatedAt: ids.Timestamp(now)}
}

func createContact(t *testing.T, s *store.Store, project string, c domain.Contact) error {
	t.Helper()
	var p store.Plan
	if err := s.AddContact(&p, project, c); err != nil {
		t.Fatal(err)
	}
	return s.Commit(context.Background(), p)
}

func TestContacts(t *testing.T) {
	ctx := context.Background()
	s := dynamotest.Store(t)
	first := newContact("+79990000001", "vip", "lead")

	t.Run("create then get returns the same contact", func(t *testing.T) {
		if err := createContact(t, s, "prj_a", first); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetContact(ctx, "prj_a", first.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != first.ID || got.Phone != first.Phone || len(got.Tags) != 2 {
			t.Fatalf("got %+v, want %+v", got, first)
		}
	})
	t.Run("same phone in the same project is CONTACT_ALREADY_EXISTS and writes nothing", func(t *testing.T) {
		dup := newContact(first.Phone)
		err := createContact(t, s, "prj_a", dup)
		if !apierr.Is(err, apierr.ContactAlreadyExists) {
			t.Fatalf("err = %v", err)
		}
		if _, err := s.GetContact(ctx, "prj_a", dup.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("duplicate contact was written: %v", err)
		}
	})
	t.Run("same phone in another project is allowed", func(t *testing.T) {
		if err := createContact(t, s, "prj_b", newContact(first.Phone)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("another project's contact is NOT_FOUND", func(t *testing.T) {
		if _, err := s.GetContact(ctx, "prj_b", first.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("malformed id is NOT_FOUND", func(t *testing.T) {
		if _, err := s.GetContact(ctx, "prj_a", "ct_nope"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("the counter counts committed creates only", func(t *testing.T) {
		n, err := s.CountContacts(ctx, "prj_a")
		if err != nil || n != 1 {
			t.Fatalf("count = %d, %v; want 1", n, err)
		}
	})
}

func TestConcurrentCreatesCountExactly(t *testing.T) {
	ctx := context.Background()
	s := dynamotest.Store(t)
	const n = 40
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func(i int) {
			var p store.Plan
			c := newContact("+7999100" + string(rune('0'+i/10)) + string(rune('0'+i%10)) + "00")
			if err := s.AddContact(&p, "prj_c", c); err != nil {
				errs <- err
				return
			}
			errs <- s.Commit(ctx, p)
		}(i)
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	total, err := s.CountContacts(ctx, "prj_c")
	if err != nil || total != n {
		t.Fatalf("count = %d, %v; want %d", total, err, n)
	}
}
