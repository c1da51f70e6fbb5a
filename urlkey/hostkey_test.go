package urlkey_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/webtable/webtable/urlkey"
)

var hostKeyTests = []struct {
	name, scheme, in, want string
	err                    error
}{
	{"canonical", "http", "example.com", "example.com", nil},
	{"canonical with port", "http", "example.com:8080", "example.com:8080", nil},
	{"upper case", "http", "LOCALHOST:8080", "localhost:8080", nil},
	{"trailing dot", "http", "localhost.:8080", "localhost:8080", nil},
	{"upper case and trailing dot", "http", "LOCALHOST.:8080", "localhost:8080", nil},
	{"leading zero in port", "http", "localhost:08080", "localhost:8080", nil},
	{"all of them", "http", "LOCALHOST.:08080", "localhost:8080", nil},
	{"default port", "http", "example.com:80", "example.com", nil},
	{"default port with zeros", "http", "LOCALHOST.:080", "localhost", nil},
	{"https default port", "https", "example.com:443", "example.com", nil},
	{"https default port with zeros", "https", "example.com:000443", "example.com", nil},
	{"other scheme's default kept", "http", "example.com:443", "example.com:443", nil},
	{"zeros before another port", "http", "example.com:00443", "example.com:443", nil},
	{"scheme case", "HTTP", "example.com:80", "example.com", nil},
	{"empty port", "http", "example.com:", "example.com", nil},
	{"port zero", "http", "example.com:000", "example.com:0", nil},
	{"idn", "http", "BÜCHER.de", "xn--bcher-kva.de", nil},
	{"ipv4 shorthand", "http", "127.1:08080", "127.0.0.1:8080", nil},
	{"ipv4 hex", "http", "0x7f.0.0.1", "127.0.0.1", nil},
	{"ipv6", "http", "[::1]:8080", "[::1]:8080", nil},
	{"ipv6 long form", "http", "[0:0:0:0:0:0:0:1]:080", "[::1]", nil},
	{"ipv6 upper case", "https", "[2001:DB8::1]:443", "[2001:db8::1]", nil},
	{"no host", "http", "", "", urlkey.ErrNoHost},
	{"port only", "http", ":8080", "", urlkey.ErrNoHost},
	{"port too big", "http", "example.com:65536", "", urlkey.ErrBadPort},
	{"port not a number", "http", "example.com:8o", "", urlkey.ErrBadPort},
	{"empty label", "http", "a..b.com:80", "", urlkey.ErrBadHost},
	{"bad ipv4", "http", "1.2.3.256", "", urlkey.ErrBadHost},
	{"ipv6 zone", "http", "[fe80::1%25eth0]:80", "", urlkey.ErrBadHost},
	{"host too long", "http", longHost(254) + ":80", "", urlkey.ErrHostTooLong},
}

func TestHostKey(t *testing.T) {
	for _, tc := range hostKeyTests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := urlkey.HostKey(tc.scheme, tc.in)
			if tc.err != nil {
				var e *urlkey.Error
				if !errors.Is(err, tc.err) || !errors.As(err, &e) || e.Op != "hostkey" || e.URL != tc.in {
					t.Fatalf("HostKey(%q, %q) = %q, %v, want *Error{Op: hostkey} wrapping %v", tc.scheme, tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("HostKey(%q, %q) = %q, %v, want %q", tc.scheme, tc.in, got, err, tc.want)
			}
		})
	}
}

func TestHostKeyAllocs(t *testing.T) {
	for _, in := range []string{"example.com", "example.com:8080", "my_site.example.com:1"} {
		if n := testing.AllocsPerRun(100, func() { urlkey.HostKey("http", in) }); n != 0 {
			t.Errorf("HostKey(http, %q) allocates %v times, want 0 (it is canonical)", in, n)
		}
	}
}

// FuzzHostKey checks that a host key is a fixed point, and that it is the
// host of the canonical URL whose authority is the input.
func FuzzHostKey(f *testing.F) {
	for _, tc := range hostKeyTests {
		f.Add(tc.scheme, tc.in)
	}
	f.Fuzz(func(t *testing.T, scheme, in string) {
		k, err := urlkey.HostKey(scheme, in)
		if err != nil {
			var e *urlkey.Error
			if !errors.As(err, &e) || e.Op != "hostkey" || e.URL != in {
				t.Fatalf("HostKey(%q, %q) error %#v is not an *Error{Op: hostkey} holding the input", scheme, in, err)
			}
			return
		}
		s := strings.ToLower(scheme)
		if again, err := urlkey.HostKey(s, k); err != nil || again != k {
			t.Fatalf("HostKey(%q, %q) = %q, %v: key of %q is not a fixed point", s, k, again, err, in)
		}
		if strings.ContainsAny(in, "/?#@\\%\t\r\n ") || s != "http" && s != "https" {
			return // not an authority as a URL would hold it after parsing
		}
		u, err := urlkey.Canonical(s + "://" + in + "/")
		if err != nil {
			return // e.g. a host that only a URL's parser trims or refuses
		}
		if u.Host != k {
			t.Fatalf("HostKey(%q, %q) = %q, but the canonical URL's host is %q", s, in, k, u.Host)
		}
	})
}
