package urlkey

import (
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// MaxHostLen is the longest host accepted, in bytes of its ASCII (punycode)
// form without a trailing dot: the DNS limit of RFC 1035.
const MaxHostLen = 253

// hostKind says how a canonical host is written in a row key.
type hostKind uint8

const (
	kindName hostKind = iota // reversed label by label
	kindIPv4                 // dotted decimal, not reversed
	kindIPv6                 // in brackets, not reversed
)

// profile maps hosts the way browsers do (the WHATWG URL standard's "domain
// to ASCII" with beStrict false): UTS #46 mapping for lookup, non-transitional
// (ß stays ß), Bidi and ContextJ rules checked, but no STD3 rules (so '_' is
// allowed), no hyphen rules (r3---sn-abc is common) and no DNS length checks
// (we check empty labels and the total length ourselves).
//
// NB: with StrictDomainName(false) idna lets through ASCII such as ' ', '*'
// or '<'; checkASCIIHost refuses everything but [a-z0-9-_.] afterwards.
var profile = idna.New(
	idna.MapForLookup(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
	idna.VerifyDNSLength(false),
	idna.BidiRule(),
)

// canonHost returns the canonical form of the host of a URL authority, not
// reversed: lower-case ASCII, IDN labels in punycode, no trailing dot, IPv4
// in dotted decimal, IPv6 in brackets in RFC 5952 form. It allocates only
// when the host is not already canonical.
func canonHost(h string) (string, hostKind, error) {
	if h == "" {
		return "", 0, ErrNoHost
	}
	if h[0] == '[' {
		return canonIPv6(h)
	}
	if len(h) > MaxKeyLen {
		// NB: refused before mapping, which could shrink it (ignored code
		// points) but costs time in proportion to its length.
		return "", 0, ErrHostTooLong
	}
	s := h
	if needsMapping(h) {
		var err error
		if s, err = mapHost(h); err != nil {
			return "", 0, err
		}
	} else if hasUpper(h) {
		s = strings.ToLower(h)
	}
	s = strings.TrimSuffix(s, ".")
	if endsInNumber(s) {
		v, ok := parseIPv4(s)
		if !ok {
			return "", 0, withDetail(ErrBadHost, "invalid IPv4 address")
		}
		if ip := formatIPv4(v); ip != s {
			s = ip
		}
		return s, kindIPv4, nil
	}
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return "", 0, withDetail(ErrBadHost, "empty label")
	}
	if len(s) > MaxHostLen {
		return "", 0, ErrHostTooLong
	}
	return s, kindName, nil
}

// needsMapping reports whether h must go through IDNA mapping: it holds a
// byte other than [a-zA-Z0-9-_.] or a label starting "xn--" (whose punycode
// must be checked). Hosts that need no mapping map to themselves lower-cased.
func needsMapping(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if hostByte[c] == 0 {
			return true
		}
		if (i == 0 || h[i-1] == '.') && (c == 'x' || c == 'X') && len(h)-i >= 4 &&
			(h[i+1] == 'n' || h[i+1] == 'N') && h[i+2] == '-' && h[i+3] == '-' {
			return true
		}
	}
	return false
}

// hostByte marks the bytes of a host that needs no mapping: 1 for
// [a-z0-9-_.], 2 for [A-Z].
var hostByte = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = 1
		t[c-'a'+'A'] = 2
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = 1
	}
	t['-'], t['_'], t['.'] = 1, 1, 1
	return t
}()

func hasUpper(h string) bool {
	for i := 0; i < len(h); i++ {
		if hostByte[h[i]] == 2 {
			return true
		}
	}
	return false
}

// mapHost percent-decodes h and maps it with UTS #46, then checks that the
// result holds only [a-z0-9-_.].
func mapHost(h string) (string, error) {
	if strings.IndexByte(h, '%') >= 0 {
		b := make([]byte, 0, len(h))
		for i := 0; i < len(h); i++ {
			if h[i] != '%' {
				b = append(b, h[i])
				continue
			}
			if i+2 >= len(h) || !isHex(h[i+1]) || !isHex(h[i+2]) {
				return "", withDetail(ErrBadHost, "invalid percent-encoding")
			}
			b = append(b, unhex(h[i+1])<<4|unhex(h[i+2]))
			i += 2
		}
		h = string(b)
	}
	if !utf8.ValidString(h) {
		// NB: idna maps invalid UTF-8 to a punycode label that it refuses
		// when it reads it back; browsers refuse it too (as U+FFFD).
		return "", withDetail(ErrBadHost, "invalid UTF-8")
	}
	s, err := profile.ToASCII(h)
	if err != nil {
		return "", withDetail(ErrBadHost, strings.TrimPrefix(err.Error(), "idna: "))
	}
	for i := 0; i < len(s); i++ {
		if hostByte[s[i]] != 1 {
			return "", withDetail(ErrBadHost, "invalid character "+strconv.QuoteRune(rune(s[i])))
		}
	}
	return s, nil
}

