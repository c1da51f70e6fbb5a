package crawler_test

import (
	"context"
	"flag"
	"testing"
	"time"

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
	clearProxyEnvB(b)
	n := *sitePages
	srv := crawlertest.GenSite(n)
	defer srv.Close()
	const conc = 8
	var ours, theirs time.Duration
	for range b.N {
		// This crawler.
		cfg := crawler.DefaultConfig()
		cfg.Delay = 0
		cfg.Concurrency = conc
		cfg.PerHost = conc
		cfg.Depth = 10
		store := crawler.NewMemStore()
		c, err := crawler.New(cfg, store)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		st, err := c.Run(context.Background(), []string{srv.URL + "/"})
		ours += time.Since(start)
		c.Close()
		if err != nil || st.Fetched != int64(n) {
			b.Fatalf("webtable crawler: fetched %d of %d pages (err %v, stats %+v)", st.Fetched, n, err, st)
		}

		// Plain colly.
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
	b.Logf("site of %d pages: webtable crawler %.0f pages/s, plain colly %.0f pages/s, ratio %.2f", n, oursPS, theirsPS, oursPS/theirsPS)
}

func clearProxyEnvB(b *testing.B) {
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"} {
		b.Setenv(k, "")
	}
}
