package urlkey

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/webtable/webtable/internal/keyspace"
)

// MaxKeyLen is the longest row key, in bytes: 4096, the row key limit of
// Cloud Bigtable. Longer URLs are refused with [ErrKeyTooLong].
const MaxKeyLen = keyspace.MaxKeyLen

// parts holds the pieces of an absolute http(s) URL, as slices of the input,
// before canonicalisation (except scheme and port, which are canonical).
type parts struct {
	scheme string // "http" or "https"
	host   string // between userinfo and port; brackets kept on IPv6
	port   string // canonical: no leading zeros, "" for the default port
	path   string // "" or starting with '/'
	query  string // without '?'
}

// split cuts raw into parts. It accepts only absolute URLs with an
// authority (scheme://host...). Like browsers, it ignores leading and
// trailing spaces and control characters and any tab or newline inside.
func split(raw string) (parts, error) {
	var p parts
	raw = clean(raw)
	colon := -1
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == ':' {
			colon = i
			break
		}
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' ||
			i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			break
		}
	}
	if colon <= 0 {
		return p, withDetail(ErrScheme, "no scheme")
	}
	switch scheme := raw[:colon]; {
	case strings.EqualFold(scheme, "http"):
		p.scheme = "http"
	case strings.EqualFold(scheme, "https"):
		p.scheme = "https"
	default:
		return p, withDetail(ErrScheme, strconv.Quote(scheme))
	}
	rest := raw[colon+1:]
	if !strings.HasPrefix(rest, "//") {
		return p, ErrNoHost
	}
	rest = rest[2:]
	end := len(rest)
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; c == '/' || c == '?' || c == '#' {
			end = i
			break
		}
	}
	authority := rest[:end]
	rest = rest[end:]
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	p.path = rest
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		p.path, p.query = rest[:i], rest[i+1:]
	}
	hostport := authority[strings.LastIndexByte(authority, '@')+1:]
	p.host = hostport
	var port string
	if strings.HasPrefix(hostport, "[") {
		j := strings.IndexByte(hostport, ']')
		if j < 0 {
			return p, withDetail(ErrBadHost, "unclosed IPv6 literal")
		}
		p.host = hostport[:j+1]
		switch after := hostport[j+1:]; {
		case after == "":
		case after[0] == ':':
			port = after[1:]
		default:
			return p, withDetail(ErrBadHost, "junk after IPv6 literal")
		}
	} else if j := strings.LastIndexByte(hostport, ':'); j >= 0 {
		p.host, port = hostport[:j], hostport[j+1:]
	}
	if p.host == "" {
		return p, ErrNoHost
	}
	var err error
	p.port, err = canonPort(port, p.scheme)
	return p, err
}

// clean drops leading and trailing C0 controls and spaces, and every tab,
// CR and LF, as the WHATWG URL parser does. It allocates only if there is a
// tab or newline to remove inside raw.
func clean(raw string) string {
	for len(raw) > 0 && raw[0] <= ' ' {
		raw = raw[1:]
	}
	for len(raw) > 0 && raw[len(raw)-1] <= ' ' {
		raw = raw[:len(raw)-1]
	}
	if !strings.ContainsAny(raw, "\t\n\r") {
		return raw
	}
	b := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c != '\t' && c != '\n' && c != '\r' {
			b = append(b, c)
		}
	}
	return string(b)
}

// canonPort checks a port and returns it without leading zeros, or "" for
// an empty port and the default port of scheme.
func canonPort(port, scheme string) (string, error) {
	if port == "" {
		return "", nil
	}
	v := 0
	for i := 0; i < len(port); i++ {
		c := port[i]
		if c < '0' || c > '9' {
			return "", withDetail(ErrBadPort, strconv.Quote(port))
		}
		if v = v*10 + int(c-'0'); v > 65535 {
			return "", withDetail(ErrBadPort, strconv.Quote(port))
		}
	}
	if v == 80 && scheme == "http" || v == 443 && scheme == "https" {
		return "", nil
	}
	for len(port) > 1 && port[0] == '0' {
		port = port[1:]
	}
	return port, nil
}

// appendKey appends the row key of p and checks its length.
func appendKey(dst []byte, p *parts) ([]byte, error) {
	host, kind, err := canonHost(p.host)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	dst = appendReversed(dst, host, kind)
	if p.port != "" {
		dst = append(dst, ':')
		dst = append(dst, p.port...)
	}
	dst = appendPath(dst, p.path)
	if p.query != "" {
		dst = append(dst, '?')
		dst = appendQuery(dst, p.query)
	}
	if len(dst)-start > MaxKeyLen {
		return dst, withDetail(ErrKeyTooLong, strconv.Itoa(len(dst)-start)+" bytes")
	}
	return dst, nil
}

// Key returns the row key of an absolute http or https URL: the host
// reversed label by label, the port if it is not the default, the path and
// the query, all canonicalised (see the package documentation):
//
//	http://www.cnn.com/ -> com.cnn.www/
//
// The error is an [*Error] wrapping [ErrScheme], [ErrNoHost], [ErrBadHost],
// [ErrBadPort], [ErrHostTooLong] or [ErrKeyTooLong].
func Key(raw string) (string, error) {
	p, err := split(raw)
	if err == nil {
		// NB: a stack buffer for the common case, so that the only
		// allocation is the returned string.
		var buf [256]byte
		var b []byte
		if b, err = appendKey(buf[:0], &p); err == nil {
			return string(b), nil
		}
	}
	return "", &Error{Op: "key", URL: raw, Err: err}
}

