package crawler

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/sitemap"
)

// sitemapStore is a MemStore that remembers the sitemap hint of each page
// saved.
type sitemapStore struct {
	*crawlertest.MemStore
	mu    sync.Mutex
	hints map[string]crawlstore.SitemapHint
}

func (s *sitemapStore) SavePage(ctx context.Context, p *crawlstore.Page) (crawlstore.SaveResult, error) {
	s.mu.Lock()
	s.hints[p.URL] = p.Sitemap
	s.mu.Unlock()
	return s.MemStore.SavePage(ctx, p)
}

// sitemapSite serves pages plus the files of files (path -> body, sent
// as it is) on host.
func sitemapSite(w *vweb, host, robots string, pages, files map[string]string) {
	w.handle(host, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch body, ok := files[r.URL.Path]; {
		case r.URL.Path == "/robots.txt":
			fmt.Fprint(rw, robots)
		case ok:
			fmt.Fprint(rw, body)
		case pages[r.URL.Path] != "":
			rw.Header().Set("Content-Type", "text/html")
			fmt.Fprint(rw, pages[r.URL.Path])
		default:
			http.NotFound(rw, r)
		}
	}))
}

func sitemapFile(t *testing.T, k sitemap.Kind, zip bool, urls ...sitemap.URL) string {
	t.Helper()
	var b bytes.Buffer
	if err := sitemap.Write(&b, k, urls); err != nil {
		t.Fatal(err)
	}
	if !zip {
		return b.String()
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b.Bytes())
	zw.Close()
	return z.String()
}

// TestSitemapsFromRobots: half the pages of a site are linked only from a
// gzipped sitemap behind a sitemap index that robots.txt names. Every page
// is fetched once, the hints ride to the store, and the index's loop and
// the URLs off the host are counted and named once.
func TestSitemapsFromRobots(t *testing.T) {
	const n = 20
	w := newVWeb(t)
	pages := map[string]string{}
	var links strings.Builder
	var listed []sitemap.URL
	lastmod := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for i := range n {
		fmt.Fprintf(&links, `<a href="/p%d">p</a>`, i)
		pages[fmt.Sprintf("/p%d", i)] = page("linked")
		pages[fmt.Sprintf("/q%d", i)] = page("listed only")
		listed = append(listed, sitemap.URL{Loc: fmt.Sprintf("http://a.test/q%d", i), LastMod: lastmod, ChangeFreq: "daily", Priority: 0.7})
	}
	pages["/"] = page(links.String())
	listed = append(listed,
		sitemap.URL{Loc: "http://a.test/p3", Priority: -1}, // linked too: fetched once
		sitemap.URL{Loc: "http://b.test/x", Priority: -1},  // another host: counted
		sitemap.URL{Loc: "http://a.test/p3", Priority: -1}) // twice in one file
	files := map[string]string{
		"/sitemap_index.xml": sitemapFile(t, sitemap.Index, false,
			sitemap.URL{Loc: "http://a.test/sm/pages.xml.gz"},
			sitemap.URL{Loc: "http://a.test/sitemap_index.xml"}, // a loop
			sitemap.URL{Loc: "http://c.test/sitemap.xml"}),      // another host
		"/sm/pages.xml.gz": sitemapFile(t, sitemap.URLSet, true, listed...),
	}
	sitemapSite(w, "a.test", "User-agent: *\nAllow: /\nSitemap: http://a.test/sitemap_index.xml\n", pages, files)
	var mu sync.Mutex
	var logged []string
	cfg := w.config()
	cfg.Log = func(l string) { mu.Lock(); logged = append(logged, l); mu.Unlock() }
	store := &sitemapStore{MemStore: crawlertest.NewMemStore(), hints: map[string]crawlstore.SitemapHint{}}
	st := crawl(t, cfg, store, "http://a.test/")

	got := w.paths("a.test")
	slices.Sort(got)
	var want []string
	for p := range pages {
		want = append(want, p)
	}
	want = append(want, "/sitemap_index.xml", "/sm/pages.xml.gz")
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("requests to a.test:\n got %q\nwant %q (every page once, each sitemap once)", got, want)
	}
	if st.Fetched != 2*n+1 {
		t.Errorf("Fetched = %d, want %d", st.Fetched, 2*n+1)
	}
	sm := st.Sitemaps
	if sm.Files != 2 || sm.Bad != 1 || sm.Outside != 2 || sm.New != n {
		t.Errorf("Sitemaps = %+v, want 2 files, 1 bad (the loop), 2 outside, %d new", sm, n)
	}
	h := store.hints["http://a.test/q5"]
	if !h.Listed || !h.LastMod.Equal(lastmod) || h.ChangeFreq != "daily" || h.Priority != 0.7 {
		t.Errorf("hint of /q5 at its fetch = %+v, want listed, lastmod %v, daily, 0.7", h, lastmod)
	}
	if h := store.hints["http://a.test/p5"]; h.Listed {
		t.Errorf("hint of /p5 (only linked) = %+v, want none", h)
	}
	joined := strings.Join(logged, "\n")
	for _, frag := range []string{"sitemap http://a.test/sitemap_index.xml: listed again", "http://c.test/sitemap.xml", "1 URLs outside its host or the allowed domains, not queued, the first http://b.test/x"} {
		if strings.Count(joined, frag) != 1 {
			t.Errorf("log names %q %d times, want once:\n%s", frag, strings.Count(joined, frag), joined)
		}
	}
}

