package urlkey

import "strings"

// HostKey returns the canonical form of the authority of an http or https
// URL (host[:port], as [net/url.URL.Host] holds it), for keying per-host
// structures such as politeness slots, robots.txt caches and failure counts,
// so that every spelling of one server gets one key:
//
//	http, LOCALHOST.:080 -> localhost
//	http, Example.COM:8080 -> example.com:8080
//	https, example.com:443 -> example.com
//	http, example.com:00443 -> example.com:443
//	http, 127.1:08080 -> 127.0.0.1:8080
//	http, [::1]:0 -> [::1]:0
//
// The host is canonicalised as in [Key] (lower case, punycode, no trailing
// dot, IPv4 in dotted decimal, IPv6 in brackets in RFC 5952 form) but not
// reversed; the port is read as a decimal number, so leading zeros go, and
// it is dropped when it is the scheme's default (80 for http, 443 for https;
// scheme is compared without case). An empty port ("host:") is no port.
// For a URL u returned by [Canonical], HostKey(u.Scheme, u.Host) is u.Host.
// A canonical name without IDN labels, with or without a port, costs no
// allocation.
//
// The error is an [*Error] with Op "hostkey" wrapping [ErrNoHost],
// [ErrBadHost], [ErrBadPort] or [ErrHostTooLong].
func HostKey(scheme, hostport string) (string, error) {
	host, port := splitHostPort(hostport)
	s := strings.ToLower(scheme) // NB: no allocation when already lower case
	h, _, err := canonHost(host)
	if err == nil {
		port, err = canonPort(port, s)
	}
	if err != nil {
		return "", &Error{Op: "hostkey", URL: hostport, Err: err}
	}
	if port == "" {
		return h, nil
	}
	if len(hostport) == len(h)+1+len(port) && strings.HasPrefix(hostport, h) && strings.HasSuffix(hostport, port) {
		return hostport, nil
	}
	return h + ":" + port, nil
}
