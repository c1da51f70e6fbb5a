package crawler

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/extract"
	"github.com/webtable/webtable/urlkey"
)

// FuzzExtractLinks feeds arbitrary bytes and Content-Types through
// extraction and link resolution: it must not panic, texts are valid
// collapsed UTF-8, and kept links are canonical, distinct and bounded.
func FuzzExtractLinks(f *testing.F) {
	f.Add([]byte(`<base href="/d/"><a href="x">X</a><a href="x" rel=nofollow>Y</a><img alt=z>`), "text/html")
	f.Add([]byte("<meta charset=shift_jis><a href=/\x93\xfa>\x93\xfa\x96\x7b</a>"), "")
	f.Add([]byte(`<a href="javascript:x"><a href="//h.test/p?q#f">`), "text/html; charset=gbk")
	f.Fuzz(func(t *testing.T, body []byte, ctype string) {
		ex := extract.Extract(body, ctype)
		if len(ex.Links) > extract.MaxLinks {
			t.Fatalf("%d raw links, cap %d", len(ex.Links), extract.MaxLinks)
		}
		for _, l := range ex.Links {
			if !utf8.ValidString(l.Text) || l.Text != strings.Join(strings.Fields(l.Text), " ") || len(l.Text) > extract.MaxAnchorText {
				t.Fatalf("anchor text %q not valid collapsed UTF-8 within bounds", l.Text)
			}
		}
		r := &run{c: &Crawler{cfg: DefaultConfig()}, domains: []string{"a.test"}, sched: newScheduler(1, 0, 0), stats: newStatsRecorder(nil)}
		final, _ := urlkey.Canonical("http://a.test/dir/page.html")
		p := &crawlstore.Page{URL: final.String(), FinalURL: final.String()}
		r.links(p, crawlstore.Entry{}, final, ex)
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
