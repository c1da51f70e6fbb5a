package main

import (
	"context"
	"flag"
	"path/filepath"
	"testing"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/webtable"
)

var benchPages = flag.Int("site-pages", 10000, "pages of the generated site crawled by BenchmarkCrawlIntoWebTable")

// BenchmarkCrawlIntoWebTable crawls a generated site of -site-pages pages
// (default 10,000) on loopback with zero delay and 8 fetches in flight,
// with this crawler into the real WebTable (the embedded Badger store,
// every page, anchor and frontier entry written as in a real crawl), and
// with plain colly fetching the same site with no storage, one after the
// other in each iteration; it reports pages/s of both and their ratio. Run
// with -benchtime 1x.
func BenchmarkCrawlIntoWebTable(b *testing.B) {
	const conc = 8
	crawlertest.CompareWithColly(b, *benchPages, conc, func(root string) (int64, error) {
		w, err := stores.Open(context.Background(), filepath.Join(b.TempDir(), "db"), stores.ForCrawl, webtable.Options{})
		if err != nil {
			return 0, err
		}
		defer w.Close()
		cfg := crawler.DefaultConfig()
		cfg.Delay, cfg.Concurrency, cfg.PerHost, cfg.Depth = 0, conc, conc, 10
		s := newStore(w)
		defer s.cutOffAfter(context.Background(), storeGrace)() // as crawlOnce does
		c, err := crawler.New(cfg, s)
		if err != nil {
			return 0, err
		}
		defer c.Close()
		st, err := c.Run(context.Background(), []string{root})
		return st.Fetched, err
	})
}
