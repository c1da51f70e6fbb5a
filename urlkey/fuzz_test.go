package urlkey_test

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/webtable/webtable/urlkey"
)

// checkKeyChars fails unless key is printable ASCII without space, '#' or
// '%' that starts no escape: a string that can be typed, logged and put
// back into a URL.
func checkKeyChars(t *testing.T, raw, key string) {
	t.Helper()
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c <= ' ' || c >= 0x7f || c == '#' {
			t.Fatalf("Key(%q) = %q holds byte %#x at %d", raw, key, c, i)
		}
		if c == '%' && (i+2 >= len(key) || !isHexByte(key[i+1]) || !isHexByte(key[i+2])) {
			t.Fatalf("Key(%q) = %q holds a bare '%%' at %d", raw, key, i)
		}
	}
}

func isHexByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// FuzzKey checks that Key never panics, that its errors are *Error values
// wrapping a sentinel, and that an accepted URL's key is short, clean, a
// fixed point of canonicalisation and survives the round trip
// Key(URL(Key(u), s)) == Key(u), s the scheme of u.
func FuzzKey(f *testing.F) {
	for _, tc := range keyTests {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		k, err := urlkey.Key(raw)
		u, cerr := urlkey.Canonical(raw)
		if err != nil {
			var e *urlkey.Error
			if !errors.As(err, &e) || e.Op != "key" || e.URL != raw {
				t.Fatalf("Key(%q) error %#v is not an *Error{Op: key} holding the input", raw, err)
			}
			known := false
			for _, s := range sentinels {
				known = known || errors.Is(err, s)
			}
			if !known {
				t.Fatalf("Key(%q) error %v wraps no sentinel", raw, err)
			}
			if cerr == nil {
				t.Fatalf("Key(%q) failed with %v but Canonical succeeded with %q", raw, err, u)
			}
			return
		}
		if len(k) > urlkey.MaxKeyLen {
			t.Fatalf("Key(%q) is %d bytes, over MaxKeyLen", raw, len(k))
		}
		checkKeyChars(t, raw, k)
		if cerr != nil {
			t.Fatalf("Key(%q) = %q but Canonical failed: %v", raw, k, cerr)
		}
		if got := urlkey.KeyOf(u); got != k {
			t.Fatalf("KeyOf(Canonical(%q)) = %q, want %q", raw, got, k)
		}
		s := u.String()
		if got, err := urlkey.Key(s); err != nil || got != k {
			t.Fatalf("Key(%q) (canonical of %q) = %q, %v, want %q", s, raw, got, err, k)
		}
		if c, err := urlkey.Canonical(s); err != nil || c.String() != s {
			t.Fatalf("Canonical(%q) (canonical of %q) = %v, %v: not a fixed point", s, raw, c, err)
		}
		// net/url, which the crawler uses, reads the canonical URL alike.
		p, err := url.Parse(s)
		if err != nil {
			t.Fatalf("url.Parse(%q) (canonical of %q): %v", s, raw, err)
		}
		if got := urlkey.KeyOf(p); got != k {
			t.Fatalf("KeyOf(url.Parse(%q)) = %q, want %q", s, got, k)
		}
		back, err := urlkey.URL(k, u.Scheme)
		if err != nil {
			t.Fatalf("URL(%q, %q) (key of %q): %v", k, u.Scheme, raw, err)
		}
		if got, err := urlkey.Key(back); err != nil || got != k {
			t.Fatalf("Key(URL(%q, %q)) = %q, %v, want %q", k, u.Scheme, got, err, k)
		}
		if urlkey.Referrer(u) == "" {
			t.Fatalf("Referrer(%q) = \"\"", s)
		}
		if r, err := urlkey.PrefixRange(raw); err != nil || r.Start != k || !r.Contains(k) {
			t.Fatalf("PrefixRange(%q) = %v, %v, want a range starting at %q", raw, r, err, k)
		}
		if !inRanges(k, urlkey.HostRanges(u.Hostname())) {
			t.Fatalf("HostRanges(%q) = %v does not hold %q", u.Hostname(), urlkey.HostRanges(u.Hostname()), k)
		}
	})
}

