package crawler

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"sync/atomic"
	"syscall"

	"github.com/webtable/webtable/crawlstore"
)

// Private addresses. A page in scope can redirect, or link under
// AllowDomains, to 127.0.0.1, 10.0.0.1, 169.254.169.254 (a cloud's
// metadata service) or [::1], and robots.txt may redirect anywhere: a
// crawler that follows them reads its own machine and network. So the
// crawler's dialer refuses every connection to a loopback, private (RFC
// 1918, RFC 4193), link-local or unspecified address
// ([crawlstore.IsPrivateAddr], the one rule, which the store applies too),
// checked on the address dialled, after DNS resolution, for every request
// (pages, robots.txt, each redirect hop), unless Config.AllowPrivate is
// set. A seed that names such an address itself (http://10.0.0.5/,
// http://localhost:8080/: a crawl of one's own intranet or machine) may be
// fetched from, and only that address: the store remembers it
// ([crawlstore.PrivateSeeder]), so a resumed crawl, which has no seeds,
// may too. A store written before it remembered them records, when it is
// migrated, the private hosts its frontier holds, as the crawls that
// queued them fetched them. A fetch through a proxy dials the proxy, which
// is the user's choice; where the proxy connects is its business.

// privateError is a connection refused because its address is private.
type privateError struct{ addr netip.Addr }

func (e *privateError) Error() string {
	return fmt.Sprintf("crawler: %s is a private address (loopback, private network or link-local): not fetched without --allow-private", e.addr)
}

// guard is the dialer's check of private addresses.
type guard struct {
	// allow turns the check off (Config.AllowPrivate).
	allow atomic.Bool
	// seeds are the dial addresses (host:port) of private seeds, allowed.
	seeds atomic.Pointer[map[string]bool]
	// proxies are the addresses (host:port) of the proxies requests go
	// through: dialling them is the user's choice.
	proxies map[string]bool
	// private says which addresses are refused (crawlstore.IsPrivateAddr;
	// tests change it).
	private func(netip.Addr) bool
}

// newGuard returns the guard of a transport whose requests go through
// proxy (one of cfg's or the environment's).
func newGuard(proxy func(*http.Request) (*url.URL, error)) *guard {
	g := &guard{proxies: map[string]bool{}, private: crawlstore.IsPrivateAddr}
	g.seeds.Store(&map[string]bool{})
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
		if g.allow.Load() || g.proxies[addr] || (*g.seeds.Load())[addr] {
			return d.DialContext(ctx, network, addr)
		}
		return checked.DialContext(ctx, network, addr)
	}
}

// privateSeeds returns the dial addresses ("host:port", as net/http dials
// them) of the seeds that name a private address: an IP address the guard
// refuses, or localhost (crawlstore.PrivateDialAddr).
func (g *guard) privateSeeds(seeds []*url.URL) []string {
	var out []string
	for _, u := range seeds {
		if a, ok := crawlstore.PrivateDialAddr(u, g.private); ok {
			out = append(out, a)
		}
	}
	return out
}

// allowSeeds sets the private seed addresses of a run: those of seeds,
// and those an earlier run recorded in the store, which records the new
// ones.
func (r *run) allowSeeds(ctx context.Context, seeds []*url.URL) error {
	g := r.c.tr.guard
	g.allow.Store(r.c.cfg.AllowPrivate)
	addrs := g.privateSeeds(seeds)
	allowed := map[string]bool{}
	for _, a := range addrs {
		allowed[a] = true
	}
	if ps, ok := has[crawlstore.PrivateSeeder](r.c.store); ok {
		old, err := ps.PrivateSeeds(ctx)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrStore, err)
		}
		var fresh []string
		for _, a := range old {
			allowed[a] = true
		}
		for _, a := range addrs {
			if !slices.Contains(old, a) {
				fresh = append(fresh, a)
			}
		}
		if len(fresh) > 0 {
			if err := ps.AddPrivateSeeds(ctx, fresh); err != nil {
				return fmt.Errorf("%w: %w", ErrStore, err)
			}
		}
	}
	g.seeds.Store(&allowed)
	return nil
}
