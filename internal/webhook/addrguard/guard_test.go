package addrguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
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
