package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
)

// chain is a site of n pages, /0 -> /1 -> ... -> /n-1.
func chain(n int) map[string]string {
	pages := map[string]string{}
	for i := range n {
		pages[fmt.Sprintf("/%d", i)] = page(fmt.Sprintf(`<a href="/%d">next</a>`, i+1))
	}
	return pages
}

func TestDepthLimit(t *testing.T) {
	for _, depth := range []int{0, 1, 3} {
		t.Run(fmt.Sprint(depth), func(t *testing.T) {
			w := newVWeb(t)
			w.site("a.test", "", chain(10))
			cfg := w.config()
			cfg.Depth = depth
			store := crawlertest.NewMemStore()
			st := crawl(t, cfg, store, "http://a.test/0")
			var want []string
			for i := 0; i <= depth; i++ {
				want = append(want, fmt.Sprintf("/%d", i))
			}
			if diff := cmp.Diff(want, w.paths("a.test")); diff != "" {
				t.Errorf("paths fetched with depth %d (-want +got):\n%s", depth, diff)
			}
			if st.Fetched != int64(depth+1) {
				t.Errorf("Fetched = %d, want %d", st.Fetched, depth+1)
			}
			// The link out of the deepest page is an anchor, not an entry.
			row, _ := store.Row(fmt.Sprintf("http://a.test/%d", depth+1))
			if row.State != crawlstore.StateNone || row.Anchors[fmt.Sprintf("http://a.test/%d", depth)] != "next" {
				t.Errorf("row beyond the depth = %+v, want an anchor and no state", row)
			}
			last, _ := store.Row(fmt.Sprintf("http://a.test/%d", depth))
			if last.Depth != depth || last.State != crawlstore.StateDone {
				t.Errorf("deepest row = depth %d state %v, want depth %d done", last.Depth, last.State, depth)
			}
		})
	}
}

func TestMaxPages(t *testing.T) {
	w := newVWeb(t)
	pages := map[string]string{}
	var links strings.Builder
	for i := range 20 {
		fmt.Fprintf(&links, `<a href="/p%d">p</a>`, i)
		pages[fmt.Sprintf("/p%d", i)] = page("leaf")
	}
	pages["/"] = page(links.String())
	w.site("a.test", "", pages)
	cfg := w.config()
	cfg.MaxPages = 5
	cfg.Concurrency = 8
	cfg.PerHost = 4
	store := crawlertest.NewMemStore()
	st := crawl(t, cfg, store, "http://a.test/")
	if got := len(w.paths("a.test")); got != 5 || st.Fetched != 5 {
		t.Errorf("requests = %d, Fetched = %d; want exactly 5 (no overshoot)", got, st.Fetched)
	}
	if st.Queued != 16 {
		t.Errorf("Queued at the end = %d, want 16 left for the next run", st.Queued)
	}
}

