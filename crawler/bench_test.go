package crawler_test

import (
	"context"
	"flag"
	"testing"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawler/crawlertest"
)

var sitePages = flag.Int("site-pages", 10000, "pages of the generated site crawled by BenchmarkCrawl")

// BenchmarkCrawl crawls a generated site of -site-pages pages (default
// 10,000) on loopback with zero delay and 8 fetches in flight, with this
// crawler into a MemStore and with plain colly (async, 8 in parallel, no
// storage), one after the other in each iteration, and reports pages/s of
// both and their ratio. Run with -benchtime 1x.
func BenchmarkCrawl(b *testing.B) {
	const conc = 8
	crawlertest.CompareWithColly(b, *sitePages, conc, func(root string) (int64, error) {
		cfg := crawler.DefaultConfig()
		cfg.Delay, cfg.Concurrency, cfg.PerHost, cfg.Depth = 0, conc, conc, 10
		c, err := crawler.New(cfg, crawlertest.NewMemStore())
		if err != nil {
			return 0, err
		}
		defer c.Close()
		st, err := c.Run(context.Background(), []string{root})
		return st.Fetched, err
	})
}