// Canonical returns the canonical form of an absolute http or https URL:
// scheme and host lower-case, host in punycode, default port, user info and
// fragment dropped, path and query canonicalised as for [Key]. Its
// String() is the canonical URL, and KeyOf of it equals Key(raw). It fails
// exactly when [Key] fails, with the same errors.
func Canonical(raw string) (*url.URL, error) {
	u, err := canonical(raw)
	if err != nil {
		return nil, &Error{Op: "canonical", URL: raw, Err: err}
	}
	return u, nil
}

func canonical(raw string) (*url.URL, error) {
	p, err := split(raw)
	if err != nil {
		return nil, err
	}
	host, _, err := canonHost(p.host)
	if err != nil {
		return nil, err
	}
	path := string(appendPath(nil, p.path))
	query := ""
	if p.query != "" {
		query = string(appendQuery(nil, p.query))
	}
	n := len(host) + len(path) // the reversed host is as long as the host
	if p.port != "" {
		host += ":" + p.port
		n += 1 + len(p.port)
	}
	if query != "" {
		n += 1 + len(query)
	}
	if n > MaxKeyLen {
		return nil, withDetail(ErrKeyTooLong, strconv.Itoa(n)+" bytes")
	}
	u := &url.URL{Scheme: p.scheme, Host: host, RawQuery: query}
	u.Path, err = url.PathUnescape(path)
	if err != nil {
		// Unreachable: appendPath writes only valid escapes.
		return nil, withDetail(ErrBadKey, err.Error())
	}
	// NB: set RawPath only when it differs from Go's own escaping of Path,
	// as url.Parse does, so that canonical URLs compare equal to parsed ones.
	if u.EscapedPath() != path {
		u.RawPath = path
	}
	return u, nil
}

// KeyOf returns the row key of a URL returned by [Canonical] (or parsed from
// its String()). It does no checking and no canonicalisation: for any other
// URL use Key(u.String()).
func KeyOf(u *url.URL) string {
	host, port := splitHostPort(u.Host)
	kind := kindName
	switch {
	case strings.HasPrefix(host, "["):
		kind = kindIPv6
	case endsInNumber(host):
		kind = kindIPv4
	}
	path := u.EscapedPath()
	var buf [256]byte
	b := appendReversed(buf[:0], host, kind)
	if port != "" {
		b = append(b, ':')
		b = append(b, port...)
	}
	if path == "" {
		path = "/"
	}
	b = append(b, path...)
	if u.RawQuery != "" {
		b = append(b, '?')
		b = append(b, u.RawQuery...)
	}
	return string(b)
}

// splitHostPort splits host[:port], where host may be a bracketed IPv6
// literal. The port is "" if absent.
func splitHostPort(hostport string) (host, port string) {
	i := strings.LastIndexByte(hostport, ':')
	if i < 0 || strings.LastIndexByte(hostport, ']') > i {
		return hostport, ""
	}
	return hostport[:i], hostport[i+1:]
}

// URL returns the URL whose row key is key, with the given scheme (http or
// https; the key does not hold the scheme, the crawler keeps it in a cell):
//
//	com.cnn.www/index.html, http -> http://www.cnn.com/index.html
//
// Key(URL(Key(u), s)) == Key(u) when s is the scheme of u. A key with port
// 80 cannot have come from an http URL (nor 443 from https), so URL refuses
// that pairing; other strings that Key never returns are refused too, with
// [ErrBadKey].
func URL(key, scheme string) (string, error) {
	var s string
	switch {
	case strings.EqualFold(scheme, "http"):
		s = "http"
	case strings.EqualFold(scheme, "https"):
		s = "https"
	default:
		return "", &Error{Op: "url", URL: key, Err: withDetail(ErrScheme, strconv.Quote(scheme))}
	}
	var host string
	rest := key
	if strings.HasPrefix(key, "[") {
		i := strings.IndexByte(key, ']')
		if i < 0 {
			return "", &Error{Op: "url", URL: key, Err: ErrBadKey}
		}
		host, rest = key[:i+1], key[i+1:]
	} else {
		i := strings.IndexAny(key, ":/")
		if i < 0 {
			return "", &Error{Op: "url", URL: key, Err: withDetail(ErrBadKey, "no path")}
		}
		host, rest = key[:i], key[i:]
		if !startsWithNumber(host) {
			host = string(appendReversed(make([]byte, 0, len(host)), host, kindName))
		}
	}
	u := s + "://" + host + rest
	// NB: the surest check that key is a row key, and of a URL with this
	// scheme, is that it is the key of the URL we built.
	if k, err := Key(u); err != nil || k != key {
		return "", &Error{Op: "url", URL: key, Err: withDetail(ErrBadKey, "not the key of "+strconv.Quote(u))}
	}
	return u, nil
}

// Referrer returns the form of a URL used as the qualifier of an anchor:
// column in the WebTable: the canonical URL without its scheme, host
// forward (not reversed), port kept if not the default, no '/' after a bare
// host:
//
//	http://CNNSI.com/ -> cnnsi.com
//	https://www.example.org/blog/post.html#c -> www.example.org/blog/post.html
//
// It returns "" if u is not a valid http or https URL.
func Referrer(u *url.URL) string {
	c, err := canonical(u.String())
	if err != nil {
		return ""
	}
	path := c.EscapedPath()
	if path == "/" && c.RawQuery == "" {
		return c.Host
	}
	if c.RawQuery == "" {
		return c.Host + path
	}
	return c.Host + path + "?" + c.RawQuery
}
