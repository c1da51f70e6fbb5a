package webtable

import (
	"testing"
	"time"
)

// TestSitemapHintRecord: a sitemap's hints are kept in the fetch record
// and read back; a priority of 0 is kept, an absent one is not written.
func TestSitemapHintRecord(t *testing.T) {
	lm := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		h    *SitemapHint
		want string
	}{
		{"all", &SitemapHint{LastMod: lm, ChangeFreq: "daily", Priority: 0}, `{"url":"http://a/","sitemap_lastmod":"2026-11-29T08:00:00.000Z","changefreq":"daily","priority":0,"sitemap":true}`},
		{"listed only", &SitemapHint{Priority: -1}, `{"url":"http://a/","sitemap":true}`},
		{"not listed", nil, `{"url":"http://a/"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := encodeFetchRecord(Fetch{URL: "http://a/", Sitemap: tc.h})
			if string(v) != tc.want {
				t.Errorf("encodeFetchRecord = %s, want %s", v, tc.want)
			}
			var got Fetch
			if err := decodeFetchRecord(&got, v); err != nil {
				t.Fatal(err)
			}
			if (got.Sitemap == nil) != (tc.h == nil) || (tc.h != nil && (*got.Sitemap != *tc.h)) {
				t.Errorf("decodeFetchRecord(%s).Sitemap = %+v, want %+v", v, got.Sitemap, tc.h)
			}
		})
	}
}
