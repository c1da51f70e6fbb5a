package crawler

import (
	"bytes"
	"compress/gzip"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
)

// Hostile servers (issue 7): one test per fault. Every test runs the real
// crawler through the test proxy (vweb) against handlers that misbehave on
// purpose, and asserts that the crawl ends within its limits and that
// each failure is recorded in the row's fetch record (MemRow.Err and
// ErrKind, as SavePage stored them). No test sleeps to synchronise: a slow
// handler blocks until the client gives up (its request context ends).

// within fails the test when the crawl took longer than limit: the limits
// are generous multiples of the configured timeouts, so a loaded machine
// passes and a crawl that hangs does not.
func within(t *testing.T, start time.Time, limit time.Duration) {
	t.Helper()
	if d := time.Since(start); d > limit {
		t.Errorf("crawl took %v, want under %v", d, limit)
	}
}

// wantFailed checks that the row of u records a failed fetch of kind and
// an error text containing substr.
func wantFailed(t *testing.T, store *crawlertest.MemStore, u string, kind crawlstore.ErrorKind, substr string) {
	t.Helper()
	row, ok := store.Row(u)
	if !ok || row.State != crawlstore.StateFailed || row.ErrKind != kind || !strings.Contains(row.Err, substr) {
		t.Errorf("%s: state %v kind %q err %q, want failed, kind %q, err containing %q", u, row.State, row.ErrKind, row.Err, kind, substr)
	}
	if len(row.Versions) != 0 {
		t.Errorf("%s: %d content versions stored for a failed fetch, want none", u, len(row.Versions))
	}
}

// wantDone checks that the row of u records a successful fetch.
func wantDone(t *testing.T, store *crawlertest.MemStore, u string) crawlertest.MemRow {
	t.Helper()
	row, ok := store.Row(u)
	if !ok || row.State != crawlstore.StateDone || row.Err != "" {
		t.Errorf("%s: state %v err %q, want done", u, row.State, row.Err)
	}
	return row
}

// hijack takes the connection of a request over. With rst, closing it
// sends a TCP RST (SO_LINGER 0) instead of a FIN.
func hijack(t *testing.T, rw http.ResponseWriter, rst bool) net.Conn {
	conn, _, err := rw.(http.Hijacker).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return nil
	}
	if tc, ok := conn.(*net.TCPConn); ok && rst {
		tc.SetLinger(0)
	}
	return conn
}

func TestHostileSlow(t *testing.T) {
	w := newVWeb(t)
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(rw, page(`<a href="/slow-headers">h</a><a href="/slow-body">b</a><a href="/trickle">t</a><a href="/ok">ok</a>`))
		case "/slow-headers": // no status line until the client gives up
			<-r.Context().Done()
		case "/slow-body": // headers and a first chunk, then nothing
			rw.Header().Set("Content-Type", "text/html")
			fmt.Fprint(rw, `<html><body><a href="/never">never</a>`)
			rw.(http.Flusher).Flush()
			<-r.Context().Done()
		case "/trickle": // a byte every 20ms, for ever: each read succeeds, the fetch never ends
			rw.Header().Set("Content-Type", "text/html")
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-r.Context().Done():
					return
				case <-tick.C:
					if _, err := rw.Write([]byte("x")); err != nil {
						return
					}
					rw.(http.Flusher).Flush()
				}
			}
		case "/ok":
			fmt.Fprint(rw, page("fine"))
		default:
			http.NotFound(rw, r)
		}
	}))
	store := crawlertest.NewMemStore()
	cfg := w.config()
	cfg.Timeout = 300 * time.Millisecond
	cfg.IgnoreRobots = true
	start := time.Now()
	st := crawl(t, cfg, store, "http://a.test/")
	within(t, start, 5*time.Second)
	for _, p := range []string{"/slow-headers", "/slow-body", "/trickle"} {
		wantFailed(t, store, "http://a.test"+p, crawlstore.KindTimeout, "")
	}
	wantDone(t, store, "http://a.test/ok")
	if st.Fetched != 2 || st.ErrorsByKind[crawlstore.KindTimeout] != 3 {
		t.Errorf("stats = %+v, want 2 fetched and 3 timeouts", st)
	}
	if row, _ := store.Row("http://a.test/never"); row.State != crawlstore.StateNone {
		t.Errorf("link of a timed-out body = %v, want not followed", row.State)
	}
}

