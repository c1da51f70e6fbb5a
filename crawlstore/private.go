package crawlstore

import (
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// The one rule of private addresses, shared by the crawler's dialer (which
// refuses them unless a seed named them) and the store's migration (which
// records those an old store's frontier queued, see [PrivateSeeder]).

// IsPrivateAddr reports whether a is an address a crawl does not connect
// to by default: loopback, a private network (RFC 1918, RFC 4193),
// link-local, interface-local multicast or unspecified. An IPv4-mapped
// IPv6 address is judged as its IPv4 address.
func IsPrivateAddr(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsUnspecified()
}

// PrivateDialAddr returns the address ("host:port", as net/http dials it)
// of u's host, with u's port or else its scheme's (80 for http, 443 for
// https), and whether that host is private: localhost, a name under
// .localhost, or an IP address that private reports ([IsPrivateAddr],
// unless a test's). Names are compared without case and a final dot.
func PrivateDialAddr(u *url.URL, private func(netip.Addr) bool) (addr string, ok bool) {
	h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	a, err := netip.ParseAddr(h)
	if h != "localhost" && !strings.HasSuffix(h, ".localhost") && (err != nil || !private(a)) {
		return "", false
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port), true
}

// PrivateHostAddrs returns the dial addresses of a frontier host (a
// canonical URL's host, as [HostOf] gives it) when it is private (see
// [PrivateDialAddr]): the one of its port, or, without one, those of
// http and https, whose default ports canonical URLs leave out. It returns
// none for a host that is not private.
func PrivateHostAddrs(host string) []string {
	var addrs []string
	for _, scheme := range []string{"http", "https"} {
		if a, ok := PrivateDialAddr(&url.URL{Scheme: scheme, Host: host}, IsPrivateAddr); ok && !slices.Contains(addrs, a) {
			addrs = append(addrs, a)
		}
	}
	return addrs
}
