package crawler

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/urlkey"
)

// Crawler traps (issue 7): an endless calendar and session ids in URLs,
// and the rules behind their defences (see traps.go and doc.go).

var urlkeyOf = urlkey.KeyOf

func TestHostileSpiderTraps(t *testing.T) {
	w := newVWeb(t)
	// An endless calendar by query: each month links to the next and the
	// previous one. And by path: /cal/2026/12 -> /cal/2027/01 ...
	w.handle("cal.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/cal" {
			m, _ := strconv.Atoi(r.URL.Query().Get("month"))
			fmt.Fprint(rw, page(fmt.Sprintf(`<a href="/cal?month=%d">prev</a><a href="/cal?month=%d">next</a>`, m-1, m+1)))
			return
		}
		var y, m int
		fmt.Sscanf(r.URL.Path, "/cal/%d/%d", &y, &m)
		ny, nm := y, m+1
		if nm > 12 {
			ny, nm = y+1, 1
		}
		fmt.Fprint(rw, page(fmt.Sprintf(`<a href="/cal/%d/%02d">next</a>`, ny, nm)))
	}))
	// Session ids: every page links to itself and to two others with a
	// fresh random id in the URL, as a query or a path parameter.
	w.handle("sid.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		id := func() string {
			var b [16]byte
			rand.Read(b[:])
			return hex.EncodeToString(b[:])
		}
		rw.Header().Set("Content-Type", "text/html")
		fmt.Fprint(rw, page(fmt.Sprintf(`<a href="%s?sid=%s">self</a><a href="/a?PHPSESSID=%s&amp;x=1">a</a><a href="/b;jsessionid=%s">b</a>`,
			r.URL.Path, id(), id(), id())))
	}))
	t.Run("calendar within depth", func(t *testing.T) {
		store := crawlertest.NewMemStore()
		cfg := w.config()
		cfg.Depth = 5
		cfg.IgnoreRobots = true
		st := crawl(t, cfg, store, "http://cal.test/cal?month=0")
		if st.Fetched != 11 {
			t.Errorf("Fetched = %d, want 11 (months -5..5)", st.Fetched)
		}
	})
	for _, seed := range []string{"http://cal.test/cal?month=0", "http://cal.test/cal/2026/12"} {
		t.Run("calendar detected "+seed, func(t *testing.T) {
			store := crawlertest.NewMemStore()
			cfg := w.config()
			cfg.Depth = 100_000 // no help from the depth limit
			cfg.IgnoreRobots = true
			cfg.Concurrency, cfg.PerHost = 4, 4
			start := time.Now()
			st := crawl(t, cfg, store, seed)
			within(t, start, 20*time.Second)
			// The seed, then MaxPatternChain hops in each direction the
			// calendar offers (next only for the path form).
			max := int64(1 + 2*MaxPatternChain)
			if st.Fetched < MaxPatternChain || st.Fetched > max || st.Traps == 0 {
				t.Errorf("stats = %+v, want %d..%d fetched and traps counted", st, MaxPatternChain, max)
			}
		})
	}
	t.Run("session ids", func(t *testing.T) {
		store := crawlertest.NewMemStore()
		cfg := w.config()
		cfg.Depth = 100_000
		cfg.IgnoreRobots = true
		start := time.Now()
		st := crawl(t, cfg, store, "http://sid.test/")
		within(t, start, 5*time.Second)
		// /, /a?x=1, /b and /a (the self link of /a?x=1 has no x=1):
		// each fetched once, whatever session id its links carried.
		got := w.paths("sid.test")
		keys := map[string]bool{}
		for _, p := range got {
			u, _ := parseCanonical("http://sid.test" + p)
			keys[frontierKey(u)] = true
		}
		if st.Fetched != 4 || len(got) != 4 || len(keys) != 4 {
			t.Errorf("fetched %d pages (requests %q), want 4 distinct pages once each", st.Fetched, got)
		}
	})
}