func TestHostileResets(t *testing.T) {
	w := newVWeb(t)
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(rw, page(`<a href="/rst">r</a><a href="/fin">f</a><a href="/rst-body">b</a><a href="/ok">ok</a>`))
		case "/rst": // RST before any response
			if c := hijack(t, rw, true); c != nil {
				c.Close()
			}
		case "/fin": // orderly close before any response
			if c := hijack(t, rw, false); c != nil {
				c.Close()
			}
		case "/rst-body": // headers promise 100000 bytes, RST after a few
			if c := hijack(t, rw, true); c != nil {
				fmt.Fprint(c, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n<html><a href=\"/x\">x</a>")
				c.Close()
			}
		case "/garbage": // not HTTP at all
			if c := hijack(t, rw, false); c != nil {
				c.Write([]byte("\x00\x01\x02 garbage\r\n\r\n"))
				c.Close()
			}
		case "/huge-headers": // a header that never ends
			if c := hijack(t, rw, false); c != nil {
				defer c.Close()
				fmt.Fprint(c, "HTTP/1.1 200 OK\r\nX-Junk: ")
				junk := bytes.Repeat([]byte("j"), 64<<10)
				for {
					if _, err := c.Write(junk); err != nil {
						return
					}
				}
			}
		case "/ok":
			fmt.Fprint(rw, page("fine"))
		default:
			http.NotFound(rw, r)
		}
	}))
	store := crawlertest.NewMemStore()
	cfg := w.config()
	cfg.IgnoreRobots = true
	start := time.Now()
	st := crawl(t, cfg, store, "http://a.test/", "http://a.test/garbage", "http://a.test/huge-headers")
	within(t, start, 5*time.Second)
	wantFailed(t, store, "http://a.test/garbage", crawlstore.KindNetwork, "malformed HTTP")
	wantFailed(t, store, "http://a.test/huge-headers", crawlstore.KindNetwork, "header")
	wantFailed(t, store, "http://a.test/rst", crawlstore.KindNetwork, "")
	wantFailed(t, store, "http://a.test/fin", crawlstore.KindNetwork, "")
	wantFailed(t, store, "http://a.test/rst-body", crawlstore.KindBody, "reading body")
	wantDone(t, store, "http://a.test/ok")
	if st.Errors != 5 || st.Fetched != 2 {
		t.Errorf("stats = %+v, want 2 fetched, 5 errors", st)
	}
	// The crawler does not retry a reset within the run. NB: net/http
	// itself resends an idempotent request that failed on a reused idle
	// connection, on the next idle one, so the server may see it once per
	// pooled connection, never more.
	if st.Retries != 0 {
		t.Errorf("Retries = %d, want 0: resets are not retried", st.Retries)
	}
	pool := max(cfg.Concurrency, cfg.PerHost) + 2
	for _, p := range []string{"/rst", "/fin", "/rst-body"} {
		n := 0
		for _, q := range w.paths("a.test") {
			if q == p {
				n++
			}
		}
		if n < 1 || n > 1+pool {
			t.Errorf("%s requested %d times, want 1 to %d", p, n, 1+pool)
		}
	}
}

