package crawler

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// An origin is a scheme, host and port (RFC 6454), written
// "https://docs.python.org" (the default port left out). Failures belong to
// an origin: a connection refused on https://h holds back the https pages
// of h, not its http ones. Politeness belongs to the server: the delay,
// PerHost and Crawl-delay are kept per host name and port as the frontier
// groups URLs (url.URL.Host of a canonical URL), so http://h/ and
// https://h/, on their default ports, share them.

// MaxOriginFailures is how many requests to one origin in a row may fail
// without an HTTP response (a reset, a timeout, garbage) before the origin
// is held back for the rest of the run; any response starts the count
// again, so a server that breaks on a few pages keeps its other pages. A refusal that is not going to change
// within a run (no such host, nothing listening, a proxy refusing CONNECT,
// a TLS certificate not trusted) holds it back at once.
const MaxOriginFailures = 8

// fallback reports whether the entries of an origin held back for r may be
// fetched through the host's other scheme instead: only when the origin
// could not be reached at all (a server that answered asked for a pause,
// and politeness is the server's, whatever the scheme).
func fallback(r crawlstore.HoldReason) bool { return r == crawlstore.HoldUnreachable }

// FailureKind classifies a request that got no HTTP response.
type FailureKind string

// The kinds of failures without a response, counted in Stats.Failures.
const (
	FailDNS      FailureKind = "dns"       // the host name does not resolve
	FailRefused  FailureKind = "refused"   // nothing listens on the port
	FailConnect  FailureKind = "connect"   // the proxy refused CONNECT
	FailTLS      FailureKind = "tls"       // TLS handshake or certificate
	FailReset    FailureKind = "reset"     // connection reset or closed before the response
	FailTimeout  FailureKind = "timeout"   // Config.Timeout passed
	FailProxy    FailureKind = "proxy"     // the proxy itself could not be reached
	FailPrivate  FailureKind = "private"   // a private address, refused (Config.AllowPrivate)
	FailTransfer FailureKind = "transport" // any other failure before a response
)

// definitive reports whether one failure of this kind holds an origin back
// at once: it will not change within a run.
func (k FailureKind) definitive() bool {
	switch k {
	case FailDNS, FailRefused, FailConnect, FailTLS, FailPrivate:
		return true
	}
	return false
}

// connectError is a proxy's refusal of CONNECT (any status but 200),
// returned by the transport's OnProxyConnectResponse.
type connectError struct {
	target string
	status string
}

func (e *connectError) Error() string {
	return fmt.Sprintf("proxy refused CONNECT %s: %s", e.target, e.status)
}

// classify returns the kind of a request failure without a response, and
// false for an error that is not one (a refused redirect, a body cut off, a
// run stopping).
func classify(err error) (FailureKind, bool) {
	if err == nil {
		return "", false
	}
	var re *redirectError
	var be *bodyError
	if errors.As(err, &re) || errors.As(err, &be) || errors.Is(err, errStopped) || errors.Is(err, errRobots) {
		return "", false
	}
	var ce *connectError
	var pe *privateError
	var dns *net.DNSError
	var op *net.OpError
	var rh tls.RecordHeaderError
	var alert tls.AlertError
	var verify *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	var to interface{ Timeout() bool }
	switch {
	case errors.As(err, &pe):
		return FailPrivate, true
	case errors.As(err, &ce):
		return FailConnect, true
	case errors.As(err, &dns):
		return FailDNS, true
	case errors.As(err, &rh), errors.As(err, &alert), errors.As(err, &verify),
		errors.As(err, &ua), errors.As(err, &hn), errors.As(err, &ci):
		return FailTLS, true
	case errors.As(err, &op) && op.Op == "proxyconnect" && errors.Is(err, syscall.ECONNREFUSED):
		return FailProxy, true
	case errors.Is(err, syscall.ECONNREFUSED):
		return FailRefused, true
	// NB: net/http has no error types for a connection closed before the
	// response ("http: server closed idle connection") or for most TLS
	// handshake failures, so their text is matched; anything else is
	// FailTransfer, counted against its origin all the same.
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.EPIPE), strings.Contains(err.Error(), "server closed"):
		return FailReset, true
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &to) && to.Timeout():
		return FailTimeout, true
	case strings.Contains(err.Error(), "tls: "):
		return FailTLS, true
	}
	return FailTransfer, true
}

// originOf returns the origin of a URL: "scheme://host[:port]".
func originOf(u *url.URL) string { return u.Scheme + "://" + serverKey(u.Scheme, u.Host) }

// failedOrigin returns the URL of the request a fetch error names (a
// redirect hop's, for a failure after a redirect), or nil.
func failedOrigin(err error) *url.URL {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
			return u
		}
	}
	return nil
}

// serverKey is the per-host key of a host as written in a URL of scheme
// (urlkey.HostKey: lower case, no trailing dot, the port read as a number
// and dropped when it is the scheme's default), so that
// http://LOCALHOST.:080/ and http://localhost/ are one server. A host
// HostKey refuses is its own key, lower case: a request to it fails on its
// own.
func serverKey(scheme, host string) string {
	if k, err := urlkey.HostKey(scheme, host); err == nil {
		return k
	}
	return strings.ToLower(host)
}

// schemeIndex is the index of an origin's state in its host's: 0 for
// http, 1 for https (the only schemes fetched).
func schemeIndex(scheme string) int {
	if scheme == "https" {
		return 1
	}
	return 0
}

// schemeNames are the schemes by schemeIndex.
var schemeNames = [2]string{"http", "https"}

// entryScheme is schemeIndex of a canonical URL's scheme.
func entryScheme(canonical string) int {
	if strings.HasPrefix(canonical, "https:") {
		return 1
	}
	return 0
}

// otherSchemeURL returns a canonical URL on the other scheme (http <-> https).
// Only URLs without a port have one: a port belongs to its scheme.
func otherSchemeURL(canonical string) string {
	if rest, ok := strings.CutPrefix(canonical, "https://"); ok {
		return "http://" + rest
	}
	return "https://" + strings.TrimPrefix(canonical, "http://")
}

// responseFailure is the transport's check of a proxy's answer to CONNECT
// (http.Transport.OnProxyConnectResponse): anything but 200 is a refusal
// of that origin, told apart from other failures by its type.
func responseFailure(connectReq *http.Request, resp *http.Response) error {
	if resp.StatusCode == http.StatusOK {
		return nil
	}
	return &connectError{target: connectReq.Host, status: resp.Status}
}
