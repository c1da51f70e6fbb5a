package realweb

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
)

// Behaviour is what an origin (scheme, host, port) does when a client
// reaches for it through the proxy.
type Behaviour int

// The behaviours. Only [Serves] and [RobotsReset] answer HTTP requests; the
// others are the ways the real web is unreachable.
const (
	// Serves: the origin answers every request (200, a redirect, or 404).
	// For https the proxy tunnels CONNECT to a TLS server whose
	// certificate is signed by the web's test CA.
	Serves Behaviour = iota
	// Refused: the proxy answers CONNECT with 403 Forbidden, as a proxy
	// whose policy blocks the host does. The client sees an error
	// before any TLS.
	Refused
	// Closed: nothing listens on the origin's port. The proxy dials a
	// closed loopback port, fails, and answers 502 Bad Gateway (to a
	// CONNECT, an error for the client; to a plain http request, a 502
	// response).
	Closed
	// TLSAlert: CONNECT succeeds (200), then the server reads the
	// ClientHello and answers with a fatal handshake_failure alert.
	TLSAlert
	// TLSUntrusted: CONNECT succeeds, then the server presents a
	// certificate for the host signed by a CA nobody is told to trust.
	TLSUntrusted
	// Reset: the proxy resets the TCP connection (SO_LINGER 0, then
	// close: an RST) on reading the CONNECT or the plain http request.
	Reset
	// RobotsReset: the origin serves its pages, but a request for
	// /robots.txt is answered by a reset, so robots.txt is unreachable
	// (RFC 9309 2.3.1.4: assume complete disallow).
	RobotsReset
)

var behaviourNames = [...]string{"serves", "refused", "closed", "tls-alert", "tls-untrusted", "reset", "robots-reset"}

// String names the behaviour, as doc.go does: "serves", "refused",
// "closed", "tls-alert", "tls-untrusted", "reset", "robots-reset".
func (b Behaviour) String() string {
	if b < 0 || int(b) >= len(behaviourNames) {
		return fmt.Sprintf("Behaviour(%d)", int(b))
	}
	return behaviourNames[b]
}

// Origin is one origin of the web and what it does.
type Origin struct {
	// URL is the origin as scheme://host, with :port only when the port
	// is not the scheme's default (https://www.real.test:8444).
	URL       string
	Behaviour Behaviour
}

// content is what the origins that serve answer: the one place both the
// HTTP handlers and the oracle read, so the two cannot disagree.
type content interface {
	// lookup answers a request for path (decoded, starting with "/") on
	// an origin that serves. hostport has no default port.
	lookup(scheme, hostport, path string) response
	// robots returns the robots.txt of an origin; found is false for a
	// 404.
	robots(scheme, hostport string) robotsFile
	// seeds are the URLs a crawl of the web starts from.
	seeds() []string
}

// response is one answer of an origin.
type response struct {
	status   int    // 200, 301, 302 or 404
	location string // absolute URL, for a redirect
	ctype    string // Content-Type of a 200
	title    string // a generated page's title
	links    []string
	body     []byte // a static file's bytes; nil for a generated page
	file     string // a static file's path on disk, when body is read lazily
	pad      string // a generated page's filler paragraph
}

// robotsFile is an origin's robots.txt, with the rules the oracle applies
// (one group, User-agent: *).
type robotsFile struct {
	found    bool
	text     string
	disallow []string // path prefixes
}

func (rf robotsFile) allows(path string) bool {
	for _, p := range rf.disallow {
		if strings.HasPrefix(path, p) {
			return false
		}
	}
	return true
}

