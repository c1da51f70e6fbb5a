package webtable

import (
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// TestSitemapHintRecord: a sitemap's hints are kept in the fetch record
// and read back; a priority of 0 is kept, an absent one is not written.
func TestSitemapHintRecord(t *testing.T) {
	lm := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		h    crawlstore.SitemapHint
		want string
	}{
		{"all", crawlstore.SitemapHint{Listed: true, LastMod: lm, ChangeFreq: "daily", Priority: 0}, `{"url":"http://a/","sitemap_lastmod":"2026-11-29T08:00:00.000Z","changefreq":"daily","priority":0,"sitemap":true}`},
		{"listed only", crawlstore.SitemapHint{Listed: true, Priority: -1}, `{"url":"http://a/","sitemap":true}`},
		{"not listed", crawlstore.SitemapHint{}, `{"url":"http://a/"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := encodeFetchRecord(crawlstore.Fetch{URL: "http://a/", Sitemap: tc.h})
			if string(v) != tc.want {
				t.Errorf("encodeFetchRecord = %s, want %s", v, tc.want)
			}
			var got crawlstore.Fetch
			if err := decodeFetchRecord(&got, v); err != nil {
				t.Fatal(err)
			}
			if got.Sitemap != tc.h {
				t.Errorf("decodeFetchRecord(%s).Sitemap = %+v, want %+v", v, got.Sitemap, tc.h)
			}
		})
	}
}