func TestAllowedDomains(t *testing.T) {
	home := page(`<a href="http://www.a.test/w">www</a> <a href="http://b.test/">b</a> <a href="http://xa.test/">xa</a>`)
	tests := []struct {
		name  string
		allow []string
		want  []string // hosts fetched (beyond a.test)
	}{
		{"registrable domain of the seed", nil, []string{"www.a.test"}},
		{"explicit list", []string{"a.test", "b.test"}, []string{"b.test", "www.a.test"}},
		{"seed outside the list is still fetched", []string{"B.test."}, []string{"b.test"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newVWeb(t)
			w.site("a.test", "", map[string]string{"/": home})
			w.site("www.a.test", "", map[string]string{"/w": page("w")})
			w.site("b.test", "", map[string]string{"/": page("b")})
			w.site("xa.test", "", map[string]string{"/": page("xa")})
			cfg := w.config()
			cfg.AllowDomains = tc.allow
			crawl(t, cfg, crawlertest.NewMemStore(), "http://a.test/")
			if got := w.paths("a.test"); len(got) != 1 {
				t.Errorf("seed requests = %v, want the seed fetched", got)
			}
			var got []string
			for _, h := range []string{"b.test", "www.a.test", "xa.test"} {
				if len(w.paths(h)) > 0 {
					got = append(got, h)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("hosts fetched (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRegistrableDomain(t *testing.T) {
	tests := []struct{ in, want string }{
		{"www.cnn.com", "cnn.com"},
		{"cnn.com", "cnn.com"},
		{"news.bbc.co.uk", "bbc.co.uk"},
		{"127.0.0.1", "127.0.0.1"},
		{"::1", "::1"},
		{"localhost", "localhost"},
		{"WWW.Example.ORG.", "example.org"},
	}
	for _, tc := range tests {
		if got := RegistrableDomain(tc.in); got != tc.want {
			t.Errorf("RegistrableDomain(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRobots(t *testing.T) {
	w := newVWeb(t)
	w.site("a.test", "User-agent: otherbot\nDisallow: /\n\nUser-agent: webtable\nDisallow: /private\nDisallow: /nowebtable\n", map[string]string{
		"/":           page(`<a href="/private/x">p</a> <a href="/open">o</a> <a href="/nowebtable">n</a> <a href="/r">r</a>`),
		"/open":       page("open"),
		"/private/x":  page("secret"),
		"/nowebtable": page("secret"),
	})
	w.handle("b.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.Error(rw, "down", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(rw, page("b"))
	}))
	// /r redirects into a disallowed path: the hop is checked too.
	base := w.hosts["a.test"]
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/r" {
			http.Redirect(rw, r, "/private/y", http.StatusFound)
			return
		}
		base.ServeHTTP(rw, r)
	}))
	cfg := w.config()
	cfg.AllowDomains = []string{"a.test", "b.test"}
	store := crawlertest.NewMemStore()
	st := crawl(t, cfg, store, "http://a.test/", "http://b.test/")
	if diff := cmp.Diff([]string{"/", "/open", "/r"}, sorted(w.paths("a.test"))); diff != "" {
		t.Errorf("paths fetched on a.test (-want +got):\n%s", diff)
	}
	for _, u := range []string{"http://a.test/private/x", "http://a.test/nowebtable"} {
		row, _ := store.Row(u)
		if row.State != crawlstore.StateFailed || !strings.Contains(row.Err, "robots.txt") {
			t.Errorf("row %s = state %v err %q, want failed by robots.txt", u, row.State, row.Err)
		}
	}
	if row, _ := store.Row("http://a.test/r"); row.State != crawlstore.StateFailed || !strings.Contains(row.Err, "robots") {
		t.Errorf("redirect into a disallowed path: row = %+v, want failed by robots", row)
	}
	// RFC 9309: a robots.txt answered with 5xx leaves the host's pages
	// queued, not failed, and is asked again with backoff.
	if row, _ := store.Row("http://b.test/"); row.State != crawlstore.StateQueued {
		t.Errorf("row of b.test/ (robots.txt 503) = %+v, want still queued", row)
	}
	if got, hits := len(w.paths("b.test")), len(w.hitsOf("b.test")); got != 0 || hits != 1+MaxRetries {
		t.Errorf("b.test (robots.txt 503) got %d page requests and %d in all, want robots.txt %d times and no page", got, hits, 1+MaxRetries)
	}
	if st.ErrorsByKind[crawlstore.KindRobots] != 2 || st.ErrorsByKind[crawlstore.KindRedirect] != 1 {
		t.Errorf("errors by kind = %v, want robots 2, redirect 1", st.ErrorsByKind)
	}
	// robots.txt is fetched once per host.
	n := 0
	for _, h := range w.hitsOf("a.test") {
		if h.Path == "/robots.txt" {
			n++
			if ua := h.Header.Get("User-Agent"); ua != DefaultUserAgent {
				t.Errorf("robots.txt fetched with User-Agent %q", ua)
			}
		}
	}
	if n != 1 {
		t.Errorf("robots.txt of a.test fetched %d times, want 1", n)
	}
}

func TestIgnoreRobots(t *testing.T) {
	w := newVWeb(t)
	w.site("a.test", "User-agent: *\nDisallow: /\n", map[string]string{"/": page("x")})
	cfg := w.config()
	cfg.IgnoreRobots = true
	crawl(t, cfg, crawlertest.NewMemStore(), "http://a.test/")
	if diff := cmp.Diff([]string{"/"}, w.paths("a.test")); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	for _, h := range w.hitsOf("a.test") {
		if h.Path == "/robots.txt" {
			t.Error("robots.txt fetched although IgnoreRobots")
		}
	}
}

// checkGaps fails when the server saw two requests to one host
// (robots.txt included) closer than gap, as stamped when its handler
// started. NB: exact, with no tolerance for a loaded machine: the
// scheduler counts the delay from the end of the previous response, which
// the client reads after the server's handler started, so however late
// either side runs the server's gap is at least the delay.
func checkGaps(t *testing.T, w *vweb, host string, gap time.Duration) {
	t.Helper()
	hits := w.hitsOf(host)
	for i := 1; i < len(hits); i++ {
		if d := hits[i].At.Sub(hits[i-1].At); d < gap {
			t.Errorf("%s: requests %s and %s started %v apart, want >= %v", host, hits[i-1].Path, hits[i].Path, d, gap)
		}
	}
}

func TestPolitenessDelay(t *testing.T) {
	w := newVWeb(t)
	for _, h := range []string{"a.test", "b.test"} {
		pages := map[string]string{"/": page(`<a href="/1">1</a><a href="/2">2</a><a href="/3">3</a><a href="/4">4</a>`)}
		for i := 1; i <= 4; i++ {
			pages[fmt.Sprintf("/%d", i)] = page("leaf")
		}
		w.site(h, "User-agent: *\nDisallow:\n", pages)
	}
	cfg := w.config()
	cfg.Delay = 100 * time.Millisecond
	cfg.PerHost = 2
	cfg.AllowDomains = []string{"a.test", "b.test"}
	start := time.Now()
	crawl(t, cfg, crawlertest.NewMemStore(), "http://a.test/", "http://b.test/")
	for _, h := range []string{"a.test", "b.test"} {
		if n := len(w.hitsOf(h)); n != 6 {
			t.Errorf("%s got %d requests, want 6 (robots.txt + 5 pages)", h, n)
		}
		checkGaps(t, w, h, cfg.Delay)
	}
	// The two hosts are crawled side by side, not one after the other.
	a, b := w.hitsOf("a.test"), w.hitsOf("b.test")
	if !b[0].At.Before(a[len(a)-1].At) || !a[0].At.Before(b[len(b)-1].At) {
		t.Errorf("hosts crawled one after the other: a.test %v..%v, b.test %v..%v",
			a[0].At.Sub(start), a[len(a)-1].At.Sub(start), b[0].At.Sub(start), b[len(b)-1].At.Sub(start))
	}
}

func TestCrawlDelay(t *testing.T) {
	w := newVWeb(t)
	w.site("a.test", "User-agent: *\nCrawl-delay: 0.15\n", map[string]string{
		"/":  page(`<a href="/1">1</a><a href="/2">2</a>`),
		"/1": page("1"), "/2": page("2"),
	})
	cfg := w.config()
	cfg.Delay = 10 * time.Millisecond
	cfg.PerHost = 4
	crawl(t, cfg, crawlertest.NewMemStore(), "http://a.test/")
	if n := len(w.hitsOf("a.test")); n != 4 {
		t.Fatalf("got %d requests, want 4", n)
	}
	checkGaps(t, w, "a.test", 150*time.Millisecond)
}

func TestCrawlDelayCapped(t *testing.T) {
	s := newScheduler(1, 0, 0)
	s.setCrawlDelay("a.test", time.Hour)
	if got := s.host("a.test").delay(); got != MaxCrawlDelay {
		t.Errorf("delay after Crawl-delay 1h = %v, want %v", got, MaxCrawlDelay)
	}
}

func TestPerHostConcurrency(t *testing.T) {
	w := newVWeb(t)
	pages := map[string]string{}
	var links strings.Builder
	for i := range 12 {
		fmt.Fprintf(&links, `<a href="/%d">%d</a>`, i, i)
	}
	pages["/"] = page(links.String())
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(rw, r)
			return
		}
		// Hold each response briefly so that requests overlap if allowed to.
		time.Sleep(20 * time.Millisecond)
		if r.URL.Path == "/" {
			fmt.Fprint(rw, pages["/"])
			return
		}
		fmt.Fprint(rw, page("leaf"))
	}))
	cfg := w.config()
	cfg.PerHost = 3
	cfg.Concurrency = 8
	crawl(t, cfg, crawlertest.NewMemStore(), "http://a.test/")
	w.mu.Lock()
	got := w.maxInflight["a.test"]
	w.mu.Unlock()
	if got > 3 {
		t.Errorf("max requests in flight to a.test = %d, want <= 3", got)
	}
	if got < 2 {
		t.Errorf("max requests in flight to a.test = %d, want the limit used (>= 2)", got)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// spyStore passes calls through and shows each page to a callback.
func TestResume(t *testing.T) {
	w := newVWeb(t)
	w.site("a.test", "", chain(12))
	store := crawlertest.NewMemStore()
	cfg := w.config()
	cfg.Depth = 6
	cfg.Concurrency = 1
	ctx, cancel := context.WithCancel(context.Background())
	cfg.Progress = func(s Stats) {
		if s.Fetched == 3 {
			cancel()
		}
	}
	c, err := New(cfg, store)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Run(ctx, []string{"http://a.test/0"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped Run error = %v, want context.Canceled", err)
	}
	if st.Fetched != 3 {
		t.Fatalf("stopped after %d pages, want 3", st.Fetched)
	}
	if row, _ := store.Row("http://a.test/3"); row.State != crawlstore.StateQueued || row.Depth != 3 {
		t.Fatalf("row /3 after stop = %v depth %d, want queued at depth 3", row.State, row.Depth)
	}
	// The next run carries on from the frontier with its depths: no seeds needed.
	cfg.Progress = nil
	st = crawl(t, cfg, store)
	if st.Fetched != 4 {
		t.Errorf("resumed run fetched %d pages, want 4 (/3../6)", st.Fetched)
	}
	want := []string{"/0", "/1", "/2", "/3", "/4", "/5", "/6"}
	if diff := cmp.Diff(want, w.paths("a.test")); diff != "" {
		t.Errorf("paths over both runs (-want +got):\n%s", diff)
	}
	if row, _ := store.Row("http://a.test/7"); row.State != crawlstore.StateNone {
		t.Errorf("/7 beyond depth 6 = %v, want no state", row.State)
	}
}

func TestStopFinishesInFlight(t *testing.T) {
	w := newVWeb(t)
	ctx, cancel := context.WithCancel(context.Background())
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			cancel() // Ctrl-C while the page is on the wire
			fmt.Fprint(rw, page(`<a href="/next">n</a>`))
		default:
			fmt.Fprint(rw, page("next"))
		}
	}))
	store := crawlertest.NewMemStore()
	cfg := w.config()
	cfg.IgnoreRobots = true
	c, _ := New(cfg, store)
	_, err := c.Run(ctx, []string{"http://a.test/"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run error = %v, want context.Canceled", err)
	}
	if row, _ := store.Row("http://a.test/"); row.State != crawlstore.StateDone || len(row.Versions) != 1 {
		t.Errorf("page in flight at stop = %v with %d versions, want done and stored", row.State, len(row.Versions))
	}
	if row, _ := store.Row("http://a.test/next"); row.State != crawlstore.StateQueued {
		t.Errorf("its link = %v, want queued for the next run", row.State)
	}
	if got := w.paths("a.test"); len(got) != 1 {
		t.Errorf("paths = %v, want only /", got)
	}
}

