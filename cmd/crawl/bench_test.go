package main

import (
	"context"
	"flag"
	"path/filepath"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawler/crawlertest"
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
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"} {
		b.Setenv(k, "")
	}
	n := *benchPages
	srv := crawlertest.GenSite(n)
	defer srv.Close()
	const conc = 8
	var ours, theirs time.Duration
	for range b.N {
		w, err := webtable.Open(context.Background(), filepath.Join(b.TempDir(), "db"), webtable.Options{})
		if err != nil {
			b.Fatal(err)
		}
		cfg := crawler.DefaultConfig()
		cfg.Delay, cfg.Concurrency, cfg.PerHost, cfg.Depth = 0, conc, conc, 10
		c, err := crawler.New(cfg, newStore(w))
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		st, err := c.Run(context.Background(), []string{srv.URL + "/"})
		ours += time.Since(start)
		c.Close()
		w.Close()
		if err != nil || st.Fetched != int64(n) {
			b.Fatalf("crawler into the WebTable: fetched %d of %d pages (err %v)", st.Fetched, n, err)
		}

		start = time.Now()
		got, err := crawlertest.PlainColly(srv.URL+"/", conc)
		theirs += time.Since(start)
		if err != nil || got != int64(n) {
			b.Fatalf("plain colly fetched %d of %d pages (err %v)", got, n, err)
		}
	}
	oursPS := float64(n*b.N) / ours.Seconds()
	theirsPS := float64(n*b.N) / theirs.Seconds()
	b.ReportMetric(oursPS, "pages/s")
	b.ReportMetric(theirsPS, "colly-pages/s")
	b.ReportMetric(oursPS/theirsPS, "ratio")
	b.ReportMetric(0, "ns/op")
	b.Logf("site of %d pages: crawler into the WebTable %.0f pages/s, plain colly without storage %.0f pages/s, ratio %.2f", n, oursPS, theirsPS, oursPS/theirsPS)
}
