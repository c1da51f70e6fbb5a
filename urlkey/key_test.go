package urlkey_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/webtable/webtable/urlkey"
)

// keyTests are the rules of Key, one named case each. want is the key, or
// "" when err is set.
var keyTests = []struct {
	name, in, want string
	err            error
}{
	// The paper's rows.
	{"paper cnn", "http://www.cnn.com/", "com.cnn.www/", nil},
	{"paper maps", "https://maps.google.com/index.html", "com.google.maps/index.html", nil},
	{"paper port", "http://cnn.com:8080/a?b=1", "com.cnn:8080/a?b=1", nil},
	{"paper anchor host", "http://cnnsi.com/", "com.cnnsi/", nil},
	{"paper my.look.ca", "http://my.look.ca/", "ca.look.my/", nil},

	// Host.
	{"host lower-cased", "http://WWW.Cnn.COM/", "com.cnn.www/", nil},
	{"path case kept", "http://www.cnn.com/Index.HTML", "com.cnn.www/Index.HTML", nil},
	{"trailing dot dropped", "http://www.cnn.com./", "com.cnn.www/", nil},
	{"two trailing dots", "http://www.cnn.com../", "", urlkey.ErrBadHost},
	{"single label", "http://localhost:8080/", "localhost:8080/", nil},
	{"deep name", "http://a.b.c.d.example.co.uk/", "uk.co.example.d.c.b.a/", nil},
	{"idn", "http://münchen.de/", "de.xn--mnchen-3ya/", nil},
	{"idn upper case", "http://MÜNCHEN.de/", "de.xn--mnchen-3ya/", nil},
	{"idn punycode kept", "http://xn--mnchen-3ya.de/", "de.xn--mnchen-3ya/", nil},
	{"idn punycode upper", "http://XN--MNCHEN-3YA.DE/", "de.xn--mnchen-3ya/", nil},
	{"idn bad punycode", "http://xn--a.com/", "", urlkey.ErrBadHost},
	{"idn ascii punycode", "http://xn--abc-.com/", "", urlkey.ErrBadHost},
	{"idn non-transitional sharp s", "http://faß.de/", "de.xn--fa-hia/", nil},
	{"idn full-width", "http://ｗｗｗ.ｃｎｎ.ｃｏｍ/", "com.cnn.www/", nil},
	{"idn ideographic full stop", "http://www。cnn。com/", "com.cnn.www/", nil},
	{"idn soft hyphen ignored", "http://cn\u00adn.com/", "com.cnn/", nil},
	{"idn bidi rule", "http://a\u05d0.com/", "", urlkey.ErrBadHost},
	{"idn disallowed", "http://a\u2488.com/", "", urlkey.ErrBadHost},
	{"percent-encoded host", "http://%77ww.cnn.com/", "com.cnn.www/", nil},
	{"percent-encoded idn", "http://m%C3%BCnchen.de/", "de.xn--mnchen-3ya/", nil},
	{"bad host escape", "http://%zzcnn.com/", "", urlkey.ErrBadHost},
	{"host escape not utf-8", "http://00%80/", "", urlkey.ErrBadHost},
	{"host not utf-8", "http://a\xffb.com/", "", urlkey.ErrBadHost},
	{"underscore", "http://my_site.example.com/", "com.example.my_site/", nil},
	{"hyphens", "http://r3---sn-abc.googlevideo.com/", "com.googlevideo.r3---sn-abc/", nil},
	{"empty label", "http://a..b.com/", "", urlkey.ErrBadHost},
	{"leading dot", "http://.cnn.com/", "", urlkey.ErrBadHost},
	{"only a dot", "http://./", "", urlkey.ErrBadHost},
	{"space in host", "http://exa mple.com/", "", urlkey.ErrBadHost},
	{"star in host", "http://*.cnn.com/", "", urlkey.ErrBadHost},
	{"angle in host", "http://cnn<.com/", "", urlkey.ErrBadHost},
	{"colon in host", "http://a:b:80/", "", urlkey.ErrBadHost},
	{"backslash in host", "http://cnn.com\\a", "", urlkey.ErrBadHost},
	{"host 253 bytes", "http://" + longHost(253) + "/", reverseForTest(longHost(253)) + "/", nil},
	{"host 254 bytes", "http://" + longHost(254) + "/", "", urlkey.ErrHostTooLong},
	{"host 254 with root dot", "http://" + longHost(253) + "./", reverseForTest(longHost(253)) + "/", nil},
	{"host huge", "http://" + strings.Repeat("a", 5000) + "/", "", urlkey.ErrHostTooLong},
	{"label over 63 accepted", "http://" + strings.Repeat("a", 64) + ".com/", "com." + strings.Repeat("a", 64) + "/", nil},

	// IP literals.
	{"ipv4", "http://127.0.0.1/", "127.0.0.1/", nil},
	{"ipv4 port", "http://127.0.0.1:8080/x", "127.0.0.1:8080/x", nil},
	{"ipv4 short", "http://127.1/", "127.0.0.1/", nil},
	{"ipv4 one number", "http://2130706433/", "127.0.0.1/", nil},
	{"ipv4 hex", "http://0x7F.0.0.1/", "127.0.0.1/", nil},
	{"ipv4 octal", "http://0177.0.0.01/", "127.0.0.1/", nil},
	{"ipv4 trailing dot", "http://10.0.0.1./", "10.0.0.1/", nil},
	{"ipv4 full-width", "http://１２７.０.０.１/", "127.0.0.1/", nil},
	{"ipv4 out of range", "http://1.2.3.256/", "", urlkey.ErrBadHost},
	{"ipv4 five parts", "http://1.2.3.4.5/", "", urlkey.ErrBadHost},
	{"name ending in number", "http://foo.123/", "", urlkey.ErrBadHost},
	{"name with numeric label", "http://1.cnn.com/", "com.cnn.1/", nil},
	{"ipv6", "http://[::1]:8080/x", "[::1]:8080/x", nil},
	{"ipv6 default port", "http://[::1]:80/", "[::1]/", nil},
	{"ipv6 lower-cased", "http://[2001:DB8::1]/", "[2001:db8::1]/", nil},
	{"ipv6 compressed", "http://[2001:db8:0:0:0:0:0:1]/", "[2001:db8::1]/", nil},
	{"ipv6 zone", "http://[fe80::1%25eth0]/", "", urlkey.ErrBadHost},
	{"ipv6 unclosed", "http://[::1/", "", urlkey.ErrBadHost},
	{"ipv6 junk after", "http://[::1]x/", "", urlkey.ErrBadHost},
	{"ipv6 holding ipv4", "http://[1.2.3.4]/", "", urlkey.ErrBadHost},
	{"ipv6 not hex", "http://[::g]/", "", urlkey.ErrBadHost},

	// Port.
	{"http default port", "http://www.cnn.com:80/", "com.cnn.www/", nil},
	{"https default port", "https://www.cnn.com:443/", "com.cnn.www/", nil},
	{"other port", "http://www.cnn.com:8080/", "com.cnn.www:8080/", nil},
	{"http port on https", "https://www.cnn.com:80/", "com.cnn.www:80/", nil},
	{"https port on http", "http://www.cnn.com:443/", "com.cnn.www:443/", nil},
	{"empty port", "http://www.cnn.com:/", "com.cnn.www/", nil},
	{"leading zeros", "http://www.cnn.com:0080/", "com.cnn.www/", nil},
	{"port zero", "http://www.cnn.com:0/", "com.cnn.www:0/", nil},
	{"port max", "http://www.cnn.com:65535/", "com.cnn.www:65535/", nil},
	{"port too big", "http://www.cnn.com:65536/", "", urlkey.ErrBadPort},
	{"port not a number", "http://www.cnn.com:http/", "", urlkey.ErrBadPort},
	{"port sign", "http://www.cnn.com:+80/", "", urlkey.ErrBadPort},

	// Scheme, user info, fragment.
	{"https shares row", "https://www.cnn.com/", "com.cnn.www/", nil},
	{"scheme upper case", "HTTPS://www.cnn.com/", "com.cnn.www/", nil},
	{"user info", "http://user:pass@www.cnn.com/x", "com.cnn.www/x", nil},
	{"at in user info", "http://a@b@www.cnn.com/", "com.cnn.www/", nil},
	{"fragment", "http://www.cnn.com/index.html#top", "com.cnn.www/index.html", nil},
	{"fragment with query chars", "http://www.cnn.com/a#b?c", "com.cnn.www/a", nil},
	{"mailto", "mailto:someone@cnn.com", "", urlkey.ErrScheme},
	{"javascript", "javascript:alert(1)", "", urlkey.ErrScheme},
	{"file", "file:///etc/passwd", "", urlkey.ErrScheme},
	{"ftp", "ftp://ftp.cnn.com/", "", urlkey.ErrScheme},
	{"data", "data:text/html,hi", "", urlkey.ErrScheme},
	{"relative", "/a/b", "", urlkey.ErrScheme},
	{"scheme-relative", "//www.cnn.com/", "", urlkey.ErrScheme},
	{"empty", "", "", urlkey.ErrScheme},
	{"no host", "http:///path", "", urlkey.ErrNoHost},
	{"nothing after scheme", "http://", "", urlkey.ErrNoHost},
	{"no slashes", "http:www.cnn.com", "", urlkey.ErrNoHost},
	{"one slash", "http:/www.cnn.com", "", urlkey.ErrNoHost},
	{"only user info", "http://user@/", "", urlkey.ErrNoHost},
	{"only port", "http://:80/", "", urlkey.ErrNoHost},

	// Path.
	{"empty path", "http://www.cnn.com", "com.cnn.www/", nil},
	{"empty path with query", "http://www.cnn.com?a=1", "com.cnn.www/?a=1", nil},
	{"dot-dot", "http://www.cnn.com/a/b/../c", "com.cnn.www/a/c", nil},
	{"dot", "http://www.cnn.com/a/./b/", "com.cnn.www/a/b/", nil},
	{"dot last", "http://www.cnn.com/a/.", "com.cnn.www/a/", nil},
	{"dot-dot last", "http://www.cnn.com/a/b/..", "com.cnn.www/a/", nil},
	{"dot-dot above root", "http://www.cnn.com/../../a", "com.cnn.www/a", nil},
	{"dot-dot escaped", "http://www.cnn.com/a/%2E%2E/b", "com.cnn.www/b", nil},
	{"dot-dot mixed", "http://www.cnn.com/a/.%2e/b", "com.cnn.www/b", nil},
	{"dots in names kept", "http://www.cnn.com/a/..b/c../.../", "com.cnn.www/a/..b/c../.../", nil},
	{"empty segments kept", "http://www.cnn.com//a//b", "com.cnn.www//a//b", nil},
	{"dot-dot eats empty segment", "http://www.cnn.com/a//../b", "com.cnn.www/a/b", nil},
	{"tilde decoded", "http://www.cnn.com/%7Euser/", "com.cnn.www/~user/", nil},
	{"letters decoded", "http://www.cnn.com/%41%42c", "com.cnn.www/ABc", nil},
	{"slash stays encoded", "http://www.cnn.com/a%2fb", "com.cnn.www/a%2Fb", nil},
	{"escape upper-cased", "http://www.cnn.com/caf%c3%a9", "com.cnn.www/caf%C3%A9", nil},
	{"utf-8 encoded", "http://www.cnn.com/café", "com.cnn.www/caf%C3%A9", nil},
	{"space encoded", "http://www.cnn.com/a b", "com.cnn.www/a%20b", nil},
	{"control encoded", "http://www.cnn.com/a\x01b", "com.cnn.www/a%01b", nil},
	{"del encoded", "http://www.cnn.com/a\x7fb", "com.cnn.www/a%7Fb", nil},
	{"invalid utf-8 byte encoded", "http://www.cnn.com/caf\xe9", "com.cnn.www/caf%E9", nil},
	{"stray percent", "http://www.cnn.com/100%", "com.cnn.www/100%25", nil},
	{"stray percent short", "http://www.cnn.com/%4", "com.cnn.www/%254", nil},
	{"percent not hex", "http://www.cnn.com/%zz", "com.cnn.www/%25zz", nil},
	{"sub-delims kept", "http://www.cnn.com/!$&'()*+,;=:@", "com.cnn.www/!$&'()*+,;=:@", nil},
	{"sub-delims escaped kept", "http://www.cnn.com/%3b%3D", "com.cnn.www/%3B%3D", nil},
	{"brackets encoded", "http://www.cnn.com/[a]{b}|^`\\\"<>", "com.cnn.www/%5Ba%5D%7Bb%7D%7C%5E%60%5C%22%3C%3E", nil},

	// Query.
	{"query kept", "http://www.cnn.com/search?q=go&page=2", "com.cnn.www/search?q=go&page=2", nil},
	{"query order kept", "http://www.cnn.com/s?b=2&a=1", "com.cnn.www/s?b=2&a=1", nil},
	{"query escapes kept", "http://www.cnn.com/s?Q=%7e&b=1", "com.cnn.www/s?Q=%7e&b=1", nil},
	{"query space", "http://www.cnn.com/s?q=a b", "com.cnn.www/s?q=a%20b", nil},
	{"query utf-8", "http://www.cnn.com/s?q=é", "com.cnn.www/s?q=%C3%A9", nil},
	{"query slash and question", "http://www.cnn.com/s?a=/b?c", "com.cnn.www/s?a=/b?c", nil},
	{"query stray percent", "http://www.cnn.com/s?p=5%", "com.cnn.www/s?p=5%25", nil},
	{"query dots kept", "http://www.cnn.com/s?a=/../b", "com.cnn.www/s?a=/../b", nil},
	{"empty query", "http://www.cnn.com/search?", "com.cnn.www/search", nil},
	{"empty query and fragment", "http://www.cnn.com/search?#x", "com.cnn.www/search", nil},

	// Input clean-up, as browsers do.
	{"spaces around", "  http://www.cnn.com/a \n", "com.cnn.www/a", nil},
	{"newline inside", "http://www.c\nnn.com/a\tb", "com.cnn.www/ab", nil},

	// Limits.
	{"key 4096 bytes", "http://cnn.com/" + strings.Repeat("a", 4096-len("com.cnn/")), "com.cnn/" + strings.Repeat("a", 4096-len("com.cnn/")), nil},
	{"key 4097 bytes", "http://cnn.com/" + strings.Repeat("a", 4097-len("com.cnn/")), "", urlkey.ErrKeyTooLong},
	{"key long by escaping", "http://cnn.com/a" + strings.Repeat(" ", 1400) + "b", "", urlkey.ErrKeyTooLong},
	{"long raw short key", "http://cnn.com/" + strings.Repeat("a/../", 2000) + "b", "com.cnn/b", nil},
}

