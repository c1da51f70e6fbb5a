package urlkey_test

import (
	"strings"
	"testing"

	"github.com/webtable/webtable/urlkey"
)

func TestPrefixEnd(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a", "b"},
		{"com.cnn/", "com.cnn0"},
		{"a\xff", "b"},
		{"a\xfe", "a\xff"},
		{"\xff\xff", ""},
		{"", ""},
	}
	for _, tc := range tests {
		if got := urlkey.PrefixEnd(tc.in); got != tc.want {
			t.Errorf("prefixEnd(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestFastPathMatchesIDNA checks that hosts which skip IDNA mapping (plain
// [a-zA-Z0-9-_.], no xn-- label) map to what IDNA would give: themselves,
// lower-cased.
func TestFastPathMatchesIDNA(t *testing.T) {
	hosts := []string{"www.cnn.com", "WWW.CNN.COM", "my_site.example.com", "r3---sn-abc.x",
		"-a-.b-", "_", "a.b.c", "xn.com", "xnx--a.com", "a.xn-b.com", "localhost", "1a.b2"}
	for _, h := range hosts {
		if urlkey.NeedsMapping(h) {
			t.Errorf("needsMapping(%q) = true, want false", h)
			continue
		}
		got, err := urlkey.MapHost(h)
		if err != nil || got != strings.ToLower(h) {
			t.Errorf("mapHost(%q) = %q, %v, want %q", h, got, err, strings.ToLower(h))
		}
	}
	for _, h := range []string{"xn--mnchen-3ya.de", "a.XN--abc", "a b", "a%41", "é.com", "a*b"} {
		if !urlkey.NeedsMapping(h) {
			t.Errorf("needsMapping(%q) = false, want true", h)
		}
	}
}
