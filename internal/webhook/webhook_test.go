package webhook

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/botix/public-api/internal/domain"
	kit "github.com/botix/public-api/sdk/go/webhook"
)

func TestSSRFTable(t *testing.T) {
	strict, local := Guard{}, Guard{AllowLoopback: true}
	cases := []struct {
		addr          string
		strict, local bool
	}{
		{"127.0.0.1", false, true},
		{"127.9.9.9", false, true},
		{"::1", false, true},
		{"::ffff:127.0.0.1", false, true},
		{"10.0.0.1", false, false},
		{"172.16.5.4", false, false},
		{"192.168.1.1", false, false},
		{"169.254.169.254", false, false},
		{"169.254.1.1", false, false},
		{"fd00:ec2::254", false, false},
		{"fc00::1", false, false},
		{"fe80::1", false, false},
		{"224.0.0.1", false, false},
		{"ff02::1", false, false},
		{"0.0.0.0", false, false},
		{"::", false, false},
		{"100.64.0.1", false, false},
		{"255.255.255.255", false, false},
		{"::ffff:10.0.0.1", false, false},
		{"::ffff:169.254.169.254", false, false},
		{"93.184.216.34", true, true},
		{"2606:4700::6810:85e5", true, true},
		// IPv6 forms that carry an IPv4 address are judged by it.
		{"64:ff9b::a9fe:a9fe", false, false}, // NAT64 of the metadata address
		{"64:ff9b::a00:1", false, false},     // NAT64 of 10.0.0.1
		{"64:ff9b::7f00:1", false, true},     // NAT64 of 127.0.0.1
		{"64:ff9b::5db8:d822", true, true},   // NAT64 of a public address
		{"::127.0.0.1", false, true},         // IPv4-compatible loopback
		{"::10.0.0.1", false, false},         // IPv4-compatible private
		{"::a9fe:a9fe", false, false},        // IPv4-compatible metadata
		{"2002:a9fe:a9fe::1", false, false},  // 6to4 of the metadata address
		{"2002:a00:1::1", false, false},      // 6to4 of 10.0.0.1
		{"2002:5db8:d822::1", true, true},    // 6to4 of a public address
		{"64:ff9b:1::a00:1", false, false},   // local-use NAT64, whatever it carries
		{"64:ff9b:1:5db8:d822::", false, false},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false, false}, // Teredo
		{"fe80::1%eth0", false, false},
		{"192.0.2.1", false, false},
		{"198.51.100.7", false, false},
		{"203.0.113.9", false, false},
	}
	for _, c := range cases {
		t.Run(c.addr, func(t *testing.T) {
			ip := netip.MustParseAddr(c.addr)
			if got := strict.Allowed(ip); got != c.strict {
				t.Errorf("production: allowed=%v, want %v", got, c.strict)
			}
			if got := local.Allowed(ip); got != c.local {
				t.Errorf("local runtime: allowed=%v, want %v", got, c.local)
			}
			err := strict.Control("tcp", net.JoinHostPort(c.addr, "443"), nil)
			if (err == nil) != c.strict || (err != nil && !errors.Is(err, ErrForbiddenAddress)) {
				t.Errorf("dial-time check: %v", err)
			}
		})
	}
}

func TestCheckURL(t *testing.T) {
	ctx := context.Background()
	r := &net.Resolver{PreferGo: true}
	for _, c := range []struct {
		url       string
		local, ok bool
	}{
		{"https://93.184.216.34/hooks", false, true},
		{"http://93.184.216.34/hooks", false, false},
		{"http://127.0.0.1:9000/hooks", true, true},
		{"http://127.0.0.1:9000/hooks", false, false},
		{"https://localhost/hooks", false, false},
		{"https://169.254.169.254/latest/meta-data", false, false},
		{"https://[fd00:ec2::254]/", false, false},
		{"https://user:pass@93.184.216.34/", false, false},
		{"ftp://93.184.216.34/", false, false},
		{"/relative", false, false},
		{"https://[::ffff:127.0.0.1]/", false, false},
		{"https://[64:ff9b::a9fe:a9fe]/", false, false},
		{"http://[64:ff9b::a9fe:a9fe]/", true, false},
		{"https://[64:ff9b::a00:1]/", false, false},
		{"https://[::127.0.0.1]/", false, false},
		{"https://[2002:a9fe:a9fe::1]/", false, false},
		{"https://[64:ff9b:1::a00:1]/", false, false},
		{"https://127.1/", false, false},
		{"http://127.1:9000/", true, false},
		{"https://0x7f000001/", false, false},
		{"https://2130706433/", false, false},
		{"https://0177.0.0.1/", false, false},
		{"https://10.1/", false, false},
		{"https://localhost./", false, false},
		{"https://LOCALHOST/", false, false},
		{"https://api.localhost./", false, false},
		{"http://localhost.:9000/", true, true},
		{"https://example.invalid./hooks", false, true},
		{"https://1.2.3.4.example.invalid/", false, true},
		{"https://example.invalid/a b", false, false},
		{"https://example.invalid/hooks?x=1 HTTP/1.1\r\nHost: evil", false, false},
		{"https://example.invalid/\thooks", false, false},
		{"https://example.invalid/\u00a0hooks", false, false},
		{"https://１２７.０.０.１/", false, false},
		{"https://127。0。0。1/", false, false},
		{"https://ｌｏｃａｌｈｏｓｔ/", false, false},
		{"http://ｌｏｃａｌｈｏｓｔ:9000/", true, true},
		{"https://１６９.２５４.１６９.２５４/latest/meta-data", false, false},
		{"https://０x7f000001/", false, false},
		{"https://exa_mple.invalid/hooks", false, true},
		{"https://" + strings.Repeat("a", 2040) + ".io/", false, false},
	} {
		_, problem := Guard{AllowLoopback: c.local}.CheckURL(ctx, r, c.url)
		if (problem == "") != c.ok {
			t.Errorf("%s (loopback allowed: %v): problem %q", c.url, c.local, problem)
		}
	}
	t.Run("the host comes back as it is dialled", func(t *testing.T) {
		for raw, want := range map[string]string{
			"https://ПРИМЕР.рф:8443/hooks?a=1": "https://xn--e1afmkfd.xn--p1ai:8443/hooks?a=1",
			"https://Ｅｘａｍｐｌｅ．invalid/h":        "https://example.invalid/h",
			"https://[2606:4700::1111]/h":      "https://[2606:4700::1111]/h",
		} {
			u, problem := Guard{}.CheckURL(ctx, r, raw)
			if problem != "" || u.String() != want {
				t.Errorf("%s: %v %q, want %s", raw, u, problem, want)
			}
		}
	})
}

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