// longHost returns a valid host of n bytes.
func longHost(n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		l := min(63, n-b.Len())
		b.WriteString(strings.Repeat("a", l))
	}
	h := b.String()
	if h[len(h)-1] == '.' { // cannot happen for the lengths used
		panic("longHost")
	}
	return h
}

func reverseForTest(h string) string {
	l := strings.Split(h, ".")
	for i, j := 0, len(l)-1; i < j; i, j = i+1, j-1 {
		l[i], l[j] = l[j], l[i]
	}
	return strings.Join(l, ".")
}

func TestKey(t *testing.T) {
	for _, tc := range keyTests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := urlkey.Key(tc.in)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("Key(%q) = %q, %v, want error %v", tc.in, got, err, tc.err)
				}
				var e *urlkey.Error
				if !errors.As(err, &e) || e.Op != "key" || e.URL != tc.in {
					t.Fatalf("Key(%q) error %#v, want *Error{Op: \"key\", URL: input}", tc.in, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Key(%q) = %q, %v, want %q", tc.in, got, err, tc.want)
			}
			if len(got) > urlkey.MaxKeyLen {
				t.Fatalf("Key(%q) is %d bytes, over MaxKeyLen", tc.in, len(got))
			}
			// Every rule holds for Canonical and KeyOf too.
			u, err := urlkey.Canonical(tc.in)
			if err != nil {
				t.Fatalf("Canonical(%q): %v, but Key succeeded", tc.in, err)
			}
			if k := urlkey.KeyOf(u); k != tc.want {
				t.Fatalf("KeyOf(Canonical(%q)) = %q, want %q", tc.in, k, tc.want)
			}
			// The key is a fixed point: the canonical URL has the same key.
			if k, err := urlkey.Key(u.String()); err != nil || k != tc.want {
				t.Fatalf("Key(%q) (canonical of %q) = %q, %v, want %q", u.String(), tc.in, k, err, tc.want)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct{ in, want string }{
		{"HTTP://User:Pw@WWW.CNN.COM:80/a/../b?q=1#f", "http://www.cnn.com/b?q=1"},
		{"https://www.cnn.com:443", "https://www.cnn.com/"},
		{"https://www.cnn.com:80/", "https://www.cnn.com:80/"},
		{"http://www.bücher.de/café", "http://www.xn--bcher-kva.de/caf%C3%A9"},
		{"http://[2001:DB8::1]:8080/", "http://[2001:db8::1]:8080/"},
		{"http://www.cnn.com/a%2fb/%7e?x=%7e", "http://www.cnn.com/a%2Fb/~?x=%7e"},
		{"http://www.cnn.com/search?", "http://www.cnn.com/search"},
		{"http://www.cnn.com/a b", "http://www.cnn.com/a%20b"},
	}
	for _, tc := range tests {
		u, err := urlkey.Canonical(tc.in)
		if err != nil {
			t.Errorf("Canonical(%q): %v", tc.in, err)
			continue
		}
		if got := u.String(); got != tc.want {
			t.Errorf("Canonical(%q) = %q, want %q", tc.in, got, tc.want)
		}
		// net/url reads the canonical URL back as the same URL.
		p, err := url.Parse(u.String())
		if err != nil {
			t.Errorf("url.Parse(%q): %v", u.String(), err)
			continue
		}
		if *p != *u {
			t.Errorf("url.Parse(%q) = %#v, want %#v", u.String(), p, u)
		}
	}
}

func TestCanonicalErrors(t *testing.T) {
	for _, tc := range keyTests {
		if tc.err == nil {
			continue
		}
		u, err := urlkey.Canonical(tc.in)
		var e *urlkey.Error
		if !errors.Is(err, tc.err) || !errors.As(err, &e) || e.Op != "canonical" || e.URL != tc.in {
			t.Errorf("Canonical(%q) = %v, %v, want *Error{Op: canonical} wrapping %v", tc.in, u, err, tc.err)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	tests := []struct{ in, want string }{
		{"mailto:a@cnn.com", `urlkey: key "mailto:a@cnn.com": scheme is not http or https: "mailto"`},
		{"/a", `urlkey: key "/a": scheme is not http or https: no scheme`},
		{"http:///a", `urlkey: key "http:///a": missing host`},
		{"http://a..b/", `urlkey: key "http://a..b/": invalid host: empty label`},
		{"http://a b/", `urlkey: key "http://a b/": invalid host: invalid character ' '`},
		{"http://a:x/", `urlkey: key "http://a:x/": invalid port: "x"`},
	}
	for _, tc := range tests {
		_, err := urlkey.Key(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Key(%q) error = %v, want %s", tc.in, err, tc.want)
		}
	}
}

func TestKeyOf(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://www.cnn.com/", "com.cnn.www/"},
		{"http://www.cnn.com", "com.cnn.www/"},
		{"http://cnn.com:8080/a?b=1", "com.cnn:8080/a?b=1"},
		{"http://127.0.0.1:8080/x", "127.0.0.1:8080/x"},
		{"http://[::1]:8080/x", "[::1]:8080/x"},
		{"http://[::1]/x", "[::1]/x"},
		{"http://1.cnn.com/", "com.cnn.1/"},
		{"http://www.cnn.com/a%2Fb", "com.cnn.www/a%2Fb"},
	}
	for _, tc := range tests {
		u, err := url.Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := urlkey.KeyOf(u); got != tc.want {
			t.Errorf("KeyOf(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestURL(t *testing.T) {
	tests := []struct {
		key, scheme, want string
		err               error
	}{
		{"com.cnn.www/", "http", "http://www.cnn.com/", nil},
		{"com.cnn.www/index.html", "https", "https://www.cnn.com/index.html", nil},
		{"com.cnn:8080/a?b=1", "http", "http://cnn.com:8080/a?b=1", nil},
		{"com.cnn.www:80/", "https", "https://www.cnn.com:80/", nil},
		{"com.cnn.www:80/", "http", "", urlkey.ErrBadKey},
		{"com.cnn.1/", "http", "http://1.cnn.com/", nil},
		{"127.0.0.1:8080/x", "http", "http://127.0.0.1:8080/x", nil},
		{"[::1]:8080/x", "HTTP", "http://[::1]:8080/x", nil},
		{"de.xn--bcher-kva.www/a", "http", "http://www.xn--bcher-kva.de/a", nil},
		{"com.cnn.www/caf%C3%A9?q=%7e", "http", "http://www.cnn.com/caf%C3%A9?q=%7e", nil},
		{"com.cnn.www/", "ftp", "", urlkey.ErrScheme},
		{"com.cnn.www", "http", "", urlkey.ErrBadKey},
		{"", "http", "", urlkey.ErrBadKey},
		{"com.cnn.www/a/../b", "http", "", urlkey.ErrBadKey},
		{"com.cnn.www/%7e", "http", "", urlkey.ErrBadKey},
		{"com.cnn.www/?", "http", "", urlkey.ErrBadKey},
		{"com.cnn.www/#x", "http", "", urlkey.ErrBadKey},
		{"COM.CNN/", "http", "", urlkey.ErrBadKey},
		{"com.cnn.www:/", "http", "", urlkey.ErrBadKey},
		{"[::1/", "http", "", urlkey.ErrBadKey},
		{"www.cnn.com/", "http", "http://com.cnn.www/", nil}, // a valid key of another host
	}
	for _, tc := range tests {
		got, err := urlkey.URL(tc.key, tc.scheme)
		if tc.err != nil {
			var e *urlkey.Error
			if !errors.Is(err, tc.err) || !errors.As(err, &e) || e.Op != "url" || e.URL != tc.key {
				t.Errorf("URL(%q, %q) = %q, %v, want *Error{Op: url} wrapping %v", tc.key, tc.scheme, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("URL(%q, %q) = %q, %v, want %q", tc.key, tc.scheme, got, err, tc.want)
		}
	}
}

// TestURLRoundTrip checks Key(URL(Key(u), s)) == Key(u), s the scheme of u,
// for every accepted case of the rule table.
func TestURLRoundTrip(t *testing.T) {
	for _, tc := range keyTests {
		if tc.err != nil {
			continue
		}
		u, err := urlkey.Canonical(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		back, err := urlkey.URL(tc.want, u.Scheme)
		if err != nil {
			t.Errorf("URL(%q, %q): %v", tc.want, u.Scheme, err)
			continue
		}
		if back != u.String() {
			t.Errorf("URL(%q, %q) = %q, want %q", tc.want, u.Scheme, back, u.String())
		}
	}
}

func TestReferrer(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://cnnsi.com/", "cnnsi.com"},
		{"http://CNNSI.com", "cnnsi.com"},
		{"http://my.look.ca/", "my.look.ca"},
		{"https://www.example.org/blog/post.html#c", "www.example.org/blog/post.html"},
		{"http://cnn.com:8080/", "cnn.com:8080"},
		{"http://cnn.com:80/", "cnn.com"},
		{"http://cnn.com/?q=1", "cnn.com/?q=1"},
		{"http://cnn.com/a?q=1", "cnn.com/a?q=1"},
		{"http://www.bücher.de/", "www.xn--bcher-kva.de"},
		{"http://[::1]:8080/x", "[::1]:8080/x"},
		{"mailto:a@cnn.com", ""},
	}
	for _, tc := range tests {
		u, err := url.Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := urlkey.Referrer(u); got != tc.want {
			t.Errorf("Referrer(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestHost(t *testing.T) {
	tests := []struct {
		in, want string
		err      error
	}{
		{"www.cnn.com", "com.cnn.www", nil},
		{"WWW.CNN.COM.", "com.cnn.www", nil},
		{"cnn.com", "com.cnn", nil},
		{"com", "com", nil},
		{"bücher.de", "de.xn--bcher-kva", nil},
		{"my_site.example.com", "com.example.my_site", nil},
		{"127.0.0.1", "127.0.0.1", nil},
		{"::1", "[::1]", nil},
		{"[::1]", "[::1]", nil},
		{"", "", urlkey.ErrNoHost},
		{"a..b.com", "", urlkey.ErrBadHost},
		{"www.cnn.com:80", "", urlkey.ErrBadHost},
		{"www.cnn.com/", "", urlkey.ErrBadHost},
		{longHost(254), "", urlkey.ErrHostTooLong},
	}
	for _, tc := range tests {
		got, err := urlkey.Host(tc.in)
		if tc.err != nil {
			var e *urlkey.Error
			if !errors.Is(err, tc.err) || !errors.As(err, &e) || e.Op != "host" || e.URL != tc.in {
				t.Errorf("Host(%q) = %q, %v, want *Error{Op: host} wrapping %v", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Host(%q) = %q, %v, want %q", tc.in, got, err, tc.want)
		}
	}
}