func TestStoreFailure(t *testing.T) {
	w := newVWeb(t)
	w.site("a.test", "", chain(5))
	store := crawlertest.NewMemStore()
	boom := errors.New("disk full")
	store.FailAfter(1, boom)
	c, _ := New(w.config(), store)
	_, err := c.Run(context.Background(), []string{"http://a.test/0"})
	if !errors.Is(err, ErrStore) || !errors.Is(err, boom) {
		t.Errorf("Run error = %v, want ErrStore wrapping the store's error", err)
	}
}

// zeroMember is a gzip member holding 1 MiB of zeros (about 1 KiB).
// A host with a long Crawl-delay does not hold workers that another host
// could use: the scheduler hands out entries of hosts that are ready.
func TestSlowHostDoesNotBlockOthers(t *testing.T) {
	w := newVWeb(t)
	slow := map[string]string{"/": page(`<a href="/1">1</a><a href="/2">2</a><a href="/3">3</a>`)}
	fast := map[string]string{"/": page(`<a href="http://slow.test/">slow</a>` + strings.Repeat(`<a href="/x">x</a>`, 1))}
	for i := 1; i <= 3; i++ {
		slow[fmt.Sprintf("/%d", i)] = page("s")
	}
	var links strings.Builder
	for i := range 12 {
		fmt.Fprintf(&links, `<a href="/%d">f</a>`, i)
		fast[fmt.Sprintf("/%d", i)] = page("f")
	}
	fast["/x"] = page(links.String())
	w.site("slow.test", "User-agent: *\nCrawl-delay: 0.3\n", slow)
	w.site("fast.test", "", fast)
	cfg := w.config()
	cfg.Concurrency = 2
	cfg.PerHost = 2
	cfg.AllowDomains = []string{"slow.test", "fast.test"}
	crawl(t, cfg, crawlertest.NewMemStore(), "http://slow.test/", "http://fast.test/")
	s, f := w.hitsOf("slow.test"), w.hitsOf("fast.test")
	if len(s) != 5 || len(f) != 15 {
		t.Fatalf("requests: slow %d, fast %d; want 5 and 15", len(s), len(f))
	}
	// slow.test: robots.txt, /, /1 ... one every 0.3s. All of fast.test is
	// done long before slow.test's third request (0.6s in).
	if last := f[len(f)-1].At; !last.Before(s[2].At) {
		t.Errorf("fast.test finished %v after slow.test's third request: workers waited on the slow host", last.Sub(s[2].At))
	}
	checkGaps(t, w, "slow.test", 300*time.Millisecond)
}

