package crawler

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
)

// Private addresses. A page in scope can redirect, or link under
// AllowDomains, to 127.0.0.1, 10.0.0.1, 169.254.169.254 (a cloud's
// metadata service) or [::1], and robots.txt may redirect anywhere: a
// crawler that follows them reads its own machine and network. So the
// crawler's dialer refuses every connection to a loopback, private (RFC
// 1918, RFC 4193), link-local or unspecified address, checked on the
// address dialled, after DNS resolution, for every request (pages,
// robots.txt, each redirect hop), unless Config.AllowPrivate is set or a
// seed itself names such an address (a crawl of one's own intranet). A
// fetch through a proxy dials the proxy, which is the user's choice; where
// the proxy connects is its business.

// privateError is a connection refused because its address is private.
type privateError struct{ addr netip.Addr }

func (e *privateError) Error() string {
	return fmt.Sprintf("crawler: %s is a private address (loopback, private network or link-local): not fetched without --allow-private", e.addr)
}

// isPrivate reports whether a is an address the crawler does not connect
// to by default.
func isPrivate(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsUnspecified()
}

// guard is the dialer's check of private addresses.
type guard struct {
	// allow turns the check off for the current run (Config.AllowPrivate,
	// or a seed names a private address).
	allow atomic.Bool
	// proxies are the addresses (host:port) of the proxies requests go
	// through: dialling them is the user's choice.
	proxies map[string]bool
	// private says which addresses are refused (isPrivate; tests change it).
	private func(netip.Addr) bool
}

// newGuard returns the guard of a transport whose requests go through
// proxy (one of cfg's or the environment's).
func newGuard(proxy func(*http.Request) (*url.URL, error)) *guard {
	g := &guard{proxies: map[string]bool{}, private: isPrivate}
	for _, target := range []string{"http://example.invalid/", "https://example.invalid/"} {
		req, _ := http.NewRequest(http.MethodGet, target, nil)
		if u, err := proxy(req); err == nil && u != nil {
			port := u.Port()
			if port == "" {
				port = map[string]string{"https": "443", "socks5": "1080"}[u.Scheme]
				if port == "" {
					port = "80"
				}
			}
			g.proxies[net.JoinHostPort(u.Hostname(), port)] = true
		}
	}
	return g
}

// control is net.Dialer.Control: it sees the address being dialled, after
// resolution, and refuses a private one.
func (g *guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return nil // not an IP address: nothing to check
	}
	if g.private(ap.Addr()) {
		return &privateError{ap.Addr().Unmap()}
	}
	return nil
}

// dialContext wraps d: a dial of a proxy, or with the check off, goes on
// unchecked; any other is checked.
func (g *guard) dialContext(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	checked := *d
	checked.Control = g.control
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if g.allow.Load() || g.proxies[addr] {
			return d.DialContext(ctx, network, addr)
		}
		return checked.DialContext(ctx, network, addr)
	}
}

// seedsPrivate reports whether a seed names a private address: an IP
// address the guard refuses, or localhost.
func (g *guard) seedsPrivate(seeds []*url.URL) bool {
	for _, u := range seeds {
		h := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
		if h == "localhost" || strings.HasSuffix(h, ".localhost") {
			return true
		}
		if a, err := netip.ParseAddr(h); err == nil && g.private(a) {
			return true
		}
	}
	return false
}
