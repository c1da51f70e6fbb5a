package render

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler"
	"github.com/webtable/webtable/internal/spaweb"
)

// needChromium fails the test in CI when chromium is missing, and skips
// it elsewhere.
func needChromium(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath(DefaultExec); err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is missing; .ci/run installs it (apt-get install chromium)", DefaultExec)
	}
	t.Skipf("%s is missing (apt-get install chromium); CI installs it and runs this test", DefaultExec)
}

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

// TestRender renders the misbehaving pages of the SPA site in one pool of
// two tabs: each is cut where it must be, and none stalls the next.
func TestRender(t *testing.T) {
	needChromium(t)
	site := spaweb.Start(3)
	defer site.Close()
	pool, err := New(Options{Timeout: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctx := context.Background()

	for _, tc := range []struct {
		path     string
		want     []string // in the DOM
		timedOut bool
		dead     bool // the render fails: the tab is lost
	}{
		{path: "/", want: []string{`href="/p/0"`, `href="/timer"`}},
		{path: "/p/0", want: []string{`href="/p/1"`, `href="/p/2"`, "built by a script"}},
		{path: "/timer", want: []string{`href="/timer/found"`}},
		{path: "/scroll", want: []string{`href="/scroll/found"`, "item 3"}, timedOut: true},
		{path: "/loop", dead: true},
		{path: "/popup", want: []string{`href="/popup/found"`}},
		{path: "/away", want: []string{`href="/away/found"`}},
		{path: "/errors", want: []string{`href="/errors/found"`}},
		{path: "/p/1", want: []string{"Text of /p/1"}}, // after the loop: the tab was replaced
	} {
		t.Run(tc.path, func(t *testing.T) {
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
			if res.TimedOut != tc.timedOut {
				t.Errorf("Render(%s).TimedOut = %v, want %v", tc.path, res.TimedOut, tc.timedOut)
			}
			if job.Screenshot && !strings.HasPrefix(string(res.Screenshot), "\x89PNG") {
				t.Errorf("Render(%s): screenshot of %d bytes is no PNG", tc.path, len(res.Screenshot))
			}
			if res.Blocked == 0 {
				t.Errorf("Render(%s) blocked nothing: the private and offsite requests went through", tc.path)
			}
		})
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