func TestHostileRetries(t *testing.T) {
	w := newVWeb(t)
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(rw, page(`<a href="/503">a</a><a href="/500">b</a>`))
		case "/503": // always busy, asks for no wait at all
			rw.Header().Set("Retry-After", "0")
			http.Error(rw, "busy", http.StatusServiceUnavailable)
		case "/500": // always broken, no Retry-After: the crawler's backoff
			http.Error(rw, "broken", http.StatusInternalServerError)
		default:
			http.NotFound(rw, r)
		}
	}))
	// busy.test asks for an hour: honoured by leaving the host alone for
	// the rest of the run instead of waiting (the wait is capped).
	w.handle("busy.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(rw, page(`<a href="/limited">l</a><a href="/b">b</a><a href="/c">c</a>`))
		case "/limited":
			rw.Header().Set("Retry-After", "3600")
			http.Error(rw, "slow down", http.StatusTooManyRequests)
		default:
			fmt.Fprint(rw, page("later"))
		}
	}))
	store := crawlertest.NewMemStore()
	cfg := w.config()
	cfg.IgnoreRobots = true
	cfg.PerHost = 1
	cfg.AllowDomains = []string{"a.test", "busy.test"}
	c, err := New(cfg, store)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.retryBase = 10 * time.Millisecond
	start := time.Now()
	st, err := c.Run(t.Context(), []string{"http://a.test/", "http://busy.test/"})
	if err != nil {
		t.Fatal(err)
	}
	within(t, start, 5*time.Second)

	wantFailed(t, store, "http://a.test/503", crawlstore.KindHTTP, "503")
	wantFailed(t, store, "http://a.test/500", crawlstore.KindHTTP, "500")
	wantFailed(t, store, "http://busy.test/limited", crawlstore.KindHTTP, "Retry-After 1h0m0s is beyond 30s")
	for _, p := range []string{"/503", "/500"} {
		var at []time.Time
		for _, h := range w.hitsOf("a.test") {
			if h.Path == p {
				at = append(at, h.At)
			}
		}
		if len(at) != 1+MaxRetries {
			t.Errorf("%s requested %d times, want %d (1 + MaxRetries)", p, len(at), 1+MaxRetries)
			continue
		}
		if p != "/500" {
			continue
		}
		// No Retry-After: the backoff doubles from the base (10ms in
		// tests), less loopback jitter.
		for i := 1; i < len(at); i++ {
			if d, want := at[i].Sub(at[i-1]), 10*time.Millisecond<<(i-1); d < want-2*time.Millisecond {
				t.Errorf("/500 retry %d came %v after the previous try, want >= %v", i, d, want)
			}
		}
	}
	// The request after the 429 would have been /b: none was made, and
	// /b and /c stay queued for a later run.
	if got := w.paths("busy.test"); len(got) != 2 || got[1] != "/limited" {
		t.Errorf("busy.test requests = %v, want / and /limited only", got)
	}
	for _, u := range []string{"http://busy.test/b", "http://busy.test/c"} {
		if row, _ := store.Row(u); row.State != crawlstore.StateQueued {
			t.Errorf("%s = %v, want left queued after the host asked for an hour", u, row.State)
		}
	}
	if st.Retries != 2*MaxRetries {
		t.Errorf("Retries = %d, want %d", st.Retries, 2*MaxRetries)
	}
	// A later run of the same crawler (the next round of a sharded crawl)
	// still leaves the host alone: it fetches nothing, so rounds end.
	st, err = c.Run(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Fetched+st.Errors != 0 || len(w.paths("busy.test")) != 2 {
		t.Errorf("second run: stats %+v, busy.test requests %v; want nothing fetched", st, w.paths("busy.test"))
	}
	if row, _ := store.Row("http://busy.test/b"); row.State != crawlstore.StateQueued {
		t.Errorf("/b after the second run = %v, want still queued", row.State)
	}
}

// TestBackoffBounded checks the backoff without Retry-After: it doubles
// from the base and never exceeds MaxCrawlDelay, and a Retry-After within
// the cap is used as given.
func TestBackoffBounded(t *testing.T) {
	if got := time.Second << (MaxRetries - 1); got > MaxCrawlDelay {
		t.Errorf("largest backoff %v exceeds MaxCrawlDelay %v", got, MaxCrawlDelay)
	}
	if d, ok := retryAfter("30", time.Now()); !ok || d != MaxCrawlDelay {
		t.Errorf("retryAfter(30) = %v, %v; want the cap exactly, honoured", d, ok)
	}
}

