package crawlertest

import (
	"fmt"
	"net"
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
	srv := httptest.NewUnstartedServer(siteHandler(n))
	srv.Start()
	return srv
}

// siteHandler serves the pages of GenSite(n).
func siteHandler(n int) http.Handler {
	filler := strings.Repeat("<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>\n", 12)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	})
}

// PlainColly crawls the site at root with colly alone, as its README
// shows (async, parallelism conc, following every a[href], no storage),
// and returns the number of responses: the baseline the crawler's
// benchmarks compare against.
//
// NB: colly's default HTTP client keeps 2 idle connections per host (Go's
// default), so with conc > 2 fetches in flight it would open a new
// connection for most requests (some 450 per 10,000 pages at conc 8)
// where the crawler, whose transport keeps conc+2, opens about 10. So
// plain colly gets a transport with the crawler's connection pool
// (PooledTransport), and the comparison measures crawling, not TCP
// handshakes.
func PlainColly(root string, conc int) (int64, error) {
	var got atomic.Int64
	cc := colly.NewCollector(colly.Async(true))
	cc.WithTransport(PooledTransport(conc))
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

// PooledTransport returns an HTTP transport with the connection pool the
// crawler's own transport has for conc fetches in flight to one host: conc+2
// idle connections kept per host, at least 100 overall.
func PooledTransport(conc int) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = conc + 2
	t.MaxIdleConns = max(100, conc+2)
	return t
}

// CompareWithColly is the body of a crawl benchmark: it serves GenSite(n)
// and, in each iteration, times crawl (which must fetch all n pages from
// root, with conc fetches in flight) and then PlainColly on the same site,
// and reports pages/s of both, their ratio, and the TCP connections each
// opened per iteration. Run with -benchtime 1x.
func CompareWithColly(b *testing.B, n, conc int, crawl func(root string) (fetched int64, err error)) {
	b.Helper()
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"} {
		b.Setenv(k, "")
	}
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(siteHandler(n))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	root := srv.URL + "/"
	var ours, theirs time.Duration
	var ourConns, theirConns int64
	for range b.N {
		conns.Store(0)
		start := time.Now()
		got, err := crawl(root)
		ours += time.Since(start)
		ourConns += conns.Load()
		if err != nil || got != int64(n) {
			b.Fatalf("the crawler fetched %d of %d pages (err %v)", got, n, err)
		}
		conns.Store(0)
		start = time.Now()
		got, err = PlainColly(root, conc)
		theirs += time.Since(start)
		theirConns += conns.Load()
		if err != nil || got != int64(n) {
			b.Fatalf("plain colly fetched %d of %d pages (err %v)", got, n, err)
		}
	}
	oursPS := float64(n*b.N) / ours.Seconds()
	theirsPS := float64(n*b.N) / theirs.Seconds()
	b.ReportMetric(oursPS, "pages/s")
	b.ReportMetric(theirsPS, "colly-pages/s")
	b.ReportMetric(oursPS/theirsPS, "ratio")
	b.ReportMetric(float64(ourConns)/float64(b.N), "conns")
	b.ReportMetric(float64(theirConns)/float64(b.N), "colly-conns")
	b.ReportMetric(0, "ns/op")
	b.Logf("site of %d pages: %.0f pages/s (%d connections), plain colly %.0f pages/s (%d connections), ratio %.2f",
		n, oursPS, ourConns/int64(b.N), theirsPS, theirConns/int64(b.N), oursPS/theirsPS)
}
