package crawlertest

import (
	"fmt"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// DueStore is a Store that keeps due times: what a continuous crawl
// needs.
type DueStore interface {
	crawlstore.Store
	crawlstore.DueKeeper
}

// DueKeeperContract runs the contract of crawlstore.DueKeeper, each case
// on a fresh store from newStore: due pages come back into the frontier
// when due, with their sitemap hints, once each, by shard, and the change
// history reads back with the fetch.
func DueKeeperContract(t *testing.T, newStore func(t *testing.T) DueStore) {
	t.Helper()
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, s DueStore)
	}{
		{"TakeDueQueuesDuePages", testTakeDue},
		{"TakeDueByShard", testTakeDueByShard},
		{"FetchedAgainIsDueOnce", testFetchedAgainIsDueOnce},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

// duePage is a fetched page of url due after due, with a change history.
func duePage(url string, due time.Duration, hint crawlstore.SitemapHint) *crawlstore.Page {
	p := html(url, at(0), "x")
	p.Sitemap = hint
	p.Change = crawlstore.Change{Visits: 2, Changes: 1, Span: time.Hour, Shortest: 20 * time.Minute, Dated: 3, DatedChanges: 2,
		Quiet: 3 * time.Hour, Modified: at(-60), Rate: 1.0 / 3600, Due: at(0).Add(due)}
	return p
}

func testTakeDue(t *testing.T, s DueStore) {
	hint := crawlstore.SitemapHint{LastMod: at(-3600), ChangeFreq: "daily", Priority: 0.5, Listed: true}
	pages := []*crawlstore.Page{
		duePage("http://a.example/1", time.Hour, hint),
		duePage("http://a.example/2", 2*time.Hour, crawlstore.SitemapHint{}),
		duePage("http://b.example/1", time.Hour, crawlstore.SitemapHint{}),
	}
	for _, p := range pages {
		save(t, s, p)
	}
	if f, ok := last(t, s, pages[0].URL); !ok || f.Change != pages[0].Change || f.Sitemap != hint {
		t.Errorf("LastFetch(%s) = %+v, %+v (ok %v); want the change %+v and hint %+v", pages[0].URL, f.Change, f.Sitemap, ok, pages[0].Change, hint)
	}
	n, next, err := s.TakeDue(ctx, 0, 0, at(0).Add(30*time.Minute), 100)
	if err != nil || n != 0 || !next.Equal(at(0).Add(time.Hour)) {
		t.Errorf("TakeDue before any is due = %d, next %v, %v; want 0, next %v", n, next, err, at(0).Add(time.Hour))
	}
	n, next, err = s.TakeDue(ctx, 0, 0, at(0).Add(time.Hour), 100)
	if err != nil || n != 2 || !next.Equal(at(0).Add(2*time.Hour)) {
		t.Errorf("TakeDue at 1h = %d, next %v, %v; want 2, next %v", n, next, err, at(0).Add(2*time.Hour))
	}
	if q := queued(t, s); len(q) != 2 {
		t.Errorf("frontier after TakeDue at 1h = %v, want a.example/1 and b.example/1", q)
	}
	b, err := s.Next(ctx, "a.example", "", 10)
	if err != nil || len(b.Entries) != 1 || b.Entries[0].Sitemap != hint {
		t.Errorf("Next(a.example) = %+v, %v; want a.example/1 with its hint %+v", b.Entries, err, hint)
	}
	if n, _, err := s.TakeDue(ctx, 0, 0, at(0).Add(time.Hour), 100); err != nil || n != 0 {
		t.Errorf("TakeDue again at 1h = %d, %v; want 0 (taken once)", n, err)
	}
	if n, next, err := s.TakeDue(ctx, 0, 0, at(0).Add(3*time.Hour), 100); err != nil || n != 1 || !next.IsZero() {
		t.Errorf("TakeDue at 3h = %d, next %v, %v; want 1, none left", n, next, err)
	}
}

// hostsOfShards returns a host of each shard of n.
func hostsOfShards(n int) []string {
	hosts := make([]string, n)
	for i, found := 0, 0; found < n; i++ {
		h := fmt.Sprintf("h%d.example", i)
		if s := crawlstore.ShardOf(h, n); hosts[s] == "" {
			hosts[s] = h
			found++
		}
	}
	return hosts
}

func testTakeDueByShard(t *testing.T, s DueStore) {
	hosts := hostsOfShards(2)
	for _, h := range hosts {
		save(t, s, duePage("http://"+h+"/", time.Hour, crawlstore.SitemapHint{}))
	}
	for shard, h := range hosts {
		n, _, err := s.TakeDue(ctx, shard, 2, at(0).Add(time.Hour), 100)
		if err != nil || n != 1 {
			t.Errorf("TakeDue of shard %d/2 = %d, %v; want 1 (%s)", shard, n, err, h)
		}
		var got []string
		if err := s.Hosts(ctx, shard, 2, func(host string) bool { got = append(got, host); return true }); err != nil || len(got) != 1 || got[0] != h {
			t.Errorf("Hosts of shard %d/2 after its TakeDue = %v, %v; want [%s]", shard, got, err, h)
		}
	}
}

// testFetchedAgainIsDueOnce: a page fetched again before it was due (a
// sitemap said it changed) is due at its new time only: the entry of the
// fetch before queues nothing.
func testFetchedAgainIsDueOnce(t *testing.T, s DueStore) {
	p := duePage("http://a.example/", time.Hour, crawlstore.SitemapHint{})
	save(t, s, p)
	again := duePage("http://a.example/", 0, crawlstore.SitemapHint{})
	again.Time = at(600)
	again.Change.Due = at(600).Add(2 * time.Hour)
	save(t, s, again)
	if n, next, err := s.TakeDue(ctx, 0, 0, at(0).Add(time.Hour), 100); err != nil || n != 0 {
		t.Errorf("TakeDue at the first due time = %d (next %v), %v; want 0: the page was fetched since, due later", n, next, err)
	}
	if q := queued(t, s); len(q) != 0 {
		t.Errorf("frontier = %v, want nothing queued", q)
	}
	if n, _, err := s.TakeDue(ctx, 0, 0, again.Change.Due, 100); err != nil || n != 1 {
		t.Errorf("TakeDue at the new due time = %d, %v; want 1", n, err)
	}
}
