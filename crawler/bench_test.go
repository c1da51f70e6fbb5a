package crawler

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

var sitePages = flag.Int("site-pages", 10000, "pages of the generated site crawled by BenchmarkCrawl")

// genSite serves a generated site of n pages on loopback: page i links to
// pages 10i+1 .. 10i+10 (a tree, depth log10 n) and back to the home page,
// with a little text, like a small real page (~1.2 KB).
func genSite(n int) *httptest.Server {
	filler := strings.Repeat("<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>\n", 12)
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
		if r.URL.Path == "/" {
			i, err = 0, nil
		}
		if err != nil || i < 0 || i >= n {
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, "<!doctype html><html><head><title>Page %d</title></head><body><h1>Page %d</h1>\n<a href=\"/\">Home</a>\n", i, i)
		for c := 10*i + 1; c <= 10*i+10 && c < n; c++ {
			fmt.Fprintf(&b, "<a href=\"/p/%d\">Page %d</a>\n", c, c)
		}
		b.WriteString(filler)
		b.WriteString("</body></html>")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(b.String()))
	}))
}

// BenchmarkCrawl crawls a generated site of -site-pages pages (default
// 10,000) on loopback with zero delay and 8 fetches in flight, with this
// crawler into a MemStore and with plain colly (async, 8 in parallel, no
// storage), one after the other in each iteration, and reports pages/s of
// both and their ratio. Run with -benchtime 1x.
func BenchmarkCrawl(b *testing.B) {
	clearProxyEnvB(b)
	n := *sitePages
	srv := genSite(n)
	defer srv.Close()
	const conc = 8
	var ours, theirs time.Duration
	for range b.N {
		// This crawler.
		cfg := DefaultConfig()
		cfg.Delay = 0
		cfg.Concurrency = conc
		cfg.PerHost = conc
		cfg.Depth = 10
		store := NewMemStore()
		c, err := New(cfg, store)
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
		var got atomic.Int64
		cc := colly.NewCollector(colly.Async(true))
		if err := cc.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: conc}); err != nil {
			b.Fatal(err)
		}
		cc.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
		cc.OnResponse(func(*colly.Response) { got.Add(1) })
		start = time.Now()
		if err := cc.Visit(srv.URL + "/"); err != nil {
			b.Fatal(err)
		}
		cc.Wait()
		theirs += time.Since(start)
		if got.Load() != int64(n) {
			b.Fatalf("plain colly fetched %d of %d pages", got.Load(), n)
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
