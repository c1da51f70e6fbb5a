package webui

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/internal/stores"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

var (
	benchPages = flag.Int("webui.pages", 20_000, "pages in the store of BenchmarkViews (the issue's figure: 200000)")
	benchStore = flag.String("webui.store", "", "keep BenchmarkViews' store in this `dir`ectory and reuse it when it exists")
)

// pagesPerHost is how many pages each generated host has.
const pagesPerHost = 100

// genHost names host h of a generated crawl: hosts spread over a few
// top-level domains and registered domains, as in a real crawl.
func genHost(h int) string {
	tlds := []string{"com", "org", "net", "de", "co.uk", "fr", "io"}
	return fmt.Sprintf("www%d.site%d.%s", h%3, h/3, tlds[h%len(tlds)])
}

// genPage is the URL of page p of host h.
func genPage(h, p int) string {
	if p == 0 {
		return "http://" + genHost(h) + "/"
	}
	return fmt.Sprintf("http://%s/section%d/article-%d.html", genHost(h), p%10, p)
}

// genKey is the row key of page p of host h.
func genKey(h, p int) string {
	k, err := urlkey.Key(genPage(h, p))
	if err != nil {
		panic(err)
	}
	return k
}

// genBody is the HTML of a page: a few KiB of text and ten links, four of
// them to other hosts.
func genBody(h, p, version int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html><html><head><title>Page %d of %s</title></head><body><h1>Article %d</h1>\n", p, genHost(h), p)
	for i := range 10 {
		fmt.Fprintf(&b, "<p>Paragraph %d of version %d: %s</p>\n", i, version, strings.Repeat("lorem ipsum dolor sit amet ", 8))
	}
	for i := range 10 {
		th, tp := h, (p+i+1)%pagesPerHost
		if i >= 6 {
			th = (h + i*7) % max(*benchPages/pagesPerHost, 1)
		}
		fmt.Fprintf(&b, "<a href=\"%s\">link %d</a>\n", genPage(th, tp), i)
	}
	b.WriteString("</body></html>")
	return b.String()
}

