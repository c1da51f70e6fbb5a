package webtable

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// TestSitemapHintSurvivesTheStore: an entry queued from a sitemap reads
// back from the frontier with its hint after the store is closed and
// opened again, its delete takes the hint's cell, and a due entry of a
// listed page is queued again with its hint.
func TestSitemapHintSurvivesTheStore(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "webtable.db")
	w := openDir(t, dir, true, Options{})
	lastmod := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	hint := crawlstore.SitemapHint{LastMod: lastmod, ChangeFreq: "daily", Priority: 0.8, Listed: true}
	bare := crawlstore.SitemapHint{Listed: true, Priority: -1}
	entries := []crawlstore.Entry{
		{URL: "http://a.test/1", Depth: 1, Sitemap: hint},
		{URL: "http://a.test/2", Depth: 1, Sitemap: bare},
		{URL: "http://a.test/3", Depth: 2},
	}
	if _, err := w.CrawlStore().Enqueue(ctx, entries, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	w = openDir(t, dir, true, Options{})
	t.Cleanup(func() { w.Close() })
	cs := w.CrawlStore()
	b, err := cs.Next(ctx, "a.test", "", 10)
	if err != nil || len(b.Entries) != 3 {
		t.Fatalf("Next after reopening = %+v, %v; want 3 entries", b, err)
	}
	for i, e := range b.Entries {
		if e.Sitemap != entries[i].Sitemap {
			t.Errorf("entry %s after reopening has hint %+v, want %+v", e.URL, e.Sitemap, entries[i].Sitemap)
		}
	}
	// Fetched: the entry goes, hint and all; the hint moves to the due
	// entry, and comes back with the page when it is due.
	e := b.Entries[0]
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	p := &crawlstore.Page{URL: e.URL, FinalURL: e.URL, Key: e.Key, Frontier: e.Frontier, Depth: 1, Sitemap: e.Sitemap, Time: at,
		Status: 200, Change: crawlstore.Change{Rate: -1, Due: at.Add(time.Hour)}}
	if _, err := cs.SavePage(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := w.FlushDeletes(ctx); err != nil {
		t.Fatal(err)
	}
	if got := entryCells(t, w, e.Frontier); got != "[]" {
		t.Errorf("the entry of a saved listed page holds %s, want nothing", got)
	}
	if f, _, err := cs.LastFetch(ctx, e.Key); err != nil || f.Sitemap != hint {
		t.Errorf("LastFetch(%s).Sitemap = %+v, %v; want %+v", e.Key, f.Sitemap, err, hint)
	}
	if n, _, err := cs.TakeDue(ctx, 0, 0, at.Add(time.Hour), 10); err != nil || n != 1 {
		t.Fatalf("TakeDue = %d, %v; want 1", n, err)
	}
	b, err = cs.Next(ctx, "a.test", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, got := range b.Entries {
		if got.Key == e.Key {
			found = true
			if got.Sitemap != hint {
				t.Errorf("due page queued again with hint %+v, want %+v", got.Sitemap, hint)
			}
		}
	}
	if !found {
		t.Errorf("due page %s not queued again: %+v", e.URL, b.Entries)
	}
}

// TestHintOnlyRowIsStale: a frontier row of a sitemap hint without its
// entry (an older program deleted only fetch:entry) is deleted by the
// next read, not reported.
func TestHintOnlyRowIsStale(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	k := FrontierEntryKey("a.test", 1, 7)
	m := bigtable.NewMutation()
	m.SetOnlyVersion(FamilyFetch, colSitemap, FrontierTime, sitemapValue(crawlstore.SitemapHint{Listed: true, Priority: 0.5}))
	if err := w.tbl.Apply(ctx, k, m); err != nil {
		t.Fatal(err)
	}
	p, err := w.FrontierNext(ctx, "a.test", "", 10, nil)
	if err != nil || len(p.Entries) != 0 || len(p.Bad) != 0 || p.Stale != 1 {
		t.Errorf("FrontierNext over a hint-only row = %+v, %v; want one stale row, nothing bad", p, err)
	}
	if got := entryCells(t, w, k); got != "[]" {
		t.Errorf("hint-only row holds %s after the read, want nothing", got)
	}
}

// TestChangeRecordDated: the estimate from Last-Modified dates reads
// back with the fetch record.
func TestChangeRecordDated(t *testing.T) {
	ctx := context.Background()
	w, _ := openTemp(t)
	cs := w.CrawlStore()
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	c := crawlstore.Change{Visits: 3, Changes: 1, Span: 5 * time.Hour, Shortest: time.Hour, Dated: 4, DatedChanges: 2,
		Quiet: 30 * time.Hour, Modified: at.Add(-2 * time.Hour), Rate: 1.0 / (30 * 3600), Due: at.Add(7 * time.Hour)}
	key, _ := urlkey.Key("http://a.test/")
	p := &crawlstore.Page{URL: "http://a.test/", FinalURL: "http://a.test/", Key: key, Time: at, Status: 200, Change: c}
	if _, err := cs.SavePage(ctx, p); err != nil {
		t.Fatal(err)
	}
	if f, _, err := cs.LastFetch(ctx, key); err != nil || f.Change != c {
		t.Errorf("LastFetch.Change = %+v, %v\nwant                %+v", f.Change, err, c)
	}
}

// FuzzSitemapValue: a fetch:sitemap value either is refused or reads
// back the same after writing it again.
func FuzzSitemapValue(f *testing.F) {
	f.Add([]byte(`{"lastmod":"2026-11-29T08:00:00.000Z","changefreq":"daily","priority":0.8}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"priority":2}`))
	f.Add([]byte(`{"lastmod":"x"} {}`))
	f.Fuzz(func(t *testing.T, v []byte) {
		h, err := parseSitemapValue(v)
		if err != nil {
			return
		}
		again, err := parseSitemapValue(sitemapValue(h))
		if err != nil || !again.LastMod.Equal(h.LastMod.Truncate(time.Millisecond)) || again.ChangeFreq != h.ChangeFreq || again.Priority != h.Priority || !again.Listed {
			t.Errorf("parseSitemapValue(%q) = %+v; written again it reads %+v, %v", v, h, again, err)
		}
	})
}
