package webui

import (
	"net"
	"net/http"
	"net/netip"

	"github.com/webtable/webtable/urlkey"
)

// hostGuard decides which Host headers the interface answers (see
// Options.ListenAddr).
//
// NB: DNS rebinding. A page the user visits can point a name of its own
// at 127.0.0.1 and then read the interface from its own origin: the
// browser sends that name as Host. Only the listen address itself, a
// loopback name, or (listening on every interface) an IP literal is
// answered, and only with the listen port.
type hostGuard struct {
	host, port string // canonical, from the listen address; "" host: any interface
}

func newHostGuard(listenAddr string) (*hostGuard, bool) {
	if listenAddr == "" {
		return nil, false
	}
	k, err := urlkey.HostKey("http", listenAddr)
	if err != nil {
		// An address urlkey refuses (":8080"): every interface.
		_, port, _ := net.SplitHostPort(listenAddr)
		return &hostGuard{port: port}, true
	}
	h, p := splitKey(k)
	if a, err := netip.ParseAddr(h); err == nil && a.IsUnspecified() {
		h = ""
	}
	return &hostGuard{host: h, port: p}, true
}

// splitKey splits a host key into its host (IPv6 without brackets) and
// port ("80" when it has none).
func splitKey(k string) (host, port string) {
	h, p, err := net.SplitHostPort(k)
	if err != nil {
		h, p = k, "80"
		if len(h) > 1 && h[0] == '[' {
			h = h[1 : len(h)-1]
		}
	}
	return h, p
}

// allows reports whether a request's Host header names the interface.
func (g *hostGuard) allows(hostHeader string) bool {
	k, err := urlkey.HostKey("http", hostHeader)
	if err != nil {
		return false
	}
	h, p := splitKey(k)
	if p != g.port {
		return false
	}
	if h == g.host || h == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && (a.IsLoopback() || g.host == "")
}

// misdirected answers a request whose Host is not the interface's own.
func misdirected(rw http.ResponseWriter, host string) {
	http.Error(rw, "webui: this server answers only to its own address or a loopback name, not Host "+quoteHost(host), http.StatusMisdirectedRequest)
}

func quoteHost(h string) string {
	if len(h) > 100 {
		h = h[:100] + "..."
	}
	return `"` + h + `"`
}