func TestHostileRedirects(t *testing.T) {
	w := newVWeb(t)
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == "/ping":
			http.Redirect(rw, r, "/pong", http.StatusFound)
		case p == "/pong":
			http.Redirect(rw, r, "/ping", http.StatusFound)
		case p == "/self":
			http.Redirect(rw, r, "/self", http.StatusMovedPermanently)
		case strings.HasPrefix(p, "/chain/"): // a chain of 12 distinct hops, then a page
			n, _ := strconv.Atoi(strings.TrimPrefix(p, "/chain/"))
			if n >= MaxRedirects+2 {
				fmt.Fprint(rw, page("end of chain"))
				return
			}
			http.Redirect(rw, r, fmt.Sprintf("/chain/%d", n+1), http.StatusFound)
		case p == "/needs-cookie": // adds a session id, then wants its cookie back
			if r.URL.Query().Get("PHPSESSID") == "" {
				http.Redirect(rw, r, "/needs-cookie?PHPSESSID=4f9a1c", http.StatusFound)
				return
			}
			http.Redirect(rw, r, "/needs-cookie", http.StatusFound)
		case p == "/file":
			http.Redirect(rw, r, "file:///etc/passwd", http.StatusFound)
		case p == "/ftp":
			http.Redirect(rw, r, "ftp://a.test/pub/", http.StatusFound)
		case p == "/gopher":
			http.Redirect(rw, r, "gopher://a.test/", http.StatusFound)
		default:
			http.NotFound(rw, r)
		}
	}))
	store := crawlertest.NewMemStore()
	cfg := w.config()
	cfg.IgnoreRobots = true
	start := time.Now()
	crawl(t, cfg, store, "http://a.test/ping", "http://a.test/self", "http://a.test/chain/0",
		"http://a.test/file", "http://a.test/ftp", "http://a.test/gopher", "http://a.test/needs-cookie")
	within(t, start, 5*time.Second)
	wantFailed(t, store, "http://a.test/ping", crawlstore.KindRedirect, "redirect loop back to http://a.test/ping")
	wantFailed(t, store, "http://a.test/self", crawlstore.KindRedirect, "redirect loop")
	wantFailed(t, store, "http://a.test/chain/0", crawlstore.KindRedirect, "more than 10 redirects")
	wantFailed(t, store, "http://a.test/file", crawlstore.KindRedirect, "redirect to a file: URL")
	wantFailed(t, store, "http://a.test/ftp", crawlstore.KindRedirect, "redirect to a ftp: URL")
	wantFailed(t, store, "http://a.test/gopher", crawlstore.KindRedirect, "redirect to a gopher: URL")
	wantFailed(t, store, "http://a.test/needs-cookie", crawlstore.KindRedirect, "redirect loop")
	want := 2 + 1 + (MaxRedirects + 1) + 3 + 2
	if got := len(w.paths("a.test")); got != want {
		t.Errorf("requests = %d, want %d: each loop stops when it comes back, the chain after %d hops, bad schemes never leave", got, want, MaxRedirects)
	}
	if n := len(w.hitsOf("")); n != 0 {
		t.Errorf("%d requests without a host (file: or ftp: reached the proxy)", n)
	}
}