// TestRobotsCacheBounded: robots.txt is kept per scheme, host and port,
// for at most the TTL, and at most MaxRobots of them: the least recently
// used is forgotten and fetched again when needed.
func TestRobotsCacheBounded(t *testing.T) {
	w := newVWeb(t)
	for _, h := range []string{"a.test", "b.test", "c.test"} {
		w.site(h, "User-agent: *\nDisallow: /private\n", map[string]string{"/": page("x"), "/1": page("1"), "/2": page("2")})
	}
	c, err := New(w.config(), crawlertest.NewMemStore())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	robotsOf := func(h string) int {
		n := 0
		for _, hit := range w.hitsOf(h) {
			if hit.Path == "/robots.txt" {
				n++
			}
		}
		return n
	}
	check := func(raw string) {
		t.Helper()
		u, _ := parseCanonical(raw)
		if err := c.rob.allowed(t.Context(), u); err != nil {
			t.Fatalf("allowed(%s): %v", raw, err)
		}
	}
	c.rob.max = 2
	check("http://a.test/")
	check("http://a.test/1")
	check("http://b.test/")
	check("http://c.test/") // a.test, the least recently used, is forgotten
	check("http://a.test/2")
	if got := []int{robotsOf("a.test"), robotsOf("b.test"), robotsOf("c.test")}; got[0] != 2 || got[1] != 1 || got[2] != 1 {
		t.Errorf("robots.txt fetches of a, b, c = %v, want [2 1 1] (a forgotten once, with room for 2)", got)
	}
	if n := len(c.rob.m); n != 2 || c.rob.lru.Len() != 2 {
		t.Errorf("robots cache holds %d entries (list %d), want 2", n, c.rob.lru.Len())
	}
	c.rob.ttl = 0 // every entry is out of date at once
	check("http://c.test/1")
	if got := robotsOf("c.test"); got != 2 {
		t.Errorf("robots.txt of c.test fetched %d times after its TTL ran out, want 2", got)
	}
}

