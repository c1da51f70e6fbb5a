package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
	"github.com/webtable/webtable/webtable"
)

// stepClock is a crawler.Clock that runs hours of a continuous crawl at
// once: each Now is a millisecond after the one before, and After(d) moves
// time on by d and fires at once. After the stopAfter-th wait between
// rounds (a wait of a minute or more) it calls stop and never fires, so
// that the crawl ends on its cancelled context.
type stepClock struct {
	mu        sync.Mutex
	now       time.Time
	idle      int // waits between rounds so far
	stopAfter int
	stop      func()
	calls     int // After calls; more than maxClockCalls stops the crawl
}

// maxClockCalls bounds the waits of a test on a stepClock: a crawl that
// waits in short steps instead of one timer for the next due page (that
// spins) is stopped, and its test fails.
const maxClockCalls = 1000

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Millisecond)
	return c.now
}

// peek is Now without moving time on, for the test's own records.
func (c *stepClock) peek() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls++; c.calls > maxClockCalls {
		c.stop()
		return nil
	}
	if d >= time.Minute {
		if c.idle++; c.idle > c.stopAfter {
			c.stop()
			return nil
		}
	}
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// changingSite serves / (linking to /a and /b), /a (a new body on every
// fetch) and /b (always the same), counting the fetches of each path and
// calling onFetch, when set, with each.
type changingSite struct {
	srv     *httptest.Server
	mu      sync.Mutex
	fetches map[string]int
	onFetch func(path string, n int)
	sitemap http.HandlerFunc // when set, serves /sitemap.xml
}

