package crawler

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/webtable/webtable/urlkey"
)

func TestExtractLinks(t *testing.T) {
	tests := []struct {
		name  string
		html  string
		ctype string
		want  extracted
	}{
		{
			name: "text collapsed, entities decoded",
			html: "<a href='/a?x=1&amp;y=2'>  Tom &amp;\n\t Jerry </a>",
			want: extracted{Links: []rawLink{{Href: "/a?x=1&y=2", Text: "Tom & Jerry"}}},
		},
		{
			name: "image alt when no text",
			html: `<a href="/i"><img alt=" Logo  "></a><a href="/t">Text<img alt="ignored"></a>`,
			want: extracted{Links: []rawLink{{Href: "/i", Text: "Logo"}, {Href: "/t", Text: "Text"}}},
		},
		{
			name: "nested tags inside the anchor",
			html: `<a href="/n"><span>Hello</span> <b>world</b></a>`,
			want: extracted{Links: []rawLink{{Href: "/n", Text: "Hello world"}}},
		},
		{
			name: "unclosed anchor ends at the next one",
			html: `<a href="/1">one <a href="/2">two`,
			want: extracted{Links: []rawLink{{Href: "/1", Text: "one"}, {Href: "/2", Text: "two"}}},
		},
		{
			name: "script and style text skipped",
			html: `<a href="/s">a<script>x()</script><style>.c{}</style>b</a>`,
			want: extracted{Links: []rawLink{{Href: "/s", Text: "ab"}}},
		},
		{
			name: "rel nofollow in a list",
			html: `<a href="/n" rel="external NOFOLLOW">n</a><a href="/f" rel="nofollowx">f</a>`,
			want: extracted{Links: []rawLink{{Href: "/n", Text: "n", NoFollow: true}, {Href: "/f", Text: "f"}}},
		},
		{
			name: "first base wins",
			html: `<base href=" http://x.test/b/ "><base href="http://y.test/"><a href="r">r</a>`,
			want: extracted{Base: "http://x.test/b/", Links: []rawLink{{Href: "r", Text: "r"}}},
		},
		{
			name: "meta robots none",
			html: `<meta name="robots" content="none"><a href="/x">x</a>`,
			want: extracted{MetaNoFollow: true, Links: []rawLink{{Href: "/x", Text: "x"}}},
		},
		{
			name: "meta for another robot ignored",
			html: `<meta name="googlebot" content="nofollow"><a href="/x">x</a>`,
			want: extracted{Links: []rawLink{{Href: "/x", Text: "x"}}},
		},
		{
			name: "area and anchors without href",
			html: `<a name="top">top</a><map><area href="/m" alt="Map"></map>`,
			want: extracted{Links: []rawLink{{Href: "/m"}}},
		},
		{
			name:  "latin-1 decoded from Content-Type",
			html:  "<a href='/c'>caf\xe9</a>",
			ctype: "text/html; charset=iso-8859-1",
			want:  extracted{Links: []rawLink{{Href: "/c", Text: "café"}}},
		},
		{
			name: "invalid UTF-8 replaced",
			html: "<meta charset=utf-8><a href='/u'>a\xffb</a>",
			want: extracted{Links: []rawLink{{Href: "/u", Text: "a\ufffdb"}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := extractLinks([]byte(tc.html), tc.ctype)
			got.Charset = ""
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(extracted{}, rawLink{})); diff != "" {
				t.Errorf("extractLinks(%q) (-want +got):\n%s", tc.html, diff)
			}
		})
	}
}

func TestExtractLinksBounded(t *testing.T) {
	var b strings.Builder
	for range 3 * maxRawLinks {
		b.WriteString(`<a href="/x">x</a>`)
	}
	b.WriteString(`<a href="/long">` + strings.Repeat("word ", 1000) + `</a>`)
	got := extractLinks([]byte(b.String()), "text/html")
	if len(got.Links) != maxRawLinks {
		t.Errorf("links = %d, want the cap %d", len(got.Links), maxRawLinks)
	}
	long := extractLinks([]byte(`<a href="/long">`+strings.Repeat("word ", 1000)+`</a>`), "")
	if n := len(long.Links[0].Text); n > maxAnchorText {
		t.Errorf("anchor text of %d bytes, want at most %d", n, maxAnchorText)
	}
}

// FuzzExtractLinks feeds arbitrary bytes and Content-Types through
// extraction and link resolution: it must not panic, texts are valid
// collapsed UTF-8, and kept links are canonical, distinct and bounded.
func FuzzExtractLinks(f *testing.F) {
	f.Add([]byte(`<base href="/d/"><a href="x">X</a><a href="x" rel=nofollow>Y</a><img alt=z>`), "text/html")
	f.Add([]byte("<meta charset=shift_jis><a href=/\x93\xfa>\x93\xfa\x96\x7b</a>"), "")
	f.Add([]byte(`<a href="javascript:x"><a href="//h.test/p?q#f">`), "text/html; charset=gbk")
	f.Fuzz(func(t *testing.T, body []byte, ctype string) {
		ex := extractLinks(body, ctype)
		if len(ex.Links) > maxRawLinks {
			t.Fatalf("%d raw links, cap %d", len(ex.Links), maxRawLinks)
		}
		for _, l := range ex.Links {
			if !utf8.ValidString(l.Text) || l.Text != strings.Join(strings.Fields(l.Text), " ") || len(l.Text) > maxAnchorText {
				t.Fatalf("anchor text %q not valid collapsed UTF-8 within bounds", l.Text)
			}
		}
		r := &run{c: &Crawler{cfg: DefaultConfig()}, domains: []string{"a.test"}, sched: newScheduler(1, 0, 0), stats: newStatsRecorder(nil)}
		final, _ := urlkey.Canonical("http://a.test/dir/page.html")
		p := &Page{URL: final.String(), FinalURL: final.String()}
		r.links(p, Entry{}, final, ex)
		if len(p.Links) > DefaultMaxLinks {
			t.Fatalf("%d links kept, cap %d", len(p.Links), DefaultMaxLinks)
		}
		keys := map[string]bool{}
		for _, l := range p.Links {
			u, err := urlkey.Canonical(l.URL)
			if err != nil || u.String() != l.URL {
				t.Fatalf("link %q is not canonical (%v)", l.URL, err)
			}
			k := urlkey.KeyOf(u)
			if keys[k] || k == urlkey.KeyOf(final) {
				t.Fatalf("link %q repeated or to the page itself", l.URL)
			}
			keys[k] = true
		}
		for _, e := range p.Discovered {
			if e.Depth != 1 {
				t.Fatalf("discovered %v at depth %d, want 1", e.URL, e.Depth)
			}
		}
	})
}
