package webtable

import (
	"context"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// TestSitemapSchedulesReopen: a schedule survives a reopen; a host with
// a slash is refused.
func TestSitemapSchedulesReopen(t *testing.T) {
	ctx := context.Background()
	w, dir := openTemp(t)
	sc := crawlstore.SitemapSchedule{URL: "http://a.test/sitemap.xml", Host: "a.test", Due: time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC),
		ETag: `"v1"`, Visits: 2, Changes: 1, Span: time.Hour}
	if err := w.CrawlStore().SaveSitemap(ctx, sc); err != nil {
		t.Fatal(err)
	}
	if err := w.CrawlStore().SaveSitemap(ctx, crawlstore.SitemapSchedule{URL: "http://x/", Host: "a/b"}); err == nil {
		t.Error("SaveSitemap of a host with a slash succeeded, want an error")
	}
	w.Close()
	w = openDir(t, dir, true, Options{})
	defer w.Close()
	if got, ok, err := w.CrawlStore().Sitemap(ctx, sc.URL); err != nil || !ok || got != sc {
		t.Errorf("Sitemap after a reopen = %+v, %v, %v; want %+v", got, ok, err, sc)
	}
}

// FuzzSitemapSchedule: a stored schedule that decodes encodes back to
// what decodes to the same; none panics.
func FuzzSitemapSchedule(f *testing.F) {
	f.Add(encodeSitemapSchedule(crawlstore.SitemapSchedule{URL: "http://a.test/sitemap.xml", Host: "a.test", Due: time.UnixMicro(1), ETag: `"x"`, Visits: 2, Changes: 1, Span: time.Hour}))
	f.Add([]byte(`{"url":"u","host":"h","due_us":-5,"visits":1,"changes":2}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, b []byte) {
		sc, err := decodeSitemapSchedule(b)
		if err != nil {
			return
		}
		again, err := decodeSitemapSchedule(encodeSitemapSchedule(sc))
		if err != nil || again != sc {
			t.Fatalf("%q decodes to %+v, which round-trips to %+v (%v)", b, sc, again, err)
		}
	})
}