// genStore writes a crawl of n pages through webtable: every page fetched
// once (every 50th twice with a change, every 100th failed), with its
// anchors and a frontier entry for each link, as the crawler's Save does.
func genStore(tb testing.TB, dir string, n int) *webtable.WebTable {
	tb.Helper()
	ctx := context.Background()
	if dir != "" {
		if _, err := os.Stat(dir); err == nil {
			w, err := stores.Open(ctx, dir, stores.ForRead, webtable.Options{})
			if err != nil {
				tb.Fatal(err)
			}
			return w
		}
	} else {
		dir = filepath.Join(tb.TempDir(), "webtable.db")
	}
	w, err := stores.Open(ctx, dir, stores.ForCrawl, webtable.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	hosts := max(n/pagesPerHost, 1)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for worker := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := worker; i < n; i += 4 {
				h, p := i%hosts, i/hosts
				at := t0.Add(time.Duration(i) * time.Second)
				versions := 1
				if i%50 == 0 {
					versions = 2
				}
				for v := range versions {
					at := at.Add(time.Duration(v) * 24 * time.Hour)
					body := genBody(h, p, v)
					f := &webtable.Fetched{
						Page: &webtable.Page{Fetch: crawlstore.Fetch{URL: genPage(h, p), Status: 200, Time: at, Length: int64(len(body)), Charset: "utf-8", Depth: 1},
							MIME: "text/html", KeepBody: true, Body: []byte(body)},
						AnchorTime: stamp, State: crawlstore.StateDone, StateTime: stamp,
					}
					if i%100 == 99 {
						f.Page = &webtable.Page{Fetch: crawlstore.Fetch{URL: genPage(h, p), Status: 503, Time: at, Error: "HTTP 503 Service Unavailable", Depth: 1}}
						f.State = crawlstore.StateFailed
					}
					for l := range 3 {
						f.Anchors = append(f.Anchors, webtable.Anchor{URL: genPage((h+l)%hosts, (p+1)%pagesPerHost), Text: fmt.Sprintf("link %d", l)})
					}
					if _, _, err := w.Save(ctx, f); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		tb.Fatal(err)
	}
	tb.Logf("wrote %d pages over %d hosts in %v", n, hosts, time.Since(start).Round(time.Millisecond))
	return w
}

// views are the requests BenchmarkViews times, one of each kind.
func benchViews(n int) map[string]string {
	hosts := max(n/pagesPerHost, 1)
	mid := hosts / 2
	u := genPage(mid, 0)
	return map[string]string{
		"overview":     "/",
		"tree":         "/domain",
		"tld":          "/domain?name=com",
		"domain":       "/domain?name=" + strings.TrimPrefix(genHost(mid), "www"+fmt.Sprint(mid%3)+"."),
		"domain-next":  "/domain?name=" + genHost(mid) + "&after=" + genKey(mid, 20),
		"page":         "/page?url=" + u,
		"page-json":    "/page?url=" + u + "#json",
		"errors":       "/errors",
		"errors-after": "/errors?after=" + "m",
		"tablets":      "/tablets",
	}
}

// BenchmarkViews times each view's server time (no network) over a
// generated crawl, once the background summary exists:
//
//	go test -run '^$' -bench Views -benchtime 200x ./internal/webui/ -args -webui.pages 200000 -webui.store /tmp/webui-200k.db
func BenchmarkViews(b *testing.B) {
	w := genStore(b, *benchStore, *benchPages)
	defer w.Close()
	ui, err := New(w, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer ui.Close()
	start := time.Now()
	if err := ui.WaitSummary(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Logf("summary of %d pages built in %v", *benchPages, time.Since(start).Round(time.Millisecond))
	views := benchViews(*benchPages)
	// The diff and body views need a page's versions.
	twice := genPage(0, 0) // page 0 was fetched twice
	var page jsonPage
	rec := serveOnce(b, ui, "/page?url="+twice, true)
	if err := jsonDecode(rec, &page); err != nil || len(page.Versions) != 2 {
		b.Fatalf("page %s: %v, %d versions, want 2", twice, err, len(page.Versions))
	}
	views["diff"] = "/diff?url=" + twice + "&a=" + itoa(page.Versions[1].Timestamp) + "&b=" + itoa(page.Versions[0].Timestamp)
	views["body"] = "/body?url=" + twice + "&ts=" + itoa(page.Versions[0].Timestamp)
	for name, path := range views {
		asJSON := strings.HasSuffix(path, "#json")
		path = strings.TrimSuffix(path, "#json")
		if rec := serveOnce(b, ui, path, asJSON); rec.Code != http.StatusOK {
			b.Fatalf("%s: GET %s: %d\n%s", name, path, rec.Code, rec.Body)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				serveOnce(b, ui, path, asJSON)
			}
		})
	}
}

func serveOnce(tb testing.TB, ui *UI, path string, asJSON bool) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", path, nil)
	if asJSON {
		req.Header.Set("Accept", "application/json")
	}
	rec := httptest.NewRecorder()
	ui.ServeHTTP(rec, req)
	return rec
}

// TestGeneratedStoreViews is BenchmarkViews' small version, run by CI: every
// view answers 200 over a generated crawl of 300 pages.
func TestGeneratedStoreViews(t *testing.T) {
	const n = 300
	old := *benchPages
	*benchPages = n
	defer func() { *benchPages = old }()
	w := genStore(t, "", n)
	_, srv := serve(t, w, Options{})
	var o jsonOverview
	getJSON(t, srv, "/", &o)
	if o.Summary.Stats == nil || o.Summary.Stats.Fetched != n-n/100 || o.Summary.Stats.Failed != n/100 {
		t.Fatalf("summary %+v, want %d done and %d failed", o.Summary.Stats, n-n/100, n/100)
	}
	for name, path := range benchViews(n) {
		asJSON := strings.HasSuffix(path, "#json")
		path = strings.TrimSuffix(path, "#json")
		if resp, body := get(t, srv, path, asJSON); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: GET %s: %s\n%s", name, path, resp.Status, body)
		}
	}
	var f jsonFailures
	getJSON(t, srv, "/errors", &f)
	if len(f.Failures) != n/100 {
		t.Errorf("/errors lists %d failures, want %d", len(f.Failures), n/100)
	}
	// Each list view the benchmark times has rows to show.
	for _, name := range []string{"domain", "domain-next"} {
		var d jsonDomainView
		getJSON(t, srv, benchViews(n)[name], &d)
		if len(d.Rows) == 0 {
			t.Errorf("%s: %s lists no rows", name, benchViews(n)[name])
		}
	}
}
