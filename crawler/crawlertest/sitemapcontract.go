package crawlertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// SitemapKeeperContract runs the contract of crawlstore.SitemapKeeper on
// a fresh store from newStore: a schedule reads back as saved, a save
// replaces the last, an unknown sitemap is none (not an error), and each
// shard lists the sitemaps of its own hosts only.
func SitemapKeeperContract(t *testing.T, newStore func(t *testing.T) crawlstore.SitemapKeeper) {
	t.Helper()
	ctx := context.Background()
	s := newStore(t)
	hosts := make([]string, 2)
	for i, found := 0, 0; found < 2; i++ {
		h := fmt.Sprintf("h%d.sitemap.test", i)
		if sh := crawlstore.ShardOf(h, 2); hosts[sh] == "" {
			hosts[sh] = h
			found++
		}
	}
	t0 := time.Date(2026, 12, 5, 1, 0, 0, 0, time.UTC)
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
	for i, h := range hosts {
		got, ok, err := s.Sitemap(ctx, "http://"+h+"/sitemap.xml")
		if err != nil || !ok || got != want[h] {
			t.Errorf("Sitemap(%s) = %+v, %v, %v; want %+v", h, got, ok, err, want[h])
		}
		var listed []crawlstore.SitemapSchedule
		if err := s.Sitemaps(ctx, i, 2, func(sc crawlstore.SitemapSchedule) bool { listed = append(listed, sc); return true }); err != nil {
			t.Fatal(err)
		}
		if len(listed) != 1 || listed[0] != want[h] {
			t.Errorf("Sitemaps of shard %d/2 = %+v, want only %s's", i, listed, h)
		}
	}
	n := 0
	if err := s.Sitemaps(ctx, 0, 1, func(crawlstore.SitemapSchedule) bool { n++; return true }); err != nil || n != 2 {
		t.Errorf("Sitemaps of the whole crawl listed %d (%v), want both", n, err)
	}
	if _, ok, err := s.Sitemap(ctx, "http://none.test/sitemap.xml"); ok || err != nil {
		t.Errorf("Sitemap of a sitemap never saved = %v, %v; want none, no error", ok, err)
	}
}