func TestHostileBodies(t *testing.T) {
	zeros := bytes.Repeat(zeroMember, 1) // a 1 MiB gzip member, ~1 KiB on the wire
	w := newVWeb(t)
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/endless": // a link first, then bytes until the client hangs up
			rw.Header().Set("Content-Type", "text/html")
			fmt.Fprint(rw, `<html><body><a href="/after">after</a>`)
			chunk := bytes.Repeat([]byte("<p>junk</p>"), 1000)
			for {
				if _, err := rw.Write(chunk); err != nil {
					return
				}
			}
		case "/bomb": // 1 GiB of zeros after a link, in 1 MiB of gzip
			rw.Header().Set("Content-Type", "text/html")
			rw.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(rw)
			zw.Write([]byte(`<html><body><a href="/after-bomb">after</a>`))
			zw.Close()
			for range 1024 {
				if _, err := rw.Write(zeros); err != nil {
					return
				}
			}
		default:
			fmt.Fprint(rw, page("small"))
		}
	}))
	store := crawlertest.NewMemStore()
	cfg := w.config()
	cfg.IgnoreRobots = true
	cfg.MaxBody = 64 << 10
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	crawl(t, cfg, store, "http://a.test/endless", "http://a.test/bomb")
	within(t, start, 10*time.Second)
	runtime.ReadMemStats(&after)
	for _, u := range []string{"http://a.test/endless", "http://a.test/bomb"} {
		row := wantDone(t, store, u)
		if !row.Truncated || len(row.Versions) != 1 || len(row.Versions[0].Body) != int(cfg.MaxBody) || row.Fetch.Status != 200 {
			t.Errorf("%s: truncated %v, %d versions; want truncated, one body of exactly MaxBody bytes", u, row.Truncated, len(row.Versions))
		}
	}
	wantDone(t, store, "http://a.test/after")
	wantDone(t, store, "http://a.test/after-bomb")
	// An endless body and a 1 GiB bomb cost a few MaxBody buffers, not
	// their size. The ceiling is generous (test server included).
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("crawl allocated %d MiB, want under 64 MiB", alloc>>20)
	}
}

func TestHostileContentTypes(t *testing.T) {
	htmlBody := `<html><body><a href="/linked">linked</a></body></html>`
	binary := make([]byte, 4096)
	rng := mrand.New(mrand.NewPCG(7, 7))
	for i := range binary {
		binary[i] = byte(rng.UintN(256))
	}
	copy(binary[100:], "\x00\x00<a href=\"/from-binary\">bin\x00ary</a>\x00")
	png := append([]byte("\x89PNG\r\n\x1a\n"), binary[:64]...)
	types := map[string]struct {
		ctype string // "-" for no header at all
		body  []byte
	}{
		"/untyped":      {"-", []byte(htmlBody)},
		"/unknown":      {"unknown/unknown", []byte(htmlBody)},
		"/plain":        {"text/plain", []byte(htmlBody)},
		"/binary":       {"text/html", binary},
		"/png":          {"-", png},
		"/malformed":    {"text/html; charset", []byte(htmlBody)},
		"/bad-charset":  {"text/html; charset=x-no-such-thing", []byte(htmlBody)},
		"/octet-stream": {"application/octet-stream", []byte(htmlBody)},
	}
	w := newVWeb(t)
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		tc, ok := types[r.URL.Path]
		if !ok {
			fmt.Fprint(rw, page("x"))
			return
		}
		if tc.ctype == "-" {
			rw.Header()["Content-Type"] = nil // net/http would sniff one for us
		} else {
			rw.Header().Set("Content-Type", tc.ctype)
		}
		rw.Write(tc.body)
	}))
	tests := []struct {
		path, mediaType string
		stored          bool // body kept as content and links followed (HTML)
	}{
		{"/untyped", "text/html", true},
		{"/unknown", "text/html", true},
		{"/plain", "text/plain", false},
		{"/binary", "text/html", true},
		{"/png", "image/png", false},
		{"/malformed", "text/html", true},
		{"/bad-charset", "text/html", true},
		{"/octet-stream", "application/octet-stream", false},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			store := crawlertest.NewMemStore()
			cfg := w.config()
			cfg.IgnoreRobots = true
			crawl(t, cfg, store, "http://a.test"+tc.path)
			row := wantDone(t, store, "http://a.test"+tc.path)
			if row.MediaType != tc.mediaType {
				t.Errorf("media type = %q, want %q", row.MediaType, tc.mediaType)
			}
			if got := len(row.Versions) == 1; got != tc.stored {
				t.Fatalf("body stored = %v, want %v", got, tc.stored)
			}
			if tc.stored && !bytes.Equal(row.Versions[0].Body, types[tc.path].body) {
				t.Errorf("body changed on the way: %.40q", row.Versions[0].Body)
			}
			link := "http://a.test/linked"
			if tc.path == "/binary" {
				link = "http://a.test/from-binary"
			}
			l, _ := store.Row(link)
			if followed := l.State == crawlstore.StateDone; followed != tc.stored {
				t.Errorf("link %s followed = %v, want %v", link, followed, tc.stored)
			}
			if tc.path == "/binary" && l.Anchors["http://a.test/binary"] != "binary" {
				t.Errorf("anchor text in a binary page = %q, want %q (NULs dropped)", l.Anchors["http://a.test/binary"], "binary")
			}
		})
	}
}

