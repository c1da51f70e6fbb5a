package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
)

// logLines collects Config.Log's lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) log(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
}

func (l *logLines) matching(sub string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			out = append(out, s)
		}
	}
	return out
}

// A site whose pages link to each other over http and https, behind a
// proxy that refuses CONNECT: the https origin is unreachable, so every
// page is fetched over http (one row per page whatever the scheme), the
// origin is named once in the log, and nothing is left queued.
func TestUnreachableHTTPSPagesComeOverHTTP(t *testing.T) {
	w := newVWeb(t)
	pages := map[string]string{"/": page(`<a href="https://a.example.com/p/0">0</a>`)}
	const n = 30
	for i := range n {
		pages[fmt.Sprintf("/p/%d", i)] = page(fmt.Sprintf(`<a href="https://a.example.com/p/%d">next</a> <a href="http://a.example.com/p/%d">again</a>`, (i+1)%n, (i+7)%n))
	}
	w.site("a.example.com", "", pages)
	var logs logLines
	cfg := w.config()
	cfg.Concurrency = 4
	cfg.Depth = 100
	cfg.Log = logs.log
	store := crawlertest.NewMemStore()
	st := crawl(t, cfg, store, "http://a.example.com/")
	if st.Fetched != n+1 {
		t.Errorf("Fetched = %d, want %d: every page over http (stats %+v)", st.Fetched, n+1, st)
	}
	for i := range n {
		r, ok := store.Row(fmt.Sprintf("https://a.example.com/p/%d", i))
		if !ok || r.State != crawlstore.StateDone || !strings.HasPrefix(r.URL, "http://") {
			t.Errorf("row /p/%d = %+v, want done, fetched over http", i, r)
		}
	}
	if got := st.Failures[FailConnect]; got != 1 {
		t.Errorf("Failures[connect] = %d, want 1: the origin is held back after the first refusal (%v)", got, st.Failures)
	}
	if len(st.HeldBack) != 0 {
		t.Errorf("HeldBack = %+v, want none: every page came over http", st.HeldBack)
	}
	if got := logs.matching("https://a.example.com"); len(got) != 1 || !strings.Contains(got[0], "proxy refused CONNECT") {
		t.Errorf("log lines naming the https origin = %q, want one naming the refusal", got)
	}
	if st.Retries != 0 {
		t.Errorf("Retries = %d (%v), want 0: nothing answered 429 or 5xx", st.Retries, st.RetriesBy)
	}
}

// An unreachable origin whose URLs have a port has no other scheme to go
// through: its pages stay queued, counted by origin with the reason, and
// every other origin is crawled whole.
func TestUnreachableOriginIsListedAndCostsOnlyItself(t *testing.T) {
	w := newVWeb(t)
	body := `<a href="http://a.example.com/b">b</a>`
	for i := range 5 {
		body += fmt.Sprintf(` <a href="https://a.example.com:8443/x/%d">x</a>`, i)
	}
	w.site("a.example.com", "", map[string]string{"/": page(body), "/b": page(`<a href="/c">c</a>`), "/c": page("end")})
	store := crawlertest.NewMemStore()
	st := crawl(t, w.config(), store, "http://a.example.com/")
	if st.Fetched != 3 {
		t.Errorf("Fetched = %d, want 3 (stats %+v)", st.Fetched, st)
	}
	want := []crawlstore.HeldBack{{Origin: "https://a.example.com:8443", Reason: crawlstore.HoldUnreachable, Entries: 5}}
	got := slices.Clone(st.HeldBack)
	for i := range got {
		if !strings.Contains(got[i].Detail, "403") {
			t.Errorf("HeldBack[%d].Detail = %q, want the proxy's 403", i, got[i].Detail)
		}
		got[i].Detail = ""
	}
	if !slices.Equal(got, want) {
		t.Errorf("HeldBack = %+v, want %+v", got, want)
	}
	for i := range 5 {
		if r, _ := store.Row(fmt.Sprintf("https://a.example.com:8443/x/%d", i)); r.State != crawlstore.StateQueued {
			t.Errorf("x/%d state %v, want queued (kept for a later run)", i, r.State)
		}
	}
}

