package main

import (
	"context"
	"flag"
	"path/filepath"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
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
		cfg.StoreGrace = storeGrace // as crawlOnce does
		c, err := crawler.New(cfg, w.CrawlStore())
		if err != nil {
			return 0, err
		}
		defer c.Close()
		st, err := c.Run(context.Background(), []string{root})
		return st.Fetched, err
	})
}

// BenchmarkCrawlCPU crawls the generated site of -site-pages pages as
// BenchmarkCrawlIntoWebTable does, into the WebTable (closing the store
// included), into memory (crawlertest.MemStore), and with plain colly, one
// after the other, and reports each one's pages/s and the CPU time of the
// whole process per page (cpu-us/page; the test site's server included,
// the same for all three). On a shared machine CPU per page moves less
// than pages/s; it is also what bounds a crawl on all cores. Profile one
// of them alone with -bench 'BenchmarkCrawlCPU/webtable' -cpuprofile.
// Run with -benchtime 1x or more.
func BenchmarkCrawlCPU(b *testing.B) {
	const conc = 8
	srv := genSite(b, *benchPages)
	root := srv.URL + "/"
	crawl := func(b *testing.B, s crawlstore.Store) int64 {
		cfg := crawler.DefaultConfig()
		cfg.Delay, cfg.Concurrency, cfg.PerHost, cfg.Depth = 0, conc, conc, 10
		c, err := crawler.New(cfg, s)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		st, err := c.Run(context.Background(), []string{root})
		if err != nil {
			b.Fatal(err)
		}
		return st.Fetched
	}
	for _, tc := range []struct {
		name string
		run  func(b *testing.B) int64
	}{
		{"webtable", func(b *testing.B) int64 {
			w, err := stores.Open(context.Background(), filepath.Join(b.TempDir(), "db"), stores.ForCrawl, webtable.Options{})
			if err != nil {
				b.Fatal(err)
			}
			n := crawl(b, w.CrawlStore())
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			return n
		}},
		{"memory", func(b *testing.B) int64 { return crawl(b, crawlertest.NewMemStore()) }},
		{"colly", func(b *testing.B) int64 {
			n, err := crawlertest.PlainColly(root, conc)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var pages int64
			var wall, cpu time.Duration
			for range b.N {
				c0, t0 := cpuTime(), time.Now()
				n := tc.run(b)
				wall += time.Since(t0)
				cpu += cpuTime() - c0
				if n != int64(*benchPages) {
					b.Fatalf("fetched %d of %d pages", n, *benchPages)
				}
				pages += n
			}
			b.ReportMetric(float64(pages)/wall.Seconds(), "pages/s")
			b.ReportMetric(float64(cpu.Microseconds())/float64(pages), "cpu-us/page")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkCrawlWhileScanned crawls the generated site into a store served
// over gRPC (crawl --serve), alone and then while one client scans the
// whole table in a loop through the server (as query reads a live crawl),
// and reports the crawl's pages/s both ways, the ratio, and how many full
// scans the client made. Run with -benchtime 1x.
func BenchmarkCrawlWhileScanned(b *testing.B) {
	const conc = 8
	srv := genSite(b, *benchPages)
	ctx := context.Background()
	crawlOnce := func(scan bool) (time.Duration, int) {
		dir := filepath.Join(b.TempDir(), "db")
		s, err := stores.OpenServed(ctx, dir, webtable.Options{}, "127.0.0.1:0", false)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		stop := make(chan struct{})
		scans := make(chan int, 1)
		if scan {
			live, err := stores.Open(ctx, dir, stores.ForRead, webtable.Options{}) // through the server: this process holds the store
			if err != nil {
				b.Fatal(err)
			}
			defer live.Close()
			go func() {
				n := 0
				for {
					select {
					case <-stop:
						scans <- n
						return
					default:
					}
					if err := live.Scan(ctx, nil, webtable.Query{Versions: -1}, 0, func(webtable.Row) bool { return true }); err != nil {
						b.Error(err)
					}
					n++
				}
			}()
		} else {
			scans <- 0
		}
		cfg := crawler.DefaultConfig()
		cfg.Delay, cfg.Concurrency, cfg.PerHost, cfg.Depth = 0, conc, conc, 10
		c, err := crawler.New(cfg, s.WebTable.CrawlStore())
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		st, err := c.Run(ctx, []string{srv.URL + "/"})
		d := time.Since(start)
		close(stop)
		if err != nil || st.Fetched != int64(*benchPages) {
			b.Fatalf("fetched %d of %d pages (err %v)", st.Fetched, *benchPages, err)
		}
		return d, <-scans
	}
	var alone, scanned time.Duration
	scans := 0
	for range b.N {
		d, _ := crawlOnce(false)
		alone += d
		d, n := crawlOnce(true)
		scanned += d
		scans += n
	}
	a := float64(*benchPages*b.N) / alone.Seconds()
	s := float64(*benchPages*b.N) / scanned.Seconds()
	b.ReportMetric(a, "pages/s")
	b.ReportMetric(s, "scanned-pages/s")
	b.ReportMetric(s/a, "ratio")
	b.ReportMetric(float64(scans)/float64(b.N), "scans")
	b.ReportMetric(0, "ns/op")
}