// TestBadSitemaps: --sitemap files that are not XML, truncated or missing
// are counted and named once; what a truncated file listed whole is
// followed; --no-sitemaps reads none.
func TestBadSitemaps(t *testing.T) {
	w := newVWeb(t)
	pages := map[string]string{"/": page("home"), "/a": page("a"), "/b": page("b")}
	full := sitemapFile(t, sitemap.URLSet, false, sitemap.URL{Loc: "http://a.test/a", Priority: -1}, sitemap.URL{Loc: "http://a.test/b", Priority: -1})
	files := map[string]string{
		"/notxml.xml":    "just text, not a sitemap\n",
		"/truncated.xml": full[:strings.Index(full, "http://a.test/b")],
		"/html.xml":      page("a page, not a sitemap"),
	}
	sitemapSite(w, "a.test", "", pages, files)
	for _, off := range []bool{false, true} {
		t.Run(fmt.Sprint("off=", off), func(t *testing.T) {
			var logged []string
			var mu sync.Mutex
			cfg := w.config()
			cfg.Log = func(l string) { mu.Lock(); logged = append(logged, l); mu.Unlock() }
			cfg.Sitemaps = []string{"http://a.test/notxml.xml", "http://a.test/truncated.xml", "http://a.test/html.xml", "http://a.test/missing.xml", "http://a.test/notxml.xml"}
			cfg.NoSitemaps = off
			st := crawl(t, cfg, crawlertest.NewMemStore(), "http://a.test/")
			if off {
				if st.Sitemaps != (SitemapStats{}) || st.Fetched != 1 {
					t.Errorf("--no-sitemaps: Sitemaps = %+v, Fetched %d; want none, 1", st.Sitemaps, st.Fetched)
				}
				return
			}
			if st.Sitemaps.Bad != 4 || st.Sitemaps.Files != 1 || st.Fetched != 2 {
				t.Errorf("Sitemaps = %+v, Fetched %d; want 4 bad, 1 file read (the truncated one, in part), 2 fetched (/ and /a)", st.Sitemaps, st.Fetched)
			}
			joined := strings.Join(logged, "\n")
			for _, frag := range []string{"notxml.xml: sitemap: not a sitemap", "truncated.xml: sitemap: truncated", "html.xml: sitemap: not a sitemap: root element <html>", "missing.xml: answered 404"} {
				if strings.Count(joined, frag) != 1 {
					t.Errorf("log names %q %d times, want once:\n%s", frag, strings.Count(joined, frag), joined)
				}
			}
		})
	}
}