func TestHostileMalformedHTML(t *testing.T) {
	body := "<html><body><div<<<>>><p>unclosed <b>bold <i>italic" +
		"<a href=\"/one\">One<a href=\"/two\">Two</a>" +
		"<a href='/nul\x00path'>N\x00U\x00L</a>" +
		"<table><tr><td><a href=/three>Three</td></tr>" +
		"</p></div></span></html></html>" +
		"<a href=\"/four\" href=\"/ignored\">Four</a>" +
		"\x00\x01\x02\xff\xfe garbage <<<a href=/five>Five</a>" +
		"<a href=\"/unterminated>never closed</a><a href=\"/six\">Six</a>" +
		"<!-- an unclosed comment <a href=\"/hidden\">hidden</a>"
	w := newVWeb(t)
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/" {
			rw.Write([]byte(body))
			return
		}
		fmt.Fprint(rw, page("leaf"))
	}))
	var links []crawlstore.Link
	store := crawlertest.NewMemStore()
	cfg := w.config()
	cfg.Depth = 0
	cfg.IgnoreRobots = true
	crawl(t, cfg, &spyStore{Store: store, pages: func(p *crawlstore.Page) { links = p.Links }}, "http://a.test/")
	row := wantDone(t, store, "http://a.test/")
	if len(row.Versions) != 1 || row.Versions[0].Body == nil || !bytes.Equal(row.Versions[0].Body, []byte(body)) {
		t.Errorf("body not stored exactly as fetched")
	}
	got := map[string]string{}
	for _, l := range links {
		got[strings.TrimPrefix(l.URL, "http://a.test")] = l.Text
	}
	want := map[string]string{
		"/one": "One", "/two": "Two", "/three": "Three", "/four": "Four", "/five": "Five",
		"/nul%EF%BF%BDpath": "NUL", // NUL is U+FFFD in an attribute, dropped from text
	}
	for p, text := range want {
		if got[p] != text {
			t.Errorf("link %s text = %q, want %q (all links: %q)", p, got[p], text, got)
		}
	}
	for _, p := range []string{"/hidden", "/ignored"} {
		if _, ok := got[p]; ok {
			t.Errorf("link %s found, want none (inside a comment / a repeated attribute)", p)
		}
	}
}

func TestHostileManyLinks(t *testing.T) {
	const n = 100_000
	var b strings.Builder
	b.WriteString("<!doctype html><html><body>")
	for i := range n {
		fmt.Fprintf(&b, "<a href=\"/l/%d\">link number %d</a>\n", i, i)
	}
	b.WriteString("</body></html>")
	body := []byte(b.String())
	w := newVWeb(t)
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/" {
			rw.Write(body)
			return
		}
		fmt.Fprint(rw, page("leaf"))
	}))
	var links, discovered int
	store := crawlertest.NewMemStore()
	cfg := w.config()
	cfg.Depth = 0
	cfg.IgnoreRobots = true
	cfg.MaxLinks = 1000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	crawl(t, cfg, &spyStore{Store: store, pages: func(p *crawlstore.Page) { links, discovered = len(p.Links), len(p.Discovered) }}, "http://a.test/")
	runtime.ReadMemStats(&after)
	if links != cfg.MaxLinks || discovered != 0 {
		t.Errorf("links kept = %d (discovered %d), want %d (0 beyond the depth)", links, discovered, cfg.MaxLinks)
	}
	if keys := len(store.Keys()); keys != cfg.MaxLinks+1 {
		t.Errorf("rows = %d, want %d (the page and one anchor row per kept link)", keys, cfg.MaxLinks+1)
	}
	// The page is ~3 MiB: the crawl reads it once and keeps 1,000 links,
	// not 100,000 (it collects up to 4 x DefaultMaxLinks raw links to count
	// the distinct ones). The ceiling is generous, far below what keeping
	// every link (and its row) would cost.
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("page of %d KiB: crawl allocated %d MiB", len(body)>>10, alloc>>20)
	if alloc > 96<<20 {
		t.Errorf("crawl allocated %d MiB for a %d KiB page, want under 96 MiB", alloc>>20, len(body)>>10)
	}
}