// With a delay, requests to one host never come closer than the delay,
// whichever scheme each uses: politeness belongs to the server.
func TestDelaySharedByBothSchemes(t *testing.T) {
	w := newVWeb(t)
	pool := w.serveTLS(t, "a.example.com")
	pages := map[string]string{}
	const n = 12
	for i := range n {
		scheme := []string{"http", "https"}[i%2]
		pages[fmt.Sprintf("/p/%d", i)] = page(fmt.Sprintf(`<a href="%s://a.example.com/p/%d">next</a>`, scheme, i+1))
	}
	w.site("a.example.com", "", pages)
	cfg := w.config()
	cfg.RootCAs = pool
	cfg.Delay = 40 * time.Millisecond
	cfg.Concurrency = 4
	cfg.Depth = 100
	st := crawl(t, cfg, crawlertest.NewMemStore(), "http://a.example.com/p/0")
	if st.Fetched != n {
		t.Fatalf("Fetched = %d, want %d (stats %+v)", st.Fetched, n, st)
	}
	var hits []hit
	schemes := map[string]int{}
	for _, h := range w.hitsOf("a.example.com") {
		if h.Scheme != "connect" {
			hits = append(hits, h)
			schemes[h.Scheme]++
		}
	}
	if schemes["http"] == 0 || schemes["https"] == 0 {
		t.Fatalf("requests by scheme %v, want both", schemes)
	}
	slices.SortFunc(hits, func(a, b hit) int { return a.At.Compare(b.At) })
	for i := 1; i < len(hits); i++ {
		if gap := hits[i].At.Sub(hits[i-1].At); gap < cfg.Delay {
			t.Errorf("%s %s came %v after %s %s, want at least %v", hits[i].Scheme, hits[i].Path, gap, hits[i-1].Scheme, hits[i-1].Path, cfg.Delay)
		}
	}
}

// A server's long Retry-After on one origin holds back that origin's
// pages only: the other scheme's pages of the same host are fetched.
func TestRetryAfterHoldsOneOrigin(t *testing.T) {
	w := newVWeb(t)
	pool := w.serveTLS(t, "a.example.com")
	w.handle("a.example.com", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			http.NotFound(rw, r)
		case r.TLS != nil:
			rw.Header().Set("Retry-After", "3600")
			http.Error(rw, "busy", http.StatusServiceUnavailable)
		default:
			rw.Header().Set("Content-Type", "text/html")
			fmt.Fprint(rw, page(`<a href="https://a.example.com/s/1">s1</a> <a href="https://a.example.com/s/2">s2</a>
				<a href="https://a.example.com/s/3">s3</a> <a href="/h/1">h1</a> <a href="/h/2">h2</a>`))
		}
	}))
	cfg := w.config()
	cfg.RootCAs = pool
	cfg.Concurrency = 1
	store := crawlertest.NewMemStore()
	st := crawl(t, cfg, store, "http://a.example.com/")
	if st.Fetched != 3 {
		t.Errorf("Fetched = %d, want 3: the http pages (stats %+v)", st.Fetched, st)
	}
	if len(st.HeldBack) != 1 || st.HeldBack[0].Origin != "https://a.example.com" || st.HeldBack[0].Reason != crawlstore.HoldRetryAfter ||
		st.HeldBack[0].Entries != 2 || time.Until(st.HeldBack[0].Until) < 59*time.Minute {
		t.Errorf("HeldBack = %+v, want https://a.example.com, 2 entries, server asked to wait, for an hour", st.HeldBack)
	}
	https := 0
	for _, h := range w.hitsOf("a.example.com") {
		if h.Scheme == "https" && h.Path != "/robots.txt" {
			https++
		}
	}
	if https != 1 {
		t.Errorf("%d https page requests, want 1: the origin is left alone after its Retry-After", https)
	}
}

// Retries are counted by what caused them.
func TestRetriesCountedByCause(t *testing.T) {
	w := newVWeb(t)
	var mu sync.Mutex
	seen := map[string]int{}
	w.handle("a.example.com", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path]++
		k := seen[r.URL.Path]
		mu.Unlock()
		switch {
		case r.URL.Path == "/robots.txt":
			http.NotFound(rw, r)
		case r.URL.Path == "/busy" && k == 1:
			http.Error(rw, "slow down", http.StatusTooManyRequests)
		case r.URL.Path == "/down" && k == 1:
			http.Error(rw, "oops", http.StatusBadGateway)
		default:
			rw.Header().Set("Content-Type", "text/html")
			fmt.Fprint(rw, page(`<a href="/busy">b</a> <a href="/down">d</a>`))
		}
	}))
	st := crawl(t, w.config(), crawlertest.NewMemStore(), "http://a.example.com/")
	if st.Fetched != 3 || st.Retries != 2 || st.RetriesBy[RetryTooMany] != 1 || st.RetriesBy[RetryServerError] != 1 {
		t.Errorf("Fetched %d, Retries %d by %v; want 3 pages, one retry after 429 and one after 5xx", st.Fetched, st.Retries, st.RetriesBy)
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want FailureKind
		ok   bool
	}{
		{&connectError{"a:443", "403 Forbidden"}, FailConnect, true},
		{fmt.Errorf("get: %w", &connectError{"a:443", "502 Bad Gateway"}), FailConnect, true},
		{&redirectError{"loop"}, "", false},
		{&bodyError{errors.New("x")}, "", false},
		{errStopped, "", false},
		{errors.New("something odd"), FailTransfer, true},
	} {
		k, ok := classify(tc.err)
		if k != tc.want || ok != tc.ok {
			t.Errorf("classify(%v) = %q, %v; want %q, %v", tc.err, k, ok, tc.want, tc.ok)
		}
	}
}

