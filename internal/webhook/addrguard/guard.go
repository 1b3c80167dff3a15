// Package addrguard is the webhooks' address guard against server-side
// request forgery: it decides which URLs an endpoint may be registered
// with (CheckURL, used by the API) and which addresses a webhook may
// connect to once DNS has answered (Control, used by the sender's dialer).
// It is security code with one job, kept apart so that it is read, tested
// and changed on its own.
package addrguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"unicode"

	"golang.org/x/net/idna"
)

// Guard decides which URLs and addresses webhooks may reach. Loopback,
// private, link-local, multicast, unspecified, shared (CGNAT), reserved and
// cloud metadata addresses are refused when an endpoint is registered and
// again when each connection is dialled, after DNS resolution (so a name
// that later resolves to 127.0.0.1 or 169.254.169.254 is still refused).
// IPv6 addresses that carry an IPv4 address — IPv4-mapped, IPv4-compatible,
// NAT64 (64:ff9b::/96) and 6to4 — are judged by the IPv4 address they
// carry; local-use NAT64 and Teredo, whose mapping only the network knows,
// are refused.
type Guard struct {
	// AllowLoopback admits loopback addresses and http:// URLs: the local
	// runtime sets it (WEBHOOK_ALLOW_LOOPBACK); the template never does.
	AllowLoopback bool
}

var forbiddenPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // shared address space (CGNAT)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation (TEST-NET-1)
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation (TEST-NET-2)
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation (TEST-NET-3)
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("169.254.0.0/16"),  // link-local, incl. 169.254.169.254 metadata
	netip.MustParsePrefix("fd00:ec2::/32"),   // AWS metadata over IPv6 (fd00:ec2::254)
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64 (RFC 8215): the network decides where it goes
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments, incl. Teredo 2001::/32
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated)
	netip.MustParsePrefix("ff00::/8"),        // multicast
	netip.MustParsePrefix("224.0.0.0/4"),     // multicast
	netip.MustParsePrefix("255.255.255.255/32"),
}

var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4      = netip.MustParsePrefix("2002::/16")
	compatible  = netip.MustParsePrefix("::/96")
)

// embeddedIPv4 returns the IPv4 address an IPv6 address carries, if it is
// of a form that carries one.
func embeddedIPv4(ip netip.Addr) (netip.Addr, bool) {
	b := ip.As16()
	switch {
	case ip.Is4In6():
		return ip.Unmap(), true
	case nat64Prefix.Contains(ip), compatible.Contains(ip) && ip != netip.IPv6Unspecified() && ip != netip.IPv6Loopback():
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixTo4.Contains(ip):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return ip, false
}

// Allowed reports whether a webhook may connect to ip.
func (g Guard) Allowed(ip netip.Addr) bool {
	if !ip.IsValid() {
		return false
	}
	if ip.Is6() && ip.Zone() != "" {
		ip = ip.WithZone("")
	}
	if v4, ok := embeddedIPv4(ip); ok {
		ip = v4
	}
	if ip.IsLoopback() {
		return g.AllowLoopback
	}
	if ip.IsPrivate() || ip.IsUnspecified() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() {
		return false
	}
	for _, p := range forbiddenPrefixes {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// problem texts of CheckURL.
const (
	problemForbidden = "must not point to a loopback, private, link-local, multicast or metadata address"
	problemNumeric   = "must use a DNS name or an IP address in its usual form (a.b.c.d, or [IPv6] in brackets)"
)

// hostNames maps a host the way resolvers and browsers do before they look
// it up (UTS #46: full-width letters, digits and dots such as "１２７。０.０.１"
// become "127.0.0.1", letters are lowercased, international names become
// their xn-- form), so the guard judges the host that would be dialled.
// Underscores stay allowed, as DNS allows them.
var hostNames = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.StrictDomainName(false))

// MaxURLLength bounds an endpoint URL.
const MaxURLLength = 2048

// CheckURL validates an endpoint URL and returns it with its host in the
// form that is dialled: https (http only with AllowLoopback), a host, no
// credentials, no spaces or control characters, and — for an IP literal or
// a name that resolves — only allowed addresses. Hosts are mapped first
// (hostNames), so full-width spellings are judged as what they mean. Hosts
// that some resolvers read as addresses although they are not written as
// one (127.1, 0x7f000001, 2130706433, 0177.0.0.1) are refused, and so is
// localhost in any spelling. A name that does not resolve yet is accepted;
// the dial-time check still applies.
func (g Guard) CheckURL(ctx context.Context, resolver *net.Resolver, raw string) (*url.URL, string) {
	if len(raw) > MaxURLLength {
		return nil, fmt.Sprintf("must be at most %d characters", MaxURLLength)
	}
	if strings.ContainsFunc(raw, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return nil, "must not contain spaces or control characters (percent-encode them, e.g. %20)"
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return nil, "must be an absolute URL such as https://example.com/webhooks"
	}
	if !strings.HasPrefix(u.Host, "[") {
		mapped, err := hostNames.ToASCII(u.Hostname())
		if err != nil || mapped == "" {
			return nil, "must have a valid host name"
		}
		port := u.Port()
		u.Host = mapped
		if port != "" {
			u.Host = net.JoinHostPort(mapped, port)
		}
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
	if ip, err := netip.ParseAddr(host); err == nil {
		if !g.Allowed(ip) {
			return nil, problemForbidden
		}
		return u, ""
	}
	name := strings.ToLower(strings.TrimRight(host, "."))
	if numericHost(name) {
		return nil, problemNumeric
	}
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		if !g.AllowLoopback {
			return nil, problemForbidden
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

// numericHost reports whether a host that is not an IP address in its
// usual form would still be read as one: its last label is a number
// (decimal, octal or 0x hex), which no DNS name's last label is (the
// WHATWG URL rule).
func numericHost(host string) bool {
	labels := strings.Split(host, ".")
	last := labels[len(labels)-1]
	if last == "" {
		return false
	}
	if h, ok := strings.CutPrefix(last, "0x"); ok {
		last = h
		for _, r := range last {
			if !strings.ContainsRune("0123456789abcdef", r) {
				return false
			}
		}
		return true
	}
	for _, r := range last {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
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

// ErrForbiddenAddress is returned when a webhook would reach an address it
// may not (see Guard).
var ErrForbiddenAddress = errors.New("webhook: forbidden address")