func TestHostileCredentials(t *testing.T) {
	w := newVWeb(t)
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		http.SetCookie(rw, &http.Cookie{Name: "session", Value: "secret", Path: "/"})
		switch r.URL.Path {
		case "/start": // a cookie, then off to another host, with user info in the Location
			http.Redirect(rw, r, "http://mallory:pw@b.test/land", http.StatusFound)
		case "/again":
			http.Redirect(rw, r, "/start2", http.StatusFound)
		default:
			fmt.Fprint(rw, page("a"))
		}
	}))
	w.handle("b.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		fmt.Fprint(rw, page(`<a href="http://a.test/again">again</a>`))
	}))
	store := crawlertest.NewMemStore()
	cfg := w.config()
	cfg.IgnoreRobots = true
	cfg.AllowDomains = []string{"a.test", "b.test"}
	crawl(t, cfg, store, "http://alice:secret@a.test/start")
	wantDone(t, store, "http://b.test/land")
	for _, host := range []string{"a.test", "b.test"} {
		hits := w.hitsOf(host)
		if len(hits) == 0 {
			t.Errorf("%s got no request", host)
		}
		for _, h := range hits {
			for _, k := range []string{"Authorization", "Cookie", "Proxy-Authorization"} {
				if v := h.Header.Get(k); v != "" {
					t.Errorf("%s%s sent %s: %q, want none", host, h.Path, k, v)
				}
			}
		}
	}
}

func TestOnlyHTTPSchemes(t *testing.T) {
	w := newVWeb(t)
	for _, seed := range []string{"ftp://a.test/", "file:///etc/passwd", "gopher://a.test/", "javascript:alert(1)"} {
		c, err := New(w.config(), crawlertest.NewMemStore())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Run(t.Context(), []string{seed}); err == nil || !strings.Contains(err.Error(), "bad seed") {
			t.Errorf("Run(%q) error = %v, want ErrSeed", seed, err)
		}
		c.Close()
	}
	if _, err := crawlertest.NewMemStore().Enqueue(t.Context(), []crawlstore.Entry{{URL: "ftp://a.test/"}}, crawlstore.Requeue{}); err == nil {
		t.Error("MemStore.Enqueue(ftp://) succeeded, want an error: nothing but http(s) enters the frontier")
	}
	if n := len(w.hitsOf("a.test")); n != 0 {
		t.Errorf("%d requests reached a.test", n)
	}
}

// TestTimeoutExcludesPoliteness: Config.Timeout bounds a request on the
// wire, not the wait for the host's turn. A Crawl-delay longer than the
// timeout must not fail the first page after robots.txt, nor a redirect
// hop to the same host.
func TestTimeoutExcludesPoliteness(t *testing.T) {
	w := newVWeb(t)
	w.site("a.test", "User-agent: *\nCrawl-delay: 0.4\n", map[string]string{
		"/":  page(`<a href="/r">r</a>`),
		"/t": page("target"),
	})
	base := w.hosts["a.test"]
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/r" {
			http.Redirect(rw, r, "/t", http.StatusFound)
			return
		}
		base.ServeHTTP(rw, r)
	}))
	store := crawlertest.NewMemStore()
	cfg := w.config()
	cfg.Timeout = 250 * time.Millisecond
	st := crawl(t, cfg, store, "http://a.test/")
	if st.Errors != 0 || st.Fetched != 2 {
		t.Errorf("stats = %+v, want 2 pages fetched and no error", st)
	}
	wantDone(t, store, "http://a.test/")
	wantDone(t, store, "http://a.test/t")
	checkGaps(t, w, "a.test", 400*time.Millisecond)
}
