package crawlertest

import (
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

// GenSite serves a generated site of n pages on loopback: page i links to
// pages 10i+1 .. 10i+10 (a tree, depth log10 n) and back to the home page,
// with a little text, like a small real page (~1.2 KB). The caller closes
// it.
func GenSite(n int) *httptest.Server {
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

// PlainColly crawls the site at root with colly alone, as its README
// shows (async, parallelism conc, following every a[href], no storage), and
// returns the number of responses: the baseline the crawler's benchmarks
// compare against.
func PlainColly(root string, conc int) (int64, error) {
	var got atomic.Int64
	cc := colly.NewCollector(colly.Async(true))
	if err := cc.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: conc}); err != nil {
		return 0, err
	}
	cc.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	cc.OnResponse(func(*colly.Response) { got.Add(1) })
	if err := cc.Visit(root); err != nil {
		return 0, err
	}
	cc.Wait()
	return got.Load(), nil
}

// CompareWithColly is the body of a crawl benchmark: it serves GenSite(n)
// and, in each iteration, times crawl (which must fetch all n pages from
// root, with conc fetches in flight) and then PlainColly on the same site,
// and reports pages/s of both and their ratio. Run with -benchtime 1x.
func CompareWithColly(b *testing.B, n, conc int, crawl func(root string) (fetched int64, err error)) {
	b.Helper()
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"} {
		b.Setenv(k, "")
	}
	srv := GenSite(n)
	defer srv.Close()
	root := srv.URL + "/"
	var ours, theirs time.Duration
	for range b.N {
		start := time.Now()
		got, err := crawl(root)
		ours += time.Since(start)
		if err != nil || got != int64(n) {
			b.Fatalf("the crawler fetched %d of %d pages (err %v)", got, n, err)
		}
		start = time.Now()
		got, err = PlainColly(root, conc)
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
	b.Logf("site of %d pages: %.0f pages/s, plain colly %.0f pages/s, ratio %.2f", n, oursPS, theirsPS, oursPS/theirsPS)
}