func TestServerKey(t *testing.T) {
	for _, tc := range []struct{ scheme, host, want string }{
		{"http", "a.test", "a.test"},
		{"http", "A.Test.", "a.test"},
		{"http", "a.test:80", "a.test"},
		{"https", "a.test:443", "a.test"},
		{"https", "a.test:080", "a.test:80"},
		{"http", "LOCALHOST.:080", "localhost"},
		{"http", "a.test:8080", "a.test:8080"},
		{"http", "[::1]:80", "[::1]"},
		{"http", "[::1]", "[::1]"},
	} {
		if got := serverKey(tc.scheme, tc.host); got != tc.want {
			t.Errorf("serverKey(%q, %q) = %q, want %q", tc.scheme, tc.host, got, tc.want)
		}
	}
}

// A pause of one origin (a 429 or 5xx backoff) keeps that origin's
// entries, not the other scheme's entries of the same host.
func TestPauseKeepsOnlyItsOrigin(t *testing.T) {
	s := newScheduler(1, 0, 0)
	s.forRun(0, func(context.Context, string, string, int) (crawlstore.FrontierBatch, error) {
		return crawlstore.FrontierBatch{}, nil
	})
	s.pause("https", "a.test", time.Hour)
	for i, u := range []string{"https://a.test/1", "https://a.test/2", "http://a.test/3"} {
		s.enqueued("a.test", crawlstore.Entry{URL: u, Key: fmt.Sprintf("a.test/%d", i+1), Frontier: fmt.Sprintf("%02d", i)})
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	e, _, ok := s.pop(ctx)
	if !ok || e.URL != "http://a.test/3" {
		t.Fatalf("pop = %+v, %v; want http://a.test/3 while https://a.test is paused", e, ok)
	}
	s.done("a.test", e, true)
	short, cancel2 := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel2()
	if e, _, ok := s.pop(short); ok {
		t.Errorf("pop = %+v, want nothing before the https pause ends", e)
	}
}

// A page whose origin answers 502 (a proxy that cannot reach it) is tried
// once through the other scheme after its retries, as the same row key,
// when that origin answered before.
func TestGatewayErrorTriesTheOtherScheme(t *testing.T) {
	w := newVWeb(t)
	pool := w.serveTLS(t, "a.example.com")
	w.handle("a.example.com", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			http.NotFound(rw, r)
		case r.URL.Path == "/only-https" && r.TLS == nil:
			http.Error(rw, "cannot reach the origin", http.StatusBadGateway)
		case r.URL.Path == "/":
			rw.Header().Set("Content-Type", "text/html")
			fmt.Fprint(rw, page(`<a href="https://a.example.com/s">s</a>`))
		default:
			rw.Header().Set("Content-Type", "text/html")
			fmt.Fprint(rw, page(`<a href="http://a.example.com/only-https">x</a>`))
		}
	}))
	cfg := w.config()
	cfg.RootCAs = pool
	store := crawlertest.NewMemStore()
	st := crawl(t, cfg, store, "http://a.example.com/")
	r, _ := store.Row("http://a.example.com/only-https")
	if r.State != crawlstore.StateDone || r.URL != "https://a.example.com/only-https" || st.RetriesBy[RetryOtherScheme] != 1 {
		t.Errorf("row = %+v, retries %v; want done through https after the 502s", r, st.RetriesBy)
	}
}

