package auth

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/internal/apierr"
)

var errMissing = errors.New("missing")

type fakeKeys struct {
	byHash map[string]string
	calls  int
	fail   error
	// revoked holds key ids that are no longer live.
	revoked map[string]bool
}

func (f *fakeKeys) KeyOfHash(_ context.Context, h string) (Key, error) {
	f.calls++
	if f.fail != nil {
		return Key{}, f.fail
	}
	p, ok := f.byHash[h]
	if !ok {
		return Key{}, errMissing
	}
	return Key{ID: "key_" + h[:8], Project: p}, nil
}

func (f *fakeKeys) KeyLive(_ context.Context, _, id string) error {
	f.calls++
	if f.revoked[id] {
		return errMissing
	}
	return nil
}

func TestAuthenticate(t *testing.T) {
	key := NewKey()
	if !WellFormed(key) {
		t.Fatalf("NewKey() = %q is not well formed", key)
	}
	now := time.Unix(1_800_000_000, 0)
	keys := &fakeKeys{byHash: map[string]string{Hash(key): "prj_1"}}
	a := &Cached{Keys: keys, Sessions: &fakeSessions{}, NotFound: func(err error) bool { return errors.Is(err, errMissing) }, TTL: time.Minute, NegativeTTL: 5 * time.Second, Now: func() time.Time { return now }}

	t.Run("known key resolves to its project", func(t *testing.T) {
		c, err := a.Authenticate(context.Background(), key)
		if err != nil || c.Project != "prj_1" || c.Session != nil || c.KeyID != "key_"+Hash(key)[:8] {
			t.Fatalf("got %+v, %v", c, err)
		}
		if !c.May("") || !c.May(GrantRetry) {
			t.Fatal("an API key may call every route")
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

type fakeSessions struct {
	byHash map[string]Session
	calls  int
}

func (f *fakeSessions) SessionOfToken(_ context.Context, h string) (Session, error) {
	f.calls++
	s, ok := f.byHash[h]
	if !ok {
		return Session{}, errMissing
	}
	return s, nil
}

func TestAuthenticateSession(t *testing.T) {
	token := NewSessionToken()
	if !SessionToken(token) || WellFormed(token) {
		t.Fatalf("NewSessionToken() = %q: a session token must not have a key's shape", token)
	}
	if SessionToken(NewKey()) {
		t.Fatal("a key has a session token's shape")
	}
	now := time.Unix(1_800_000_000, 0)
	sess := Session{ID: "dss_1", Project: "prj_1", Scope: ScopeRead, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	sessions := &fakeSessions{byHash: map[string]Session{Hash(token): sess}}
	keys := &fakeKeys{byHash: map[string]string{}}
	a := &Cached{Keys: keys, Sessions: sessions, NotFound: func(err error) bool { return errors.Is(err, errMissing) }, TTL: time.Minute, NegativeTTL: 5 * time.Second, Now: func() time.Time { return now }}
	ctx := context.Background()

	t.Run("live token resolves to its project and scope", func(t *testing.T) {
		c, err := a.Authenticate(ctx, token)
		if err != nil || c.Project != "prj_1" || c.Session == nil || c.Session.Scope != ScopeRead || c.Session.ID != "dss_1" {
			t.Fatalf("got %+v, %v", c, err)
		}
		if keys.calls != 0 {
			t.Fatal("a session token was looked up as a key")
		}
	})
	t.Run("every request reads the store, so a revocation stops the next one", func(t *testing.T) {
		before := sessions.calls
		if _, err := a.Authenticate(ctx, token); err != nil {
			t.Fatal(err)
		}
		delete(sessions.byHash, Hash(token))
		_, err := a.Authenticate(ctx, token)
		if !apierr.Is(err, apierr.Unauthorized) || sessions.calls != before+2 {
			t.Fatalf("err = %v after %d reads", err, sessions.calls-before)
		}
		sessions.byHash[Hash(token)] = sess
	})
	t.Run("expired session is UNAUTHORIZED, from its expiry on", func(t *testing.T) {
		now = sess.ExpiresAt.Add(-time.Millisecond)
		if _, err := a.Authenticate(ctx, token); err != nil {
			t.Fatalf("a millisecond before expiry: %v", err)
		}
		now = sess.ExpiresAt
		_, err := a.Authenticate(ctx, token)
		if e, _ := apierr.As(err); e == nil || e.Code != apierr.Unauthorized || !strings.Contains(e.Message, "expired") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a session whose key was revoked is UNAUTHORIZED, its key's answer remembered as a key's", func(t *testing.T) {
		now = sess.CreatedAt
		keyed := NewSessionToken()
		sessions.byHash[Hash(keyed)] = Session{ID: "dss_2", Project: "prj_1", KeyID: "key_2", Scope: ScopeRead, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
		if _, err := a.Authenticate(ctx, keyed); err != nil {
			t.Fatalf("while its key lives: %v", err)
		}
		keys.revoked = map[string]bool{"key_2": true}
		defer func() { keys.revoked = nil }()
		if _, err := a.Authenticate(ctx, keyed); err != nil {
			t.Fatalf("within the key's TTL: %v", err)
		}
		now = now.Add(a.TTL)
		_, err := a.Authenticate(ctx, keyed)
		if e, _ := apierr.As(err); e == nil || e.Code != apierr.Unauthorized || !strings.Contains(e.Message, "API key") {
			t.Fatalf("err = %v", err)
		}
	})
	for name, tok := range map[string]string{"unknown token": NewSessionToken(), "malformed token": "bxs_short", "upper-case token": strings.ToUpper(token[:4]) + token[4:]} {
		t.Run(name+" is UNAUTHORIZED", func(t *testing.T) {
			_, err := a.Authenticate(ctx, tok)
			if !apierr.Is(err, apierr.Unauthorized) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestScopesGrant(t *testing.T) {
	for _, c := range []struct {
		scope Scope
		grant Grant
		may   bool
	}{
		{ScopeRead, GrantRead, true},
		{ScopeRead, GrantRetry, false},
		{ScopeRead, "", false},
		{ScopeReadRetry, GrantRead, true},
		{ScopeReadRetry, GrantRetry, true},
		{ScopeReadRetry, "", false},
		{"admin", GrantRead, false},
	} {
		c1 := Caller{Project: "prj_1", Session: &Session{Scope: c.scope}}
		if got := c1.May(c.grant); got != c.may {
			t.Errorf("scope %q, grant %q: May = %v, want %v", c.scope, c.grant, got, c.may)
		}
	}
}
