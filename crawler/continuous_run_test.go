package crawler

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/sitemap"
)

// continuousRun is a continuous crawl running in the background on a
// manual clock; waited receives once each time the crawl waits on the
// clock (between rounds: the tests use no budget).
type continuousRun struct {
	c      *Crawler
	cancel context.CancelFunc
	done   chan error
}

// startContinuous starts RunContinuous of cfg (Continuous set, on clock)
// over store from seeds.
func startContinuous(t *testing.T, cfg Config, clock *manualClock, store crawlstore.Store, seeds ...string) *continuousRun {
	t.Helper()
	cfg.Continuous, cfg.Clock = true, clock
	cfg.MinInterval, cfg.MaxInterval = time.Hour, 10*time.Hour
	c, err := New(cfg, store)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &continuousRun{c: c, cancel: cancel, done: make(chan error, 1)}
	go func() {
		_, err := c.RunContinuous(ctx, seeds)
		r.done <- err
	}()
	t.Cleanup(r.stop)
	return r
}

// stop ends the crawl (a restart's first half) and waits for it.
func (r *continuousRun) stop() {
	if r.done == nil {
		return
	}
	r.cancel()
	<-r.done
	r.c.Close()
	r.done = nil
}

// fetchTimes returns when each fetch of url started, by the store's
// record of it and the requests the web saw.
func fetchedAt(t *testing.T, store *crawlertest.MemStore, url string) time.Time {
	t.Helper()
	row, ok := store.Row(url)
	if !ok {
		t.Fatalf("%s was never stored", url)
	}
	return row.Fetch.Time
}

// TestContinuousNewLinkWakesWait: while the crawl waits an hour for its
// next page due, a link queued meanwhile (the store is a QueueWatcher) is
// fetched at once, the clock unmoved; the due pages come when due.
func TestContinuousNewLinkWakesWait(t *testing.T) {
	w := newVWeb(t)
	w.site("a.test", "", map[string]string{"/": page(`<a href="/a">a</a>`), "/a": page("a"), "/new": page("new")})
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	clock := &manualClock{now: t0, waiting: make(chan struct{})}
	store := crawlertest.NewMemStore()
	startContinuous(t, w.config(), clock, store, "http://a.test/")
	<-clock.waiting // round 1 is over
	if got := w.paths("a.test"); len(got) != 2 {
		t.Fatalf("round 1 fetched %v, want / and /a", got)
	}
	if _, err := store.Enqueue(context.Background(), []crawlstore.Entry{{URL: "http://a.test/new", Depth: 1}}, crawlstore.Requeue{}); err != nil {
		t.Fatal(err)
	}
	<-clock.waiting // the clock did not move
	if got := w.paths("a.test"); len(got) != 3 || got[2] != "/new" {
		t.Fatalf("after a link was queued during the wait, fetched %v, want / and /a, then /new", got)
	}
	if at := fetchedAt(t, store, "http://a.test/new"); !at.Equal(t0) {
		t.Errorf("the new link was fetched at %v, want %v (at once, not when a page was due)", at, t0)
	}
	clock.advance(time.Hour)
	<-clock.waiting
	count := map[string]int{}
	for _, p := range w.paths("a.test") {
		count[p]++
	}
	if count["/"] != 2 || count["/a"] != 2 || count["/new"] != 2 {
		t.Errorf("an hour later fetched %v, want every page again, once", count)
	}
}