func newChangingSite(t *testing.T, extra int) *changingSite {
	t.Helper()
	s := &changingSite{fetches: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		sm := s.sitemap
		s.mu.Unlock()
		if r.URL.Path == "/sitemap.xml" && sm != nil {
			sm(w, r)
			return
		}
		s.mu.Lock()
		s.fetches[r.URL.Path]++
		n := s.fetches[r.URL.Path]
		on := s.onFetch
		s.mu.Unlock()
		if on != nil {
			on(r.URL.Path, n)
		}
		w.Header().Set("Content-Type", "text/html")
		switch {
		case r.URL.Path == "/":
			var b strings.Builder
			b.WriteString(`<a href="/a">a</a> <a href="/b">b</a>`)
			for i := range extra {
				fmt.Fprintf(&b, ` <a href="/p/%d">p%d</a>`, i, i)
			}
			fmt.Fprint(w, b.String())
		case r.URL.Path == "/a":
			fmt.Fprintf(w, "<p>version %d</p>", n)
		default:
			fmt.Fprintf(w, "<p>%s never changes</p>", r.URL.Path)
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *changingSite) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fetches[path]
}

// continuousRun runs crawl --continuous in-process on clock until the
// clock stops it, and returns the exit status.
func continuousRun(t *testing.T, db string, clock *stepClock, args ...string) int {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock.stop = cancel
	var out strings.Builder
	args = append([]string{"--db", db, "--continuous", "--delay", "0"}, args...)
	code := runWith(ctx, args, io.Discard, &out, deps{open: openForCrawl, storeGrace: storeGrace, clock: clock})
	if code != exitInterrupted {
		t.Fatalf("crawl %v: exit status %d, want %d (ended by its context)\n%s", args, code, exitInterrupted, out.String())
	}
	return code
}

// lastFetch reads the fetch record of url from the store at db.
func lastFetch(t *testing.T, db, url string) crawlstore.Fetch {
	t.Helper()
	ctx := context.Background()
	w, err := openForCrawl(ctx, db, webtable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	key, err := urlkey.Key(url)
	if err != nil {
		t.Fatal(err)
	}
	f, ok, err := w.CrawlStore().LastFetch(ctx, key)
	if err != nil || !ok {
		t.Fatalf("LastFetch(%s) = ok %v, %v; want a fetch", url, ok, err)
	}
	return f
}

// TestContinuousChangeRate crawls a site whose /a changes on every fetch
// and /b never, continuously over simulated hours: /a must be fetched
// again at --min-interval, /b set back to --max-interval, and a restart
// must carry the due times on (/b not fetched again, /a is).
func TestContinuousChangeRate(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	site := newChangingSite(t, 0)
	db := filepath.Join(t.TempDir(), "db")
	clock := &stepClock{now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), stopAfter: 10}
	continuousRun(t, db, clock, site.srv.URL+"/")
	if clock.calls != clock.idle {
		t.Errorf("the crawl waited %d times for 10 rounds (%d waits between them): want one timer a round", clock.calls, clock.idle)
	}

	a, b := site.count("/a"), site.count("/b")
	// NB: an estimate needs two visits (crawler's dueMinVisits, as the
	// freshness simulator's), so /b is fetched three times before it is set
	// back: the first fetch, then two an hour apart.
	if a < 10 || b > 3 {
		t.Errorf("over 10 waits, /a (changing) was fetched %d times and /b (unchanged) %d: want /a at least 10 times, /b at most 3 times", a, b)
	}
	fa, fb := lastFetch(t, db, site.srv.URL+"/a"), lastFetch(t, db, site.srv.URL+"/b")
	if got := fa.Change.Due.Sub(fa.Time); got != time.Hour {
		t.Errorf("/a (changed %d of %d visits) is due %v after its last fetch, want the min interval 1h", fa.Change.Changes, fa.Change.Visits, got)
	}
	if got := fb.Change.Due.Sub(fb.Time); got != 30*24*time.Hour {
		t.Errorf("/b (changed %d of %d visits) is due %v after its last fetch, want the max interval 720h", fb.Change.Changes, fb.Change.Visits, got)
	}
	if fa.Change.Rate <= 0 || fb.Change.Rate != 0 {
		t.Errorf("estimated rates: /a %g, /b %g; want /a > 0, /b 0", fa.Change.Rate, fb.Change.Rate)
	}

	// A restart, its clock going on: the due times come from the store.
	clock.idle, clock.stopAfter = 0, 3
	continuousRun(t, db, clock, site.srv.URL+"/")
	if got := site.count("/b") - b; got != 0 {
		t.Errorf("after a restart /b, due in 30 days, was fetched %d times within hours", got)
	}
	if got := site.count("/a") - a; got < 3 {
		t.Errorf("after a restart /a, due every hour, was fetched %d times over 3 waits, want 3 or more", got)
	}
}

// TestContinuousBudget crawls 2+10 pages with --budget 4/1h on a clock
// that moves on as the crawl waits: at any moment the fetches so far must
// be at most 4 + 4 per hour since the start, so the last page comes
// after 2 hours at least.
func TestContinuousBudget(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	const extra, n, per = 10, 4, time.Hour
	site := newChangingSite(t, extra)
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	clock := &stepClock{now: start, stopAfter: 1 << 30}
	var mu sync.Mutex
	var times []time.Time
	site.onFetch = func(path string, _ int) {
		mu.Lock()
		defer mu.Unlock()
		times = append(times, clock.peek())
		if len(times) == 3+extra {
			clock.stop()
		}
	}
	db := filepath.Join(t.TempDir(), "db")
	continuousRun(t, db, clock, "--concurrency", "1", "--budget", fmt.Sprintf("%d/%v", n, per), site.srv.URL+"/")
	mu.Lock()
	defer mu.Unlock()
	if len(times) < 3+extra {
		t.Fatalf("%d fetches, want %d", len(times), 3+extra)
	}
	for i, at := range times {
		if allowed := n + int(float64(n)*at.Sub(start).Hours()+1e-9); i+1 > allowed {
			t.Fatalf("fetch %d came %v after the start: more than %d/%v allows (%d)", i+1, at.Sub(start), n, per, allowed)
		}
	}
	if last := times[len(times)-1].Sub(start); last < 2*time.Hour {
		t.Errorf("%d fetches took %v of the clock, want 2h at least", len(times), last)
	}
}

// TestContinuousSitemapLastmod: a page that a sitemap lists with a lastmod
// newer than its last fetch is due at once, although its history (it never
// changed) sets it back a month: with a sitemap that always says /b
// changed a minute ago, /b is fetched in every round.
func TestContinuousSitemapLastmod(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	site := newChangingSite(t, 0)
	clock := &stepClock{now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), stopAfter: 6}
	sitemap := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/b</loc><lastmod>%s</lastmod></url></urlset>`,
			site.srv.URL, clock.peek().Add(-time.Minute).Format(time.RFC3339))
	}
	site.mu.Lock()
	site.sitemap = sitemap
	site.mu.Unlock()
	db := filepath.Join(t.TempDir(), "db")
	continuousRun(t, db, clock, "--sitemap", site.srv.URL+"/sitemap.xml", site.srv.URL+"/")
	if b := site.count("/b"); b < 5 {
		t.Errorf("/b, listed by a sitemap as changed a minute ago, was fetched %d times over 6 rounds, want 5 or more", b)
	}
}