func TestFrontierKeySessions(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://a.test/p?PHPSESSID=abc", "http://a.test/p"},
		{"http://a.test/p?x=1&jsessionid=abc&y=2", "http://a.test/p?x=1&y=2"},
		{"http://a.test/p;jsessionid=0123ABC?x=1", "http://a.test/p?x=1"},
		{"http://a.test/p;JSESSIONID=0123ABC;v=2/q", "http://a.test/p;v=2/q"},
		{"http://a.test/p;jsessionid=1;jsessionid=2/q", "http://a.test/p/q"},
		{"http://a.test/p?ASPSESSIONIDQQ=ZZZ", "http://a.test/p"},
		{"http://a.test/p?sid=0123456789abcdef0123", "http://a.test/p"},
		{"http://a.test/article.pl?sid=06/09/12/1234567", "http://a.test/article.pl?sid=06/09/12/1234567"}, // a story id
		{"http://a.test/p?sid=42", "http://a.test/p?sid=42"},
		{"http://a.test/p?session=1", "http://a.test/p?session=1"},
	}
	for _, tc := range tests {
		u, err := parseCanonical(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := parseCanonical(tc.want)
		if got, want := frontierKey(u), frontierKey(w); got != want {
			t.Errorf("frontierKey(%q) = %q, want %q", tc.in, got, want)
		}
	}
}

func TestURLPattern(t *testing.T) {
	tests := []struct{ a, b string }{
		{"http://a.test/cal?month=1", "http://a.test/cal?month=200"},
		{"http://a.test/cal/2026/12", "http://a.test/cal/2027/01"},
		{"http://a.test/list?page=2&sort=asc", "http://a.test/list?sort=desc&page=3"},
		{"http://a.test/cal?2026-12", "http://a.test/cal?2027-01"},
	}
	for _, tc := range tests {
		a, _ := parseCanonical(tc.a)
		b, _ := parseCanonical(tc.b)
		if urlPattern(a) != urlPattern(b) {
			t.Errorf("urlPattern(%q) = %q, urlPattern(%q) = %q; want equal", tc.a, urlPattern(a), tc.b, urlPattern(b))
		}
	}
	differ := []struct{ a, b string }{
		{"http://a.test/2026/11/30/summit.html", "http://a.test/2026/11/29/chips.html"},
		{"http://a.test/cal?month=1", "http://a.test/cal?year=1"},
		{"http://a.test/p/1", "http://b.test/p/1"},
	}
	for _, tc := range differ {
		a, _ := parseCanonical(tc.a)
		b, _ := parseCanonical(tc.b)
		if urlPattern(a) == urlPattern(b) {
			t.Errorf("urlPattern(%q) = urlPattern(%q) = %q; want different", tc.a, tc.b, urlPattern(a))
		}
	}
}

// FuzzFrontierKey feeds arbitrary URLs through the trap defences: no
// panic; removing session ids is idempotent and yields a URL urlkey still
// accepts; a URL without session parameters is its own frontier key; the
// pattern ignores digit values and query values.
func FuzzFrontierKey(f *testing.F) {
	f.Add("http://a.test/p;jsessionid=ABC/q?PHPSESSID=1&x=2")
	f.Add("http://a.test/cal?month=12&sid=0123456789abcdef0")
	f.Add("http://a.test/%3Bjsessionid=x?&&=&sid")
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := parseCanonical(raw)
		if err != nil {
			return
		}
		s := withoutSession(u)
		if _, err := parseCanonical(s.String()); err != nil {
			t.Fatalf("withoutSession(%q) = %q, which urlkey refuses: %v", u, s, err)
		}
		if again := withoutSession(s); again.String() != s.String() {
			t.Fatalf("withoutSession not idempotent: %q -> %q -> %q", u, s, again)
		}
		if s == u && frontierKey(u) != urlkeyOf(u) {
			t.Fatalf("frontierKey(%q) = %q without session parameters, want the row key %q", u, frontierKey(u), urlkeyOf(u))
		}
		if p := urlPattern(u); strings.ContainsAny(strings.TrimPrefix(p, u.Host), "123456789") {
			t.Fatalf("urlPattern(%q) = %q keeps digits", u, p)
		}
	})
}
