package auth

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/botix/public-api/internal/apierr"
)

var errMissing = errors.New("missing")

type fakeKeys struct {
	byHash map[string]string
	calls  int
	fail   error
}

func (f *fakeKeys) ProjectOfKey(_ context.Context, h string) (string, error) {
	f.calls++
	if f.fail != nil {
		return "", f.fail
	}
	p, ok := f.byHash[h]
	if !ok {
		return "", errMissing
	}
	return p, nil
}

func TestAuthenticate(t *testing.T) {
	key := NewKey()
	if !WellFormed(key) {
		t.Fatalf("NewKey() = %q is not well formed", key)
	}
	now := time.Unix(1_800_000_000, 0)
	keys := &fakeKeys{byHash: map[string]string{Hash(key): "prj_1"}}
	a := &Cached{Keys: keys, NotFound: func(err error) bool { return errors.Is(err, errMissing) }, TTL: time.Minute, NegativeTTL: 5 * time.Second, Now: func() time.Time { return now }}

	t.Run("known key resolves to its project", func(t *testing.T) {
		p, err := a.Authenticate(context.Background(), key)
		if err != nil || p != "prj_1" {
			t.Fatalf("got %q, %v", p, err)
		}
	})
	t.Run("second call is served from the cache", func(t *testing.T) {
		before := keys.calls
		if _, err := a.Authenticate(context.Background(), key); err != nil {
			t.Fatal(err)
		}
		if keys.calls != before {
			t.Fatalf("store called %d times, want cached", keys.calls-before)
		}
	})
	t.Run("cache expires after TTL", func(t *testing.T) {
		now = now.Add(2 * time.Minute)
		before := keys.calls
		if _, err := a.Authenticate(context.Background(), key); err != nil {
			t.Fatal(err)
		}
		if keys.calls != before+1 {
			t.Fatal("expired entry was not re-read")
		}
	})
	for name, k := range map[string]string{"unknown key": NewKey(), "malformed key": "hello", "empty": ""} {
		t.Run(name+" is UNAUTHORIZED", func(t *testing.T) {
			_, err := a.Authenticate(context.Background(), k)
			if !apierr.Is(err, apierr.Unauthorized) {
				t.Fatalf("err = %v", err)
			}
		})
	}
	t.Run("store failure is not reported as UNAUTHORIZED", func(t *testing.T) {
		b := &Cached{Keys: &fakeKeys{fail: apierr.Unavailable(errors.New("boom"))}, NotFound: func(error) bool { return false }}
		_, err := b.Authenticate(context.Background(), NewKey())
		if !apierr.Is(err, apierr.ServiceUnavailable) {
			t.Fatalf("err = %v", err)
		}
	})
}
