package crawler

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/sitemap"
)

// earliestWait is when the soonest of the crawl's waits on c ends.
func (c *manualClock) earliestWait() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	var at time.Time
	for _, w := range c.waiters {
		if at.IsZero() || w.at.Before(at) {
			at = w.at
		}
	}
	return at
}

// TestContinuousSitemapDue: a sitemap named by robots.txt has its own due
// time in a continuous crawl. Read unchanged (a 304 to its conditional
// GET) its interval grows (1h, 2h, 6h) while the host's pages, never
// changing, go to --max-interval; then it gains a URL and a newer lastmod
// for a page: a restart carries its due time on from the store, the crawl
// waits until then and not less, and at its due time fetches both pages,
// though no page of the host is due.
func TestContinuousSitemapDue(t *testing.T) {
	w := newVWeb(t)
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	listed := []sitemap.URL{{Loc: "http://a.test/a", LastMod: t0.Add(-24 * time.Hour), Priority: -1}}
	pages := map[string]string{"/": page("home"), "/a": page("a"), "/new": page("new")}
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(rw, "Sitemap: http://a.test/sitemap.xml\n")
		case "/sitemap.xml":
			mu.Lock()
			var b bytes.Buffer
			err := sitemap.Write(&b, sitemap.URLSet, listed)
			mu.Unlock()
			if err != nil {
				t.Error(err)
			}
			sum := sha256.Sum256(b.Bytes())
			etag := `"` + hex.EncodeToString(sum[:8]) + `"`
			rw.Header().Set("ETag", etag)
			if r.Header.Get("If-None-Match") == etag {
				rw.WriteHeader(http.StatusNotModified)
				return
			}
			rw.Write(b.Bytes())
		default:
			if body, ok := pages[r.URL.Path]; ok {
				rw.Header().Set("Content-Type", "text/html")
				fmt.Fprint(rw, body)
				return
			}
			http.NotFound(rw, r)
		}
	}))
	clock := &manualClock{now: t0, waiting: make(chan struct{})}
	store := crawlertest.NewMemStore()
	run := startContinuous(t, w.config(), clock, store, "http://a.test/") // --min-interval 1h, --max-interval 10h
	const sm = "http://a.test/sitemap.xml"
	<-clock.waiting
	// Pages due at 1h, 2h (unknown yet), then 12h (never changed); the
	// sitemap at 1h, 3h (unchanged, watched 1h: 2h), 9h (watched 3h: 6h).
	for _, step := range []struct {
		at      time.Duration
		sitemap time.Duration // its due time after the step
	}{{0, time.Hour}, {time.Hour, 3 * time.Hour}, {2 * time.Hour, 3 * time.Hour}, {3 * time.Hour, 9 * time.Hour}} {
		if d := t0.Add(step.at).Sub(clock.Now()); d > 0 {
			clock.advance(d)
			<-clock.waiting
		}
		if sc := store.SitemapSchedules()[sm]; !sc.Due.Equal(t0.Add(step.sitemap)) {
			t.Fatalf("at t0+%v the sitemap's schedule is %+v, want due at t0+%v", step.at, sc, step.sitemap)
		}
	}
	conditional := 0
	for _, h := range w.hitsOf("a.test") {
		if h.Path == "/sitemap.xml" && h.Header.Get("If-None-Match") != "" {
			conditional++
		}
	}
	if conditional != 2 {
		t.Errorf("%d conditional GETs of the sitemap, want 2 (its reads at 1h and 3h)", conditional)
	}
	due := store.Due()
	for k, at := range due {
		if !at.Equal(t0.Add(12 * time.Hour)) {
			t.Errorf("page %s due at %v, want t0+12h (never changed: --max-interval after its third fetch)", k, at)
		}
	}
	before := len(w.paths("a.test"))

	// The sitemap gains /new and a newer lastmod for /a; the crawl restarts.
	mu.Lock()
	listed = []sitemap.URL{{Loc: "http://a.test/a", LastMod: t0.Add(3*time.Hour + 30*time.Minute), Priority: -1},
		{Loc: "http://a.test/new", Priority: -1}}
	mu.Unlock()
	run.stop()
	clock.advance(30 * time.Minute)
	startContinuous(t, w.config(), clock, store, "http://a.test/")
	<-clock.waiting
	if at := clock.earliestWait(); !at.Equal(t0.Add(9 * time.Hour)) {
		t.Errorf("after the restart the crawl waits until %v, want t0+9h (the sitemap's due time, from the store)", at)
	}
	if got := w.paths("a.test"); len(got) != before {
		t.Errorf("after the restart, before the sitemap is due, fetched %v, want nothing more", got[before:])
	}
	clock.advance(t0.Add(9 * time.Hour).Sub(clock.Now()))
	<-clock.waiting
	count := map[string]int{}
	for _, p := range w.paths("a.test")[before:] {
		count[p]++
	}
	if want := map[string]int{"/sitemap.xml": 1, "/a": 1, "/new": 1}; fmt.Sprint(count) != fmt.Sprint(want) {
		t.Errorf("at the sitemap's due time fetched %v, want %v", count, want)
	}
	for _, u := range []string{"http://a.test/a", "http://a.test/new"} {
		if at := fetchedAt(t, store, u); !at.Equal(t0.Add(9 * time.Hour)) {
			t.Errorf("%s fetched at %v, want t0+9h", u, at)
		}
	}
	if row, _ := store.Row("http://a.test/a"); !row.Fetch.Sitemap.LastMod.Equal(t0.Add(3*time.Hour + 30*time.Minute)) {
		t.Errorf("/a stored with hint %+v, want the new lastmod", row.Fetch.Sitemap)
	}
	if sc := store.SitemapSchedules()[sm]; sc.Changes != 1 || !sc.Due.After(t0.Add(9*time.Hour)) {
		t.Errorf("the sitemap's schedule after it changed = %+v, want one change and a due time after t0+9h", sc)
	}
}