// Web is a running web on loopback: one HTTP proxy in front of every
// origin. Its methods are safe for concurrent use.
type Web struct {
	content content
	origins map[string]Behaviour // origin URL -> behaviour; absent: Closed
	// httpsDefault is the behaviour of an https origin not in origins:
	// Closed, or Refused for a web of ServeDirs.
	httpsDefault Behaviour
	inWeb        func(hostport string) bool
	ca           *authority
	stats        stats

	proxy     *http.Server
	proxyAddr string
	tlsSrv    *http.Server
	tlsAddr   string
	untrusted *http.Server
	untrAddr  string
	alertLn   net.Listener
	closedAdr string // a loopback port nobody listens on

	mu      sync.Mutex
	closed  bool
	hijacks map[net.Conn]struct{} // tunnels and the like, closed by Close
	wg      sync.WaitGroup

	oracleOnce sync.Once
	oracle     *oracleResult
}

// start serves c through a new proxy; origins lists every origin with its
// behaviour (an origin not listed is Closed, or httpsDefault for https).
func start(c content, origins map[string]Behaviour, httpsDefault Behaviour, inWeb func(string) bool) (_ *Web, err error) {
	w := &Web{content: c, origins: origins, httpsDefault: httpsDefault, inWeb: inWeb, hijacks: map[net.Conn]struct{}{}}
	w.stats.init()
	defer func() {
		if err != nil {
			w.Close() // NB: w, not the result, which is nil by now
		}
	}()
	if w.ca, err = newAuthority("realweb test CA"); err != nil {
		return nil, err
	}
	other, err := newAuthority("realweb untrusted CA")
	if err != nil {
		return nil, err
	}
	quiet := log.New(io.Discard, "", 0)

	// The closed port: listen, note the address, stop listening.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("realweb: %w", err)
	}
	w.closedAdr = ln.Addr().String()
	ln.Close()

	tlsSrv := &http.Server{
		Handler:  http.HandlerFunc(w.serveTLS),
		ErrorLog: quiet,
		TLSConfig: &tls.Config{
			MinVersion: tls.VersionTLS12,
			GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
				if hello.ServerName == "" {
					return nil, fmt.Errorf("realweb: no server name")
				}
				return w.ca.leaf(hello.ServerName)
			},
		},
	}
	if w.tlsAddr, err = w.listenAndServe(tlsSrv); err != nil {
		return nil, err
	}
	w.tlsSrv = tlsSrv

	untrusted := &http.Server{
		Handler:  http.HandlerFunc(w.serveTLS),
		ErrorLog: quiet,
		TLSConfig: &tls.Config{
			GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
				return other.leaf(hello.ServerName)
			},
		},
	}
	if w.untrAddr, err = w.listenAndServe(untrusted); err != nil {
		return nil, err
	}
	w.untrusted = untrusted

	if w.alertLn, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, fmt.Errorf("realweb: %w", err)
	}
	alertLn := w.alertLn
	w.goServe(func() { w.serveAlerts(alertLn) })

	proxy := &http.Server{Handler: http.HandlerFunc(w.serveProxy), ErrorLog: quiet}
	if w.proxyAddr, err = w.listenAndServe(proxy); err != nil {
		return nil, err
	}
	w.proxy = proxy
	return w, nil
}

// listenAndServe serves srv on a new port of 127.0.0.1, over TLS when it
// has a TLSConfig, until Close; it returns the port's address.
func (w *Web) listenAndServe(srv *http.Server) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("realweb: %w", err)
	}
	if srv.TLSConfig != nil {
		w.goServe(func() { srv.ServeTLS(ln, "", "") })
	} else {
		w.goServe(func() { srv.Serve(ln) })
	}
	return ln.Addr().String(), nil
}

// goServe runs f on a goroutine that Close waits for.
func (w *Web) goServe(f func()) {
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		f()
	}()
}

// Proxy returns the URL of the web's HTTP proxy, http://127.0.0.1:PORT
// (crawl --proxy). It answers absolute-form http requests and CONNECT.
func (w *Web) Proxy() string { return "http://" + w.proxyAddr }

// Seeds returns the URLs a crawl of the whole web starts from.
func (w *Web) Seeds() []string { return w.content.seeds() }