// An origin that never answers, and one that answers garbage, cost only
// themselves: each is named once in the log and its pages are left
// queued, counted, after a few robots.txt tries; the other host is
// crawled whole meanwhile.
func TestSilentAndGarbageOriginsCostOnlyThemselves(t *testing.T) {
	w := newVWeb(t)
	w.handle("silent.example.com", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers
	}))
	w.handle("garbage.example.com", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(rw).Hijack()
		if err != nil {
			return
		}
		buf.WriteString("\x00\x01 this is not HTTP\r\n\r\n")
		buf.Flush()
		conn.Close()
	}))
	body := ""
	for i := range 10 {
		body += fmt.Sprintf(`<a href="http://silent.example.com:81/%d">s</a> <a href="http://garbage.example.com:81/%d">g</a> <a href="/p/%d">p</a>`, i, i, i)
	}
	pages := map[string]string{"/": page(body)}
	for i := range 10 {
		pages[fmt.Sprintf("/p/%d", i)] = page("a page")
	}
	w.site("ok.example.com", "", pages)
	// NB: the silent and garbage hosts are reached as host:81 so that the
	// proxy's Host header names them with a port: no other scheme to try.
	w.handle("silent.example.com:81", w.hosts["silent.example.com"])
	w.handle("garbage.example.com:81", w.hosts["garbage.example.com"])
	var logs logLines
	cfg := w.config()
	cfg.Timeout = 300 * time.Millisecond
	cfg.Log = logs.log
	store := crawlertest.NewMemStore()
	st := crawl(t, cfg, store, "http://ok.example.com/")
	if st.Fetched != 11 {
		t.Errorf("Fetched = %d, want the 11 pages of ok.example.com (stats %+v)", st.Fetched, st)
	}
	got := map[string]int64{}
	for _, h := range st.HeldBack {
		got[h.Origin] = h.Entries
	}
	if got["http://silent.example.com:81"] != 10 || got["http://garbage.example.com:81"] != 10 || len(got) != 2 {
		t.Errorf("HeldBack = %+v, want the 10 pages of each failing origin", st.HeldBack)
	}
	for _, o := range []string{"http://silent.example.com:81", "http://garbage.example.com:81"} {
		if n := len(logs.matching(o)); n != 1 {
			t.Errorf("%s named %d times in the log, want once: %q", o, n, logs.matching(""))
		}
	}
	for _, h := range []string{"silent.example.com:81", "garbage.example.com:81"} {
		if p := w.paths(h); len(p) != 0 {
			t.Errorf("%s: pages requested %v, want none (its robots.txt never answered)", h, p)
		}
		if n := len(w.hitsOf(h)); n > MaxRetries+1 {
			t.Errorf("%s got %d requests, want at most %d robots.txt tries", h, n, MaxRetries+1)
		}
	}
	if st.Failures[FailTimeout] == 0 || st.Failures[FailTransfer]+st.Failures[FailReset] == 0 {
		t.Errorf("Failures = %v, want timeouts and malformed answers counted", st.Failures)
	}
}

// The robots.txt cache is bounded in bytes, not only in files: big files
// push the least recently used out.
func TestRobotsCacheBoundedInBytes(t *testing.T) {
	w := newVWeb(t)
	big := "User-agent: *\n" + strings.Repeat("Disallow: /some/long/path/that/takes/room\n", 250) // ~10 KB
	for i := range 20 {
		w.site(fmt.Sprintf("h%d.example.com", i), big, map[string]string{"/": page("x")})
	}
	c, err := New(w.config(), crawlertest.NewMemStore())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.rob.maxBytes = 5 * (2*int64(len(big)) + robotsEntryBytes)
	for i := range 20 {
		u, _ := url.Parse(fmt.Sprintf("http://h%d.example.com/", i))
		if err := c.rob.allowed(context.Background(), u); err != nil {
			t.Fatal(err)
		}
	}
	c.rob.mu.Lock()
	n, bytes := c.rob.lru.Len(), c.rob.bytes
	c.rob.mu.Unlock()
	if n != 5 || bytes > c.rob.maxBytes {
		t.Errorf("cache holds %d files, %d bytes; want 5 files within %d bytes", n, bytes, c.rob.maxBytes)
	}
}

// A redirect to another spelling of the same host (upper case, a
// trailing dot, the default port written with a leading zero) waits for
// the same politeness slot: the server never sees two requests closer
// than the delay.
func TestRedirectToAnotherSpellingIsOneServer(t *testing.T) {
	w := newVWeb(t)
	w.handle("a.example.com", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(rw, r)
		case "/":
			http.Redirect(rw, r, "http://A.EXAMPLE.COM.:080/there", http.StatusFound)
		default:
			rw.Header().Set("Content-Type", "text/html")
			fmt.Fprint(rw, page("here"))
		}
	}))
	cfg := w.config()
	cfg.Delay = 150 * time.Millisecond
	st := crawl(t, cfg, crawlertest.NewMemStore(), "http://a.example.com/")
	hits := w.hitsOf("a.example.com")
	if st.Fetched != 1 || len(hits) != 3 {
		t.Fatalf("Fetched %d, %d requests %+v; want robots.txt, / and its redirect target", st.Fetched, len(hits), hits)
	}
	for i := 1; i < len(hits); i++ {
		if gap := hits[i].At.Sub(hits[i-1].At); gap < cfg.Delay {
			t.Errorf("%s came %v after %s, want at least %v", hits[i].Path, gap, hits[i-1].Path, cfg.Delay)
		}
	}
}