// TestNextSitemapSchedule: the interval after each read, from the
// sitemap's own history.
func TestNextSitemapSchedule(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	const lo, hi = time.Hour, 100 * time.Hour
	ok := func(sha string) sitemapRead { return sitemapRead{ok: true, sha256: sha} }
	var sc crawlstore.SitemapSchedule
	for _, step := range []struct {
		name string
		at   time.Duration
		res  sitemapRead
		want time.Duration // interval after it
	}{
		{"first read", 0, ok("x"), lo},
		{"unchanged, watched 1h", time.Hour, sitemapRead{ok: true, notModified: true}, 2 * time.Hour},
		{"unchanged, watched 3h", 3 * time.Hour, ok("x"), 6 * time.Hour},
		{"failed", 9 * time.Hour, sitemapRead{}, lo},
		{"changed once in 3 reads over 10h", 10 * time.Hour, ok("y"), time.Duration(float64(10*time.Hour/3) / -logRatio(3, 1))},
		{"the clock went back", 5 * time.Hour, ok("y"), lo},
		{"unchanged for 1000h", 1005 * time.Hour, ok("y"), hi},
	} {
		now := t0.Add(step.at)
		sc = nextSitemapSchedule(sc, step.res, now, lo, hi)
		if got := sc.Due.Sub(now); (got - step.want).Abs() > time.Second {
			t.Errorf("%s: due %v later, want %v (schedule %+v)", step.name, got, step.want, sc)
		}
	}
}

// logRatio is ln((n - x + 0.5)/(n + 0.5)), of Cho and Garcia-Molina's
// estimator for x changes in n visits.
func logRatio(n, x float64) float64 { return math.Log((n - x + 0.5) / (n + 0.5)) }

// TestSitemapReadsSpendBudget: a sitemap file read takes a --budget
// token as a page fetch does: with a budget of 2 an hour, the sitemap
// and the seed go at once, and the page the sitemap lists waits for the
// next token, half an hour later.
func TestSitemapReadsSpendBudget(t *testing.T) {
	w := newVWeb(t)
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/sitemap.xml":
			if err := sitemap.Write(rw, sitemap.URLSet, []sitemap.URL{{Loc: "http://a.test/a", Priority: -1}}); err != nil {
				t.Error(err)
			}
		case "/", "/a":
			rw.Header().Set("Content-Type", "text/html")
			fmt.Fprint(rw, page(r.URL.Path))
		default:
			http.NotFound(rw, r)
		}
	}))
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	clock := &manualClock{now: t0, waiting: make(chan struct{}, 10)}
	cfg := w.config()
	cfg.Clock, cfg.Budget = clock, Budget{N: 2, Per: time.Hour}
	cfg.Sitemaps = []string{"http://a.test/sitemap.xml"}
	c, err := New(cfg, crawlertest.NewMemStore())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	done := make(chan error, 1)
	go func() {
		_, err := c.Run(t.Context(), []string{"http://a.test/"})
		done <- err
	}()
	select {
	case <-clock.waiting:
	case err := <-done:
		t.Fatalf("the crawl ended (%v) without waiting for the budget: fetched %v, want 2 of the 3 first", err, w.paths("a.test"))
	}
	// NB: the waiting one is /a, listed by the sitemap (read by then);
	// the seed took the other token, and may still be in flight.
	for _, p := range w.paths("a.test") {
		if p == "/a" {
			t.Errorf("/a was fetched before the crawl waited for a token: the sitemap took none")
		}
	}
	clock.advance(30 * time.Minute)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := w.paths("a.test"); len(got) != 3 {
		t.Errorf("fetched %v, want the sitemap, / and /a", got)
	}
}