// CACertPEM returns the certificate, PEM-encoded, of the test CA that signs
// every certificate the web's https origins present (except
// [TLSUntrusted] ones). The CA is made at start, in memory (ECDSA P-256),
// and valid for a day.
func (w *Web) CACertPEM() []byte { return w.ca.pem() }

// WriteCACert writes [Web.CACertPEM] to the file at path (crawl --ca-cert).
func (w *Web) WriteCACert(path string) error {
	if err := os.WriteFile(path, w.CACertPEM(), 0o644); err != nil {
		return fmt.Errorf("realweb: writing CA certificate: %w", err)
	}
	return nil
}

// CertPool returns a pool holding the test CA only.
func (w *Web) CertPool() *x509.CertPool { return w.ca.pool() }

// Client returns an http.Client that goes through the proxy and trusts the
// test CA, follows no redirect, and keeps no cookies: a test's simplest
// crawler. Each call returns a new client with its own connections.
func (w *Web) Client() *http.Client {
	pu, _ := url.Parse(w.Proxy())
	return &http.Client{
		Transport: &http.Transport{
			Proxy:             http.ProxyURL(pu),
			TLSClientConfig:   &tls.Config{RootCAs: w.CertPool()},
			ForceAttemptHTTP2: true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Origins returns every origin of the web with its behaviour, sorted by
// URL. An origin not listed is [Closed] (the proxy answers 502), except an
// https origin of a web of [ServeDirs]: [Refused].
func (w *Web) Origins() []Origin {
	out := make([]Origin, 0, len(w.origins))
	for u, b := range w.origins {
		out = append(out, Origin{URL: u, Behaviour: b})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out
}

// Behaviour returns what the origin of rawURL (any URL of it, or the
// origin itself, scheme://host[:port]) does: [Closed] for an origin the
// web does not have ([Refused] for https in a web of [ServeDirs]).
func (w *Web) Behaviour(rawURL string) Behaviour {
	u, err := url.Parse(rawURL)
	if err != nil {
		return Closed
	}
	return w.behaviour(u.Scheme, hostPort(u.Scheme, u.Host))
}

func (w *Web) behaviour(scheme, hostport string) Behaviour {
	b, ok := w.origins[scheme+"://"+hostport]
	if !ok && scheme == "https" {
		return w.httpsDefault
	}
	if !ok {
		return Closed
	}
	return b
}

// Close stops the proxy and every server, closes every tunnel, and waits
// for their goroutines.
func (w *Web) Close() {
	w.mu.Lock()
	w.closed = true
	for c := range w.hijacks {
		c.Close()
	}
	w.mu.Unlock()
	for _, s := range []*http.Server{w.proxy, w.tlsSrv, w.untrusted} {
		if s != nil {
			s.Close()
		}
	}
	if w.alertLn != nil {
		w.alertLn.Close()
	}
	w.wg.Wait()
}

// track registers conns to be closed by Close and adds goroutines to the
// goroutines Close waits for; it reports false (and closes conns) when the
// web is closing. NB: the Add is under the lock that Close takes before
// it waits, so no Add races with the Wait.
func (w *Web) track(goroutines int, conns ...net.Conn) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		w.hijacks[c] = struct{}{}
	}
	w.wg.Add(goroutines)
	return true
}

func (w *Web) untrack(conns ...net.Conn) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range conns {
		delete(w.hijacks, c)
		c.Close()
	}
}

// hostPort returns host[:port] without the scheme's default port,
// lower-cased.
func hostPort(scheme, host string) string {
	host = strings.ToLower(host)
	h, p, err := net.SplitHostPort(host)
	if err != nil {
		return strings.TrimSuffix(host, ".")
	}
	h = strings.TrimSuffix(h, ".")
	if (scheme == "http" && p == "80") || (scheme == "https" && p == "443") || p == "" {
		return h
	}
	return net.JoinHostPort(h, p)
}

// hostName returns hostport without its port.
func hostName(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}