// TestSavesDoNotHoldFetchSlots: with Concurrency 2, the saves of the
// first two pages wait until four more pages have been fetched, which
// happens only if a worker storing a page leaves its fetch slot to
// another; and the server never sees more than two requests at once.
func TestSavesDoNotHoldFetchSlots(t *testing.T) {
	w := newVWeb(t)
	const pages = 8
	release := make(chan struct{})
	var served atomic.Int32
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(rw, r)
			return
		}
		fmt.Fprint(rw, page("leaf"))
		if served.Add(1) == 6 {
			close(release)
		}
	}))
	var seeds []string
	for i := range pages {
		seeds = append(seeds, fmt.Sprintf("http://a.test/%d", i))
	}
	cfg := w.config()
	cfg.Concurrency, cfg.PerHost = 2, 2
	var saves atomic.Int32
	stuck := atomic.Int32{} // pages served when a held save gave up waiting, +1
	store := &spyStore{Store: crawlertest.NewMemStore(), pages: func(*crawlstore.Page) {
		if saves.Add(1) > 2 {
			return
		}
		select {
		case <-release:
		case <-time.After(30 * time.Second): // the failure: no fetch while two pages are stored
			stuck.CompareAndSwap(0, served.Load()+1)
		}
	}}
	st := crawl(t, cfg, store, seeds...)
	if n := stuck.Load(); n > 0 {
		t.Errorf("while two pages were being stored for 30 s, %d pages were fetched, want 6", n-1)
	}
	if st.Fetched != pages {
		t.Errorf("fetched %d pages, want %d", st.Fetched, pages)
	}
	w.mu.Lock()
	most := w.maxTotal
	w.mu.Unlock()
	if most > cfg.Concurrency {
		t.Errorf("%d requests in flight at once, want at most Concurrency %d", most, cfg.Concurrency)
	}
}
