package extract

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExtractLinks(t *testing.T) {
	tests := []struct {
		name  string
		html  string
		ctype string
		want  Links
	}{
		{
			name: "text collapsed, entities decoded",
			html: "<a href='/a?x=1&amp;y=2'>  Tom &amp;\n\t Jerry </a>",
			want: Links{Links: []Link{{Href: "/a?x=1&y=2", Text: "Tom & Jerry"}}},
		},
		{
			name: "image alt when no text",
			html: `<a href="/i"><img alt=" Logo  "></a><a href="/t">Text<img alt="ignored"></a>`,
			want: Links{Links: []Link{{Href: "/i", Text: "Logo"}, {Href: "/t", Text: "Text"}}},
		},
		{
			name: "nested tags inside the anchor",
			html: `<a href="/n"><span>Hello</span> <b>world</b></a>`,
			want: Links{Links: []Link{{Href: "/n", Text: "Hello world"}}},
		},
		{
			name: "unclosed anchor ends at the next one",
			html: `<a href="/1">one <a href="/2">two`,
			want: Links{Links: []Link{{Href: "/1", Text: "one"}, {Href: "/2", Text: "two"}}},
		},
		{
			name: "script and style text skipped",
			html: `<a href="/s">a<script>x()</script><style>.c{}</style>b</a>`,
			want: Links{Links: []Link{{Href: "/s", Text: "ab"}}},
		},
		{
			name: "rel nofollow in a list",
			html: `<a href="/n" rel="external NOFOLLOW">n</a><a href="/f" rel="nofollowx">f</a>`,
			want: Links{Links: []Link{{Href: "/n", Text: "n", NoFollow: true}, {Href: "/f", Text: "f"}}},
		},
		{
			name: "first base wins",
			html: `<base href=" http://x.test/b/ "><base href="http://y.test/"><a href="r">r</a>`,
			want: Links{Base: "http://x.test/b/", Links: []Link{{Href: "r", Text: "r"}}},
		},
		{
			name: "meta robots none",
			html: `<meta name="robots" content="none"><a href="/x">x</a>`,
			want: Links{MetaNoFollow: true, Links: []Link{{Href: "/x", Text: "x"}}},
		},
		{
			name: "meta for another robot ignored",
			html: `<meta name="googlebot" content="nofollow"><a href="/x">x</a>`,
			want: Links{Links: []Link{{Href: "/x", Text: "x"}}},
		},
		{
			name: "area and anchors without href",
			html: `<a name="top">top</a><map><area href="/m" alt="Map"></map>`,
			want: Links{Links: []Link{{Href: "/m"}}},
		},
		{
			name:  "latin-1 decoded from Content-Type",
			html:  "<a href='/c'>caf\xe9</a>",
			ctype: "text/html; charset=iso-8859-1",
			want:  Links{Links: []Link{{Href: "/c", Text: "café"}}},
		},
		{
			name: "invalid UTF-8 replaced",
			html: "<meta charset=utf-8><a href='/u'>a\xffb</a>",
			want: Links{Links: []Link{{Href: "/u", Text: "a\ufffdb"}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Extract([]byte(tc.html), tc.ctype)
			got.Charset = ""
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Extract(%q) (-want +got):\n%s", tc.html, diff)
			}
		})
	}
}

func TestExtractLinksBounded(t *testing.T) {
	var b strings.Builder
	for range 3 * MaxLinks {
		b.WriteString(`<a href="/x">x</a>`)
	}
	b.WriteString(`<a href="/long">` + strings.Repeat("word ", 1000) + `</a>`)
	got := Extract([]byte(b.String()), "text/html")
	if len(got.Links) != MaxLinks {
		t.Errorf("links = %d, want the cap %d", len(got.Links), MaxLinks)
	}
	long := Extract([]byte(`<a href="/long">`+strings.Repeat("word ", 1000)+`</a>`), "")
	if n := len(long.Links[0].Text); n > MaxAnchorText {
		t.Errorf("anchor text of %d bytes, want at most %d", n, MaxAnchorText)
	}
}