// canonIPv6 checks a bracketed IPv6 literal and returns it lower-case and
// compressed (RFC 5952), still in brackets.
func canonIPv6(h string) (string, hostKind, error) {
	if len(h) < 2 || h[len(h)-1] != ']' {
		return "", 0, withDetail(ErrBadHost, "unclosed IPv6 literal")
	}
	in := h[1 : len(h)-1]
	if strings.IndexByte(in, '%') >= 0 {
		return "", 0, withDetail(ErrBadHost, "IPv6 zone")
	}
	a, err := netip.ParseAddr(in)
	if err != nil || !a.Is6() {
		return "", 0, withDetail(ErrBadHost, "invalid IPv6 address")
	}
	if s := a.String(); s != in {
		return "[" + s + "]", kindIPv6, nil
	}
	return h, kindIPv6, nil
}

// endsInNumber reports whether the last label of host s is a number in the
// sense of the WHATWG URL standard (decimal digits, or 0x and hex digits), in
// which case s must be an IPv4 address. A trailing dot has been removed.
func endsInNumber(s string) bool {
	last := s[strings.LastIndexByte(s, '.')+1:]
	if last == "" {
		return false
	}
	if len(last) >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X') {
		for i := 2; i < len(last); i++ {
			if !isHex(last[i]) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(last); i++ {
		if last[i] < '0' || last[i] > '9' {
			return false
		}
	}
	return true
}

// startsWithNumber is endsInNumber for the first label: a key's host part is
// an IPv4 address exactly when its first label is a number, because a
// reversed name starts with its top-level label, which is never a number.
func startsWithNumber(s string) bool {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s = s[:i]
	}
	return s != "" && endsInNumber(s)
}

// parseIPv4 parses s as the WHATWG URL standard's IPv4 parser does: one to
// four dot-separated numbers, each decimal, octal (leading 0) or hex (0x),
// the last filling the remaining bytes (127.1 is 127.0.0.1).
func parseIPv4(s string) (uint32, bool) {
	var parts [4]uint64
	n := 0
	for {
		if n == 4 {
			return 0, false
		}
		p := s
		i := strings.IndexByte(s, '.')
		if i >= 0 {
			p, s = s[:i], s[i+1:]
		}
		v, ok := parseIPv4Number(p)
		if !ok {
			return 0, false
		}
		parts[n] = v
		n++
		if i < 0 {
			break
		}
	}
	for i := 0; i < n-1; i++ {
		if parts[i] > 255 {
			return 0, false
		}
	}
	last := parts[n-1]
	if last >= 1<<(8*(5-n)) {
		return 0, false
	}
	v := uint32(last)
	for i := 0; i < n-1; i++ {
		v |= uint32(parts[i]) << (8 * (3 - i))
	}
	return v, true
}

func parseIPv4Number(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := uint64(10)
	if len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') {
		base, p = 16, p[2:]
	} else if len(p) >= 2 && p[0] == '0' {
		base, p = 8, p[1:]
	}
	var v uint64
	for i := 0; i < len(p); i++ {
		c := p[i]
		var d uint64
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case 'a' <= c && c <= 'f':
			d = uint64(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			d = uint64(c - 'A' + 10)
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		v = v*base + d
		if v > 1<<32 {
			return 0, false
		}
	}
	return v, true
}

func formatIPv4(v uint32) string {
	b := make([]byte, 0, 15)
	for i := 3; i >= 0; i-- {
		b = strconv.AppendUint(b, uint64(byte(v>>(8*i))), 10)
		if i > 0 {
			b = append(b, '.')
		}
	}
	return string(b)
}

// appendReversed appends the key form of canonical host h: a name label by
// label from the last (www.cnn.com -> com.cnn.www), an IP literal as it is.
func appendReversed(dst []byte, h string, kind hostKind) []byte {
	if kind != kindName {
		return append(dst, h...)
	}
	for {
		i := strings.LastIndexByte(h, '.')
		dst = append(dst, h[i+1:]...)
		if i < 0 {
			return dst
		}
		dst = append(dst, '.')
		h = h[:i]
	}
}

// Host returns the reversed form of a host as it appears at the start of a
// row key: www.cnn.com -> com.cnn.www. The host is canonicalised as in a URL
// (lower case, IDN to punycode, trailing dot dropped); IP literals are not
// reversed, and an IPv6 address, bracketed or not, comes back in brackets. A
// port is not accepted.
func Host(host string) (string, error) {
	s, kind, err := canonHostInput(host)
	if err != nil {
		return "", &Error{Op: "host", URL: host, Err: err}
	}
	return string(appendReversed(make([]byte, 0, len(s)), s, kind)), nil
}

// canonHostInput is canonHost for a bare host as a user types it, where an
// IPv6 address may come without brackets.
func canonHostInput(host string) (string, hostKind, error) {
	if strings.IndexByte(host, ':') >= 0 && !strings.HasPrefix(host, "[") {
		host = "[" + host + "]"
	}
	return canonHost(host)
}
