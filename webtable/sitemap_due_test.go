package webtable

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// TestSitemapSchedules: schedules survive a reopen, a save replaces the
// last, and each shard lists the sitemaps of its own hosts only.
func TestSitemapSchedules(t *testing.T) {
	ctx := context.Background()
	w, dir := openTemp(t)
	hosts := make([]string, 2)
	for i, found := 0, 0; found < 2; i++ {
		h := fmt.Sprintf("h%d.sitemap.test", i)
		if s := crawlstore.ShardOf(h, 2); hosts[s] == "" {
			hosts[s] = h
			found++
		}
	}
	t0 := time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC)
	s := w.CrawlStore()
	want := map[string]crawlstore.SitemapSchedule{}
	for i, h := range hosts {
		sc := crawlstore.SitemapSchedule{URL: "http://" + h + "/sitemap.xml", Host: h, Due: t0.Add(time.Duration(i) * time.Hour)}
		if err := s.SaveSitemap(ctx, sc); err != nil {
			t.Fatal(err)
		}
		sc.Read, sc.ETag, sc.LastModified, sc.SHA256 = t0, `"v1"`, "Sat, 05 Dec 2026 00:00:00 GMT", "ab12"
		sc.Visits, sc.Changes, sc.Span = 3, 1, 90*time.Minute
		if err := s.SaveSitemap(ctx, sc); err != nil {
			t.Fatal(err)
		}
		want[h] = sc
	}
	if err := s.SaveSitemap(ctx, crawlstore.SitemapSchedule{URL: "http://x/", Host: "a/b"}); err == nil {
		t.Error("SaveSitemap of a host with a slash succeeded, want an error")
	}
	w.Close()
	w = openDir(t, dir, true, Options{})
	defer w.Close()
	s = w.CrawlStore()
	for i, h := range hosts {
		got, ok, err := s.Sitemap(ctx, "http://"+h+"/sitemap.xml")
		if err != nil || !ok || got != want[h] {
			t.Errorf("Sitemap(%s) after a reopen = %+v, %v, %v; want %+v", h, got, ok, err, want[h])
		}
		var listed []crawlstore.SitemapSchedule
		if err := s.Sitemaps(ctx, i, 2, func(sc crawlstore.SitemapSchedule) bool { listed = append(listed, sc); return true }); err != nil {
			t.Fatal(err)
		}
		if len(listed) != 1 || listed[0] != want[h] {
			t.Errorf("Sitemaps of shard %d/2 = %+v, want only %s's", i, listed, h)
		}
	}
	if _, ok, err := s.Sitemap(ctx, "http://none.test/sitemap.xml"); ok || err != nil {
		t.Errorf("Sitemap of a sitemap never saved = %v, %v; want none, no error", ok, err)
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