// TestContinuousSitemapLastmodAfterRestart: a crawl stopped and started
// again carries on the sitemap's schedule from the store: it does not
// read the sitemap before it is due; when it is, a lastmod newer than a
// page's last fetch makes the page due. (TestContinuousSitemapDue: a
// page fetched for its lastmod alone.)
func TestContinuousSitemapLastmodAfterRestart(t *testing.T) {
	w := newVWeb(t)
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	lastmod := t0.Add(-24 * time.Hour)
	pages := map[string]string{"/": page("home"), "/a": page("a")}
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(rw, "Sitemap: http://a.test/sitemap.xml\n")
		case "/sitemap.xml":
			mu.Lock()
			lm := lastmod
			mu.Unlock()
			if err := sitemap.Write(rw, sitemap.URLSet, []sitemap.URL{{Loc: "http://a.test/a", LastMod: lm, Priority: -1}}); err != nil {
				t.Error(err)
			}
		default:
			if body, ok := pages[r.URL.Path]; ok {
				rw.Header().Set("Content-Type", "text/html")
				fmt.Fprint(rw, body)
				return
			}
			http.NotFound(rw, r)
		}
	}))
	clock := &manualClock{now: t0, waiting: make(chan struct{})}
	store := crawlertest.NewMemStore()
	cfg := w.config()
	cfg.Sitemaps = []string{"http://a.test/sitemap.xml"} // --sitemap: read when due
	run := startContinuous(t, cfg, clock, store, "http://a.test/")
	<-clock.waiting
	if row, _ := store.Row("http://a.test/a"); !row.Fetch.Sitemap.LastMod.Equal(t0.Add(-24 * time.Hour)) {
		t.Fatalf("/a stored with hint %+v, want the sitemap's lastmod %v", row.Fetch.Sitemap, t0.Add(-24*time.Hour))
	}
	run.stop()

	clock.advance(10 * time.Minute) // /a is due at t0+1h
	mu.Lock()
	lastmod = t0.Add(5 * time.Minute)
	mu.Unlock()
	startContinuous(t, cfg, clock, store, "http://a.test/")
	<-clock.waiting
	count := map[string]int{}
	for _, p := range w.paths("a.test") {
		count[p]++
	}
	if count["/"] != 1 || count["/a"] != 1 || count["/sitemap.xml"] != 1 {
		t.Errorf("after the restart, before the sitemap is due (t0+1h), fetched %v, want each once: the schedule is kept in the store", count)
	}
	clock.advance(50 * time.Minute)
	<-clock.waiting
	count = map[string]int{}
	for _, p := range w.paths("a.test") {
		count[p]++
	}
	if count["/sitemap.xml"] != 2 || count["/a"] != 2 {
		t.Errorf("at t0+1h fetched %v, want the sitemap and /a again", count)
	}
	if sc := store.SitemapSchedules()["http://a.test/sitemap.xml"]; sc.Visits != 1 || sc.Changes != 1 {
		t.Errorf("the sitemap's schedule after its second read = %+v, want one visit that found it changed", sc)
	}
}

// TestContinuousDatesByLastModified: the live crawl keeps a page's
// Last-Modified date with its estimate, and a page that sends one has a
// rate after its second fetch, where one without needs a third.
func TestContinuousDatesByLastModified(t *testing.T) {
	w := newVWeb(t)
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	modified := t0.Add(-48 * time.Hour)
	body := page(`<a href="/undated">u</a>`)
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			rw.Header().Set("Content-Type", "text/html")
			http.ServeContent(rw, r, "index.html", modified, strings.NewReader(body))
		case "/undated":
			rw.Header().Set("Content-Type", "text/html")
			fmt.Fprint(rw, page("undated"))
		default:
			http.NotFound(rw, r)
		}
	}))
	clock := &manualClock{now: t0, waiting: make(chan struct{})}
	store := crawlertest.NewMemStore()
	startContinuous(t, w.config(), clock, store, "http://a.test/")
	<-clock.waiting
	row, _ := store.Row("http://a.test/")
	if c := row.Fetch.Change; c.Dated != 1 || !c.Modified.Equal(modified) || c.Quiet != 48*time.Hour {
		t.Fatalf("first fetch's change = %+v, want dated once, modified %v, quiet 48h", c, modified)
	}
	clock.advance(time.Hour)
	<-clock.waiting
	row, _ = store.Row("http://a.test/")
	if c := row.Fetch.Change; c.Dated != 2 || c.Rate <= 0 || !c.Modified.Equal(modified) {
		t.Errorf("second fetch's change = %+v, want dated twice, a rate, modified %v", c, modified)
	}
	if undated, _ := store.Row("http://a.test/undated"); undated.Fetch.Change.Rate != -1 || undated.Fetch.Change.Visits != 1 {
		t.Errorf("undated page's change after two fetches = %+v, want one visit and no rate yet", undated.Fetch.Change)
	}
}
