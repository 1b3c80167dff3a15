package webhook

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// Guard decides which URLs and addresses webhooks may reach. Loopback,
// private, link-local, multicast, unspecified, shared (CGNAT), reserved and
// cloud metadata addresses are refused when an endpoint is registered and
// again when each connection is dialled, after DNS resolution (so a name
// that later resolves to 127.0.0.1 or 169.254.169.254 is still refused).
type Guard struct {
	// AllowLoopback admits loopback addresses and http:// URLs: the local
	// runtime sets it (WEBHOOK_ALLOW_LOOPBACK); the template never does.
	AllowLoopback bool
}

var forbiddenPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // shared address space (CGNAT)
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, broadcast
	netip.MustParsePrefix("169.254.0.0/16"), // link-local, incl. 169.254.169.254 metadata
	netip.MustParsePrefix("fd00:ec2::/32"),  // AWS metadata over IPv6 (fd00:ec2::254)
	netip.MustParsePrefix("64:ff9b::/96"),   // NAT64 (could reach private IPv4)
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("::ffff:0:0/96"),  // IPv4-mapped: checked after unmapping
	netip.MustParsePrefix("100::/64"),       // discard-only
	netip.MustParsePrefix("2001::/23"),      // IETF protocol assignments
	netip.MustParsePrefix("fec0::/10"),      // site-local (deprecated)
	netip.MustParsePrefix("ff00::/8"),       // multicast
	netip.MustParsePrefix("224.0.0.0/4"),    // multicast
	netip.MustParsePrefix("255.255.255.255/32"),
}

// Allowed reports whether a webhook may connect to ip.
func (g Guard) Allowed(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.IsLoopback() {
		return g.AllowLoopback
	}
	if !ip.IsValid() || ip.IsPrivate() || ip.IsUnspecified() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() {
		return false
	}
	for _, p := range forbiddenPrefixes {
		if p.Contains(ip) && p.Bits() != 96 { // ::ffff:0:0/96 is handled by Unmap
			return false
		}
	}
	return true
}

// CheckURL validates an endpoint URL: https (http only with
// AllowLoopback), a host, no credentials, and — for an IP literal or a
// name that resolves — only allowed addresses. A name that does not
// resolve yet is accepted; the dial-time check still applies.
func (g Guard) CheckURL(ctx context.Context, resolver *net.Resolver, raw string) (*url.URL, string) {
	if len(raw) > 2048 {
		return nil, "must be at most 2048 characters"
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return nil, "must be an absolute URL such as https://example.com/webhooks"
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && g.AllowLoopback:
	default:
		return nil, "must use https"
	}
	if u.User != nil {
		return nil, "must not contain credentials"
	}
	if u.Fragment != "" {
		return nil, "must not contain a fragment"
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		if !g.Allowed(ip) {
			return nil, "must not point to a loopback, private, link-local, multicast or metadata address"
		}
		return u, ""
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		if !g.AllowLoopback {
			return nil, "must not point to a loopback, private, link-local, multicast or metadata address"
		}
		return u, ""
	}
	addrs, err := resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return u, "" // not resolvable now: refused at dial time if it ever points inside
	}
	for _, a := range addrs {
		if !g.Allowed(a) {
			return nil, "resolves to a loopback, private, link-local, multicast or metadata address"
		}
	}
	return u, ""
}

// Control is a net.Dialer Control function: it refuses to connect to a
// forbidden address, whatever name resolved to it.
func (g Guard) Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
	}
	if !g.Allowed(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, ap.Addr())
	}
	return nil
}
