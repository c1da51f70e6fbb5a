package webtable

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
)

// TestFreshRows checks when freshRows says a row holds no fetch: only
// after a call that queued it as new, and never once a save of it started
// after that call began, nor while one runs.
func TestFreshRows(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(f *freshRows) // ends with what "a" should be
		want bool
	}{
		{"queued as new", func(f *freshRows) { f.add(f.start(), []string{"a"}) }, true},
		{"never queued", func(f *freshRows) { f.add(f.start(), []string{"b"}) }, false},
		{"saved since", func(f *freshRows) {
			f.add(f.start(), []string{"a"})
			f.saveStarts("a")
			f.saveEnds("a")
		}, false},
		{"being saved", func(f *freshRows) {
			f.saveStarts("a")
			f.add(f.start(), []string{"a"}) // a save running: not added
		}, false},
		{"a redirect to it saved", func(f *freshRows) {
			f.add(f.start(), []string{"a"})
			f.saveStarts("src", "a")
			f.saveEnds("src", "a")
		}, false},
		{"saved while the queueing call ran", func(f *freshRows) {
			since := f.start()
			f.saveStarts("a") // committed before the call read "a" as unknown
			f.saveEnds("a")
			f.add(since, []string{"a"})
		}, false},
		{"other rows saved while the queueing call ran", func(f *freshRows) {
			since := f.start()
			f.saveStarts("b")
			f.saveEnds("b")
			f.add(since, []string{"a"})
		}, true},
		{"more saves than the log holds while the call ran", func(f *freshRows) {
			since := f.start()
			for range logLen / 2 {
				f.saveStarts("b")
				f.saveEnds("b")
			}
			f.add(since, []string{"a"})
		}, false},
		{"full", func(f *freshRows) { f.add(f.start(), []string{"x", "y", "a"}) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFreshRows(2)
			tc.run(f)
			if got := f.fresh("a"); got != tc.want {
				t.Errorf("fresh(a) = %v, want %v", got, tc.want)
			}
		})
	}
}

// checkedStore answers every LastFetch of the adapter's and checks it
// against the store's own answer (a second CrawlStore, which always reads);
// after each SavePage it asks for the page's row, which must be fetched.
type checkedStore struct {
	*CrawlStore
	t        *testing.T
	plain    *CrawlStore
	answered atomic.Int64 // LastFetch calls answered from memory
}

func (c *checkedStore) LastFetch(ctx context.Context, key string) (crawlstore.Fetch, bool, error) {
	if c.fresh.fresh(key) {
		c.answered.Add(1)
	}
	f, ok, err := c.CrawlStore.LastFetch(ctx, key)
	pf, pok, perr := c.plain.LastFetch(ctx, key)
	if ok != pok || f != pf || (err == nil) != (perr == nil) {
		c.t.Errorf("LastFetch(%s) = %+v, %v, %v; the store says %+v, %v, %v", key, f, ok, err, pf, pok, perr)
	}
	return f, ok, err
}

func (c *checkedStore) SavePage(ctx context.Context, p *crawlstore.Page) (crawlstore.SaveResult, error) {
	res, err := c.CrawlStore.SavePage(ctx, p)
	if err == nil {
		if _, ok, _ := c.LastFetch(ctx, p.Key); !ok {
			c.t.Errorf("LastFetch(%s) after its save: not fetched", p.URL)
		}
	}
	return res, err
}

// TestFreshRowsAnswerLikeTheStore crawls a generated site through a
// CrawlStore and checks that every LastFetch it answers without reading (a
// row it queued as new) is what the store says, and that a saved page is
// never answered as unfetched.
func TestFreshRowsAnswerLikeTheStore(t *testing.T) {
	const pages = 300
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"} {
		t.Setenv(k, "")
	}
	srv := crawlertest.GenSite(pages)
	t.Cleanup(srv.Close)
	w, _ := openTemp(t)
	s := &checkedStore{CrawlStore: w.CrawlStore(), t: t, plain: w.CrawlStore()}
	cfg := crawler.DefaultConfig()
	cfg.Delay, cfg.Concurrency, cfg.PerHost, cfg.Depth = 0, 8, 8, 10
	c, err := crawler.New(cfg, s)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := c.Run(context.Background(), []string{srv.URL + "/"})
	if err != nil || st.Fetched != pages {
		t.Fatalf("fetched %d of %d pages (err %v)", st.Fetched, pages, err)
	}
	if n := s.answered.Load(); n < pages/2 {
		t.Errorf("%d of the crawl's LastFetch calls were answered without a read, want most of %d", n, pages)
	}
}
