package webhook

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/internal/domain"
	kit "github.com/botix/public-api/sdk/go/webhook"
)

func TestDecide(t *testing.T) {
	now := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	sched := DefaultSchedule
	cases := []struct {
		name    string
		o       Response
		attempt int
		verdict Verdict
		wait    time.Duration
	}{
		{"200 -> delivered", Response{Status: 200}, 1, Delivered, 0},
		{"204 -> delivered", Response{Status: 204}, 3, Delivered, 0},
		{"503 on attempt 1 -> retry in 1m", Response{Status: 503}, 1, Retry, time.Minute},
		{"500 on attempt 2 -> retry in 15m", Response{Status: 500}, 2, Retry, 15 * time.Minute},
		{"timeout on attempt 3 -> retry in 1h", Response{Class: ClassReadTimeout}, 3, Retry, time.Hour},
		{"connection error on attempt 4 -> retry in 24h", Response{Class: ClassConnection}, 4, Retry, 24 * time.Hour},
		{"5xx on attempt 5 -> dead", Response{Status: 502}, 5, Dead, 0},
		{"429 with Retry-After: 120 -> 2m", Response{Status: 429, RetryAfter: "120"}, 1, Retry, 2 * time.Minute},
		{"429 with an HTTP-date -> until then", Response{Status: 429, RetryAfter: "Sun, 29 Nov 2026 08:05:00 GMT"}, 1, Retry, 5 * time.Minute},
		{"429 without Retry-After -> the schedule", Response{Status: 429}, 2, Retry, 15 * time.Minute},
		{"429 with garbage -> the schedule", Response{Status: 429, RetryAfter: "soon"}, 1, Retry, time.Minute},
		{"429 asking 3 days -> capped at 24h", Response{Status: 429, RetryAfter: "259200"}, 1, Retry, 24 * time.Hour},
		{"429 asking int64's most seconds -> capped at 24h", Response{Status: 429, RetryAfter: "9223372036854775807"}, 1, Retry, 24 * time.Hour},
		{"429 asking more seconds than int64 holds -> capped at 24h, as the largest that fits", Response{Status: 429, RetryAfter: "99999999999999999999"}, 1, Retry, 24 * time.Hour},
		{"429 with a negative Retry-After -> the schedule", Response{Status: 429, RetryAfter: "-1"}, 1, Retry, time.Minute},
		{"429 with a signed Retry-After (not delay-seconds) -> the schedule", Response{Status: 429, RetryAfter: "+120"}, 1, Retry, time.Minute},
		{"410 -> dead and disable", Response{Status: 410}, 1, DeadAndDisable, 0},
		{"401 -> dead at once", Response{Status: 401}, 1, Dead, 0},
		{"403 -> dead at once", Response{Status: 403}, 1, Dead, 0},
		{"404 -> dead at once", Response{Status: 404}, 1, Dead, 0},
		{"301 -> dead at once", Response{Status: 301}, 1, Dead, 0},
		{"forbidden address -> dead", Response{Class: ClassForbidden}, 1, Dead, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Decide(c.o, c.attempt, sched, now)
			if d.Verdict != c.verdict || d.Wait != c.wait {
				t.Fatalf("got %+v", d)
			}
			if d.Verdict != Delivered && d.Class == "" {
				t.Fatal("a failure without a class")
			}
		})
	}
}

func TestADeadReasonNamesTheLastCause(t *testing.T) {
	now := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		o    Response
		want string
	}{
		{Response{Status: 503}, "5 attempts failed; the last: HTTP 503"},
		{Response{Status: 429}, "5 attempts failed; the last: HTTP 429"},
		{Response{Class: ClassReadTimeout}, "5 attempts failed; the last: " + ClassReadTimeout},
	} {
		if d := Decide(c.o, 5, DefaultSchedule, now); d.Verdict != Dead || d.Reason != c.want {
			t.Errorf("%+v after the last attempt: %+v, want reason %q", c.o, d, c.want)
		}
	}
}

func TestParseSchedule(t *testing.T) {
	got, err := ParseSchedule("1s, 2s,3s,4s")
	if err != nil || len(got) != 4 || got[3] != 4*time.Second {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"", "1m,,1h", "1d", "-1s", "0s"} {
		if _, err := ParseSchedule(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestSignatures: a fresh secret is "whsec_" and 32 random bytes; the
// request is signed as the receiver kit signs (its tests and the shared
// vectors pin the signatures down), with every active secret.
func TestSignatures(t *testing.T) {
	secret := NewSecret()
	raw, ok := strings.CutPrefix(secret, SecretPrefix)
	if key, err := base64.StdEncoding.DecodeString(raw); !ok || err != nil || len(key) != 32 {
		t.Fatalf("NewSecret() = %q: want whsec_ and the base64 of 32 bytes", secret)
	}
	if NewSecret() == secret {
		t.Fatal("two secrets alike")
	}
	body := []byte(`{"id":"evt_1"}`)
	secrets := []string{secret, NewSecret()}
	h, err := SignedHeaders(secrets, "evt_1", 1795939200, body)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := kit.Sign(secrets, "evt_1", 1795939200, body)
	for _, name := range []string{HeaderSignature, HeaderID, HeaderTimestamp, HeaderStdSig} {
		if h[name] == "" || h[name] != want.Get(name) {
			t.Errorf("%s = %q, want %q", name, h[name], want.Get(name))
		}
	}
	if len(h) != 4 {
		t.Errorf("headers %v, want the four signature headers", h)
	}
	if _, err := SignedHeaders(nil, "evt_1", 1795939200, body); err == nil {
		t.Fatal("signed with no secret")
	}
}

func TestThinBody(t *testing.T) {
	small := domain.Event{ID: "evt_1", Type: "contact.created", CreatedAt: "t", ProjectID: "p", Data: json.RawMessage(`{"id":"ct_1"}`)}
	b, _ := Body(small)
	if strings.Contains(string(b), "thin") {
		t.Fatal(string(b))
	}
	big := small
	big.Data = json.RawMessage(`{"id":"ct_1","blob":"` + strings.Repeat("x", MaxPayload) + `"}`)
	b, _ = Body(big)
	if string(b) != `{"id":"evt_1","type":"contact.created","created_at":"t","project_id":"p","data":{"object":"contact","id":"ct_1"},"thin":true}` {
		t.Fatal(string(b))
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"120", "Sun, 29 Nov 2026 08:05:00 GMT", "", "-1", "99999999999999999999", "soon"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := ParseRetryAfter(v, now)
		if ok && (d < 0 || d > MaxRetryAfter) {
			t.Fatalf("%q -> %v", v, d)
		}
	})
}