// FuzzDomainRanges checks that every key of a URL whose host is in domain D
// falls inside DomainRanges(D), and no key of a host outside D does. The
// host is tried as given and as a subdomain of D, so that the fuzzer meets
// both cases often.
func FuzzDomainRanges(f *testing.F) {
	f.Add("cnn.com", "www", uint16(0), "/")
	f.Add("cnn.com", "cnnsi.com", uint16(8080), "/a")
	f.Add("cnn.com", "cnn-money.com", uint16(0), "")
	f.Add("cnn.com", "www.cnnx.com", uint16(0), "")
	f.Add("cnn.com", "cnn0.com", uint16(81), "/")
	f.Add("CNN.com.", "edition.www", uint16(8080), "/x?y")
	f.Add("bücher.de", "www", uint16(0), "/café")
	f.Add("xn--bcher-kva.de", "www.bücher.de", uint16(443), "/")
	f.Add("127.0.0.1", "127.0.0.1", uint16(8080), "/")
	f.Add("::1", "[::1]", uint16(0), "/")
	f.Add("com", "cnn", uint16(0), "/")
	f.Add("a_b.example", "x", uint16(0), "/")
	f.Fuzz(func(t *testing.T, domain, host string, port uint16, path string) {
		rs := urlkey.DomainRanges(domain)
		checkSortedDisjoint(t, "DomainRanges("+strconv.Quote(domain)+")", rs)
		if rs == nil {
			if _, err := urlkey.Host(domain); err == nil {
				t.Fatalf("DomainRanges(%q) = nil, but Host accepts it", domain)
			}
			return
		}
		bracketed := domain
		if strings.Contains(domain, ":") && !strings.HasPrefix(domain, "[") {
			bracketed = "[" + domain + "]"
		}
		d, err := urlkey.Canonical("http://" + bracketed + "/")
		if err != nil {
			t.Fatalf("DomainRanges(%q) = %v, but Canonical of it as a host fails: %v", domain, rs, err)
		}
		cd := d.Hostname()
		portPart := ""
		if port != 0 {
			portPart = ":" + strconv.Itoa(int(port))
		}
		for _, h := range []string{host, host + "." + domain} {
			raw := "http://" + h + portPart + path
			u, err := urlkey.Canonical(raw)
			if err != nil {
				continue
			}
			k := urlkey.KeyOf(u)
			in := inDomain(u.Hostname(), cd)
			if got := inRanges(k, rs); got != in {
				t.Fatalf("URL %q (key %q, host %q): in domain %q (%q) is %v, but in DomainRanges %v is %v",
					raw, k, u.Hostname(), domain, cd, in, rs, got)
			}
			hr := urlkey.HostRanges(u.Hostname())
			if !inRanges(k, hr) {
				t.Fatalf("URL %q (key %q): not in HostRanges(%q) = %v", raw, k, u.Hostname(), hr)
			}
		}
	})
}

// FuzzURL checks that URL never panics on arbitrary strings, refuses with an
// *Error wrapping ErrScheme or ErrBadKey, and that whatever it accepts is a
// row key: Key(URL(key, s)) == key.
func FuzzURL(f *testing.F) {
	for _, tc := range keyTests {
		if tc.err == nil {
			f.Add(tc.want, "http")
			f.Add(tc.want, "https")
		}
	}
	f.Add("com.cnn.www:80/", "http")
	f.Add("[::1/", "http")
	f.Fuzz(func(t *testing.T, key, scheme string) {
		u, err := urlkey.URL(key, scheme)
		if err != nil {
			var e *urlkey.Error
			if !errors.As(err, &e) || e.Op != "url" || e.URL != key ||
				!errors.Is(err, urlkey.ErrBadKey) && !errors.Is(err, urlkey.ErrScheme) {
				t.Fatalf("URL(%q, %q) error %v, want an *Error{Op: url} wrapping ErrBadKey or ErrScheme", key, scheme, err)
			}
			return
		}
		if k, err := urlkey.Key(u); err != nil || k != key {
			t.Fatalf("Key(URL(%q, %q)) = Key(%q) = %q, %v, want the key back", key, scheme, u, k, err)
		}
		if !strings.HasPrefix(u, strings.ToLower(scheme)+"://") {
			t.Fatalf("URL(%q, %q) = %q, want scheme %q", key, scheme, u, scheme)
		}
	})
}
