package realweb

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// tokenLinks is scanLinks written with x/net/html's tokenizer, as package
// extract reads a page: the reference scanLinks must agree with.
func tokenLinks(body []byte) pageLinks {
	var pl pageLinks
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return pl
		case html.StartTagToken, html.SelfClosingTagToken:
			name, more := z.TagName()
			a := atom.Lookup(name)
			var href, rel, mname, content string
			var hasHref bool
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "href":
					if !hasHref {
						href, hasHref = strings.TrimSpace(string(v)), true
					}
				case "rel":
					rel = string(v)
				case "name":
					mname = string(v)
				case "content":
					content = string(v)
				}
			}
			switch a {
			case atom.A, atom.Area:
				if hasHref && !hasWord(rel, "nofollow") {
					pl.hrefs = append(pl.hrefs, href)
				}
			case atom.Base:
				if hasHref && pl.base == "" {
					pl.base = href
				}
			case atom.Meta:
				if strings.EqualFold(mname, "robots") && (hasWord(content, "nofollow") || hasWord(content, "none")) {
					pl.metaNoFollow = true
				}
			}
		}
	}
}

func TestScanLinks(t *testing.T) {
	tests := []struct {
		name, html string
	}{
		{"plain", `<a href="a.html">x</a><A HREF='b.html'>y</a><area href=c.html>`},
		{"first href wins", `<a href="one" href="two">`},
		{"entities", `<a href="?a=1&amp;b=2&lang=en&copy;&#47;x&notit;&copy&amp&ampx&lt=">`},
		{"nofollow", `<a rel="nofollow" href="no"><a rel="next" href="yes">`},
		{"meta robots", `<meta name="Robots" content="noindex, nofollow"><a href="x">`},
		{"base", `<base href=" /docs/ "><base href="/other/"><a href="x">`},
		{"comment", `<!-- <a href="hidden"> --><a href="shown">`},
		{"script", `<script>var s = '<a href="in-script">';</script><a href="after">`},
		{"title", `<title><a href="in-title"></title><a href="after">`},
		{"attribute with >", `<a title="a > b" href="x">`},
		{"unquoted and spaces", `<a  href = x.html  class=c>`},
		{"not a tag", `a < b <a href=ok> <-a href=no> </a href=no>`},
		{"self-closing", `<a href="x"/><br/><a href=y>`},
		{"truncated", `<a href="x`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, want := scanLinks([]byte(tc.html)), tokenLinks([]byte(tc.html))
			if !slices.Equal(got.hrefs, want.hrefs) || got.base != want.base || got.metaNoFollow != want.metaNoFollow {
				t.Errorf("scanLinks(%q) = %+v, want (as x/net/html reads it) %+v", tc.html, got, want)
			}
		})
	}
}

// TestScanLinksManuals checks scanLinks against the tokenizer on the
// manuals' pages (every one, or one in 25 under the race detector).
func TestScanLinksManuals(t *testing.T) {
	w := Manuals(t)
	s := w.content.(*static)
	for i, u := range w.Pages() {
		if raceEnabled && i%25 != 0 {
			continue
		}
		r := s.lookup("http", hostPort("http", strings.SplitN(u, "/", 4)[2]), "/"+strings.SplitN(u, "/", 4)[3])
		b, err := os.ReadFile(r.file)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		got, want := scanLinks(b), tokenLinks(b)
		if !slices.Equal(got.hrefs, want.hrefs) || got.base != want.base || got.metaNoFollow != want.metaNoFollow {
			t.Errorf("%s (%s): scanLinks found %d links, base %q, nofollow %v; the tokenizer %d, %q, %v", u, r.file, len(got.hrefs), got.base, got.metaNoFollow, len(want.hrefs), want.base, want.metaNoFollow)
		}
	}
}
