package render

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/internal/chromiumtest"
	"github.com/webtable/webtable/internal/spaweb"
)

// siteFetch fetches what a page of site asks for, as the crawler would: the
// site's host only, robots.txt's /private/ refused.
func siteFetch(site *spaweb.Site) func(ctx context.Context, method, raw string, h http.Header) (*crawler.SubResponse, error) {
	return func(ctx context.Context, method, raw string, h http.Header) (*crawler.SubResponse, error) {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme+"://"+u.Host != site.URL || strings.HasPrefix(u.Path, "/private/") || method != http.MethodGet {
			return nil, fmt.Errorf("%w: %s %s", crawler.ErrBlocked, method, raw)
		}
		req, _ := http.NewRequestWithContext(ctx, method, raw, nil)
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return &crawler.SubResponse{Status: resp.StatusCode, Header: resp.Header, Body: body}, err
	}
}

// shellOf returns the page at path of site as served.
func shellOf(t testing.TB, site *spaweb.Site, path string) crawler.RenderJob {
	t.Helper()
	resp, err := http.Get(site.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return crawler.RenderJob{URL: site.URL + path, Body: body, ContentType: resp.Header.Get("Content-Type"), Fetch: siteFetch(site)}
}

// TestRender renders the misbehaving pages of the SPA site at once in one
// pool of three tabs: each is cut where it must be, and none stalls the
// others. Then a cap no browser fits under replaces the browser after a
// render: the next render starts another, and the first one's processes
// are gone; so does a browser killed, and one that hangs.
func TestRender(t *testing.T) {
	chromiumtest.Need(t)
	site := spaweb.Start(3)
	defer site.Close()
	pool, err := New(Options{Tabs: 3, Timeout: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctx := context.Background()
	t.Run("pages", func(t *testing.T) { renderPages(t, ctx, pool, site) })
	t.Run("after", func(t *testing.T) {
		checkNoDownload(t, pool)
		checkEscapes(t, site)
		checkMemoryCap(t, pool, site)
		checkKilled(t, pool, site)
		checkHung(t, pool, site)
	})
}

// renderPages renders each page of the site at once, in parallel subtests.
func renderPages(t *testing.T, ctx context.Context, pool *Pool, site *spaweb.Site) {
	for _, tc := range []struct {
		path     string
		want     []string // in the DOM
		timedOut bool
		anyTime  bool // may run into the timeout, beside the loops, on two cores
		dead     bool // the render fails: the tab is lost
		download bool // the page starts a download, refused
	}{
		{path: "/", want: []string{`href="/p/0"`, `href="/timer"`}},
		{path: "/p/0", want: []string{`href="/p/1"`, `href="/p/2"`, "built by a script"}},
		{path: "/timer", want: []string{`href="/timer/found"`}},
		{path: "/scroll", want: []string{`href="/scroll/found"`, "item 3"}, timedOut: true},
		{path: "/loop", dead: true},
		{path: "/alloc", dead: true},
		{path: "/popup", want: []string{`href="/popup/found"`}},
		{path: "/away", want: []string{`href="/away/found"`}},
		{path: "/errors", want: []string{`href="/errors/found"`}, anyTime: true},
		{path: "/download", want: []string{`href="/download/found"`}, download: true},
	} {
		t.Run(tc.path, func(t *testing.T) {
			t.Parallel()
			job := shellOf(t, site, tc.path)
			job.Screenshot = tc.path == "/p/0"
			res, err := pool.Render(ctx, job)
			if tc.dead {
				if !errors.Is(err, errTabDead) {
					t.Fatalf("Render(%s) = %v, want a lost tab", tc.path, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Render(%s): %v", tc.path, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(res.DOM), w) {
					t.Errorf("Render(%s): the DOM lacks %s:\n%s", tc.path, w, res.DOM)
				}
			}
			if res.TimedOut != tc.timedOut && !tc.anyTime {
				t.Errorf("Render(%s).TimedOut = %v, want %v", tc.path, res.TimedOut, tc.timedOut)
			}
			if job.Screenshot && !strings.HasPrefix(string(res.Screenshot), "\x89PNG") {
				t.Errorf("Render(%s): screenshot of %d bytes is no PNG", tc.path, len(res.Screenshot))
			}
			if got := res.Downloads; (got == 1) != tc.download || got > 1 {
				t.Errorf("Render(%s).Downloads = %d, want %d: a download the page starts is seen and refused", tc.path, got, map[bool]int{true: 1}[tc.download])
			}
			if res.Blocked == 0 {
				t.Errorf("Render(%s) blocked nothing: the private and offsite requests went through", tc.path)
			}
		})
	}
}

// checkEscapes checks that no request of a page rendered escaped the crawl.
func checkEscapes(t *testing.T, site *spaweb.Site) {
	// NB: the renders that started at once may each have asked for it.
	if n := site.Hits("/app.js"); n > 3 {
		t.Errorf("/app.js was fetched %d times for 9 pages, want at most once per tab: the pool keeps what pages share", n)
	}
	for _, p := range []string{"/private/data.json", "/away/gone", "/popup/window"} {
		if n := site.Hits(p); n != 0 {
			t.Errorf("%s was requested %d times: a page's request escaped the crawl", p, n)
		}
	}
	if n := site.OffsiteHits(); n != 0 {
		t.Errorf("the other host got %d requests", n)
	}
}

// checkMemoryCap lowers pool's cap under any browser's size and renders:
// the browser is replaced, its processes killed, and the next render runs
// in a new one.
func checkMemoryCap(t *testing.T, pool *Pool, site *spaweb.Site) {
	old := pool.PGID()
	if old == 0 {
		t.Fatal("no browser running after the renders")
	}
	restarts := pool.Restarts()
	pool.opts.MaxMemory = 1
	pool.mu.Lock()
	pool.memCheck = time.Time{}
	pool.mu.Unlock()
	ctx := context.Background()
	if _, err := pool.Render(ctx, shellOf(t, site, "/p/1")); err != nil {
		t.Fatal(err)
	}
	if pool.Restarts() != restarts+1 || pool.PGID() != 0 {
		t.Fatalf("after a render over the cap: %d restarts, browser group %d; want %d and none running", pool.Restarts(), pool.PGID(), restarts+1)
	}
	pool.opts.MaxMemory = DefaultMaxMemory
	res, err := pool.Render(ctx, shellOf(t, site, "/p/2"))
	if err != nil || !strings.Contains(string(res.DOM), "Text of /p/2") {
		t.Fatalf("the render after a restart: %v, DOM %q", err, res.DOM)
	}
	// NB: a poll: the killed processes are not this test's children.
	for deadline := time.Now().Add(5 * time.Second); len(groupProcs(old)) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("processes %v of the replaced browser still run", groupProcs(old))
		}
	}
}

// checkKilled kills the pool's browser from outside, as a crash would:
// the next render is done in a new browser.
func checkKilled(t *testing.T, pool *Pool, site *spaweb.Site) {
	pgid, restarts := pool.PGID(), pool.Restarts()
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res, err := pool.Render(context.Background(), shellOf(t, site, "/p/1"))
	if err != nil || !strings.Contains(string(res.DOM), "Text of /p/1") {
		t.Fatalf("the render after the browser was killed: %v, DOM %q", err, res.DOM)
	}
	if pool.Restarts() != restarts+1 || pool.PGID() == pgid {
		t.Errorf("after the browser was killed: %d restarts, group %d (was %d); want %d and a new group", pool.Restarts(), pool.PGID(), pgid, restarts+1)
	}
}

// TestChromiumTestExec: the tests run the browser that a crawl runs by
// default.
func TestChromiumTestExec(t *testing.T) {
	if chromiumtest.Exec != DefaultExec {
		t.Errorf("chromiumtest.Exec = %q, render.DefaultExec = %q: want the same browser", chromiumtest.Exec, DefaultExec)
	}
}
