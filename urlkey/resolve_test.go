package urlkey

import (
	"net/url"
	"testing"
)

// TestResolve: links are read against the page or its http(s) <base>,
// and only http and https links that can be made canonical are kept.
func TestResolve(t *testing.T) {
	page, _ := url.Parse("http://www.cnn.com/a/b")
	for _, tc := range []struct {
		base, href, want string // want "" = not kept
	}{
		{"", "../c#top", "http://www.cnn.com/c"},
		{"", "HTTPS://CNNSI.COM", "https://cnnsi.com/"},
		{"", "mailto:x@cnn.com", ""},
		{"", "javascript:void(0)", ""},
		{"", "http://[::1", ""},
		{"http://my.look.ca/x/", "y", "http://my.look.ca/x/y"},
		{"ftp://files.cnn.com/", "y", "http://www.cnn.com/a/y"},
	} {
		got := ""
		if u, ok := Resolve(LinkBase(page, tc.base), tc.href); ok {
			got = u.String()
		}
		if got != tc.want {
			t.Errorf("Resolve(LinkBase(%s, %q), %q) = %q, want %q", page, tc.base, tc.href, got, tc.want)
		}
	}
}

// FuzzResolve: a kept link is an http or https URL already canonical.
func FuzzResolve(f *testing.F) {
	f.Add("http://www.cnn.com/a/b", "", "../c#top")
	f.Add("http://www.cnn.com/", "http://my.look.ca/", "mailto:x")
	f.Fuzz(func(t *testing.T, page, base, href string) {
		p, err := url.Parse(page)
		if err != nil {
			return
		}
		u, ok := Resolve(LinkBase(p, base), href)
		if !ok {
			return
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			t.Fatalf("Resolve(%q, %q) = %s, not http(s)", page, href, u)
		}
		c, err := Canonical(u.String())
		if err != nil || c.String() != u.String() {
			t.Fatalf("Resolve(%q, %q) = %s, whose canonical form is %v (%v)", page, href, u, c, err)
		}
	})
}
