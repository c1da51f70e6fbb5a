package crawler

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
)

// TestCollyOverrides lists, one row each, the colly behaviours this
// package overrides and the test that proves the override. The rows
// whose proof lives elsewhere name that test; it must exist.
func TestCollyOverrides(t *testing.T) {
	tests := []struct {
		behaviour string
		proof     string
	}{
		{"ignores robots.txt by default", "TestRobots"},
		{"never reads Crawl-delay", "TestCrawlDelay"},
		{"fetches robots.txt outside any rate limit", "TestPolitenessDelay"},
		{"restarts depth at 1 on every Visit", "TestResume"},
		{"rewrites bodies to UTF-8", "TestRawBytesAndCharsets"},
		{"cuts bodies at MaxBodySize silently", "TestTruncation"},
		{"gunzips without a bound", "TestTruncation"},
		{"reports a 304 as an error", "TestNotModifiedAndRecrawl"},
		{"SetProxy turns keep-alives off", "TestKeepAliveThroughProxy"},
		{"proxy settings skip loopback targets", "TestProxyForLoopback"},
		{"cookie jar without a public-suffix list", "TestNoCookies"},
		{"COLLY_* environment variables override options", "TestCollyEnvIgnored"},
		{"MaxRequests can overshoot under async", "TestMaxPages"},
		{"redirects unchecked against robots, any count up to Go's 10", "TestRedirects"},
		{"one client Timeout over the whole fetch, politeness waits included", "TestTimeoutExcludesPoliteness"},
		{"redirects forward user info from a Location as Authorization", "TestHostileCredentials"},
	}
	for _, tc := range tests {
		t.Run(tc.behaviour, func(t *testing.T) {
			if !testExists(tc.proof) {
				t.Errorf("override %q names %s, which does not exist", tc.behaviour, tc.proof)
			}
		})
	}
}

// testExists reports whether a test function of that name is declared in
// this package's test files, so the table cannot name a test that is gone.
func testExists(name string) bool {
	files, _ := filepath.Glob("*_test.go")
	fset := token.NewFileSet()
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == name {
				return true
			}
		}
	}
	return false
}

func TestCollyEnvIgnored(t *testing.T) {
	for k, v := range map[string]string{
		"COLLY_ALLOWED_DOMAINS":           "other.test",
		"COLLY_CACHE_DIR":                 t.TempDir(),
		"COLLY_DETECT_CHARSET":            "y",
		"COLLY_DISALLOWED_DOMAINS":        "a.test",
		"COLLY_IGNORE_ROBOTSTXT":          "n",
		"COLLY_FOLLOW_REDIRECTS":          "n",
		"COLLY_MAX_BODY_SIZE":             "10",
		"COLLY_MAX_DEPTH":                 "1",
		"COLLY_MAX_REQUESTS":              "1",
		"COLLY_PARSE_HTTP_ERROR_RESPONSE": "n",
		"COLLY_USER_AGENT":                "evil",
	} {
		t.Setenv(k, v)
	}
	w := newVWeb(t)
	w.site("a.test", "User-agent: *\nDisallow: /no\n", map[string]string{
		"/":    page(`<a href="/r">r</a> <a href="/no">no</a>`),
		"/new": page("Caf\u00e9 " + strings.Repeat("long ", 10) + `<a href="/404">x</a>`),
	})
	base := w.hosts["a.test"]
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/r" {
			http.Redirect(rw, r, "/new", http.StatusFound)
			return
		}
		base.ServeHTTP(rw, r)
	}))
	store := crawlertest.NewMemStore()
	st := crawl(t, w.config(), store, "http://a.test/")
	if diff := cmp.Diff([]string{"/robots.txt", "/", "/r", "/new", "/404"}, pathsAll(w, "a.test")); diff != "" {
		t.Errorf("requests with COLLY_* set (-want +got):\n%s", diff)
	}
	for _, h := range w.hitsOf("a.test") {
		if ua := h.Header.Get("User-Agent"); ua != DefaultUserAgent {
			t.Errorf("%s sent with User-Agent %q, want %q", h.Path, ua, DefaultUserAgent)
		}
	}
	if st.Fetched != 2 || st.ErrorsByKind[crawlstore.KindHTTP] != 1 || st.ErrorsByKind[crawlstore.KindRobots] != 1 {
		t.Errorf("stats = %+v, want 2 fetched, 1 http error, 1 robots", st)
	}
	if row, _ := store.Row("http://a.test/new"); len(row.Versions) != 1 || !strings.Contains(string(row.Versions[0].Body), "Café long long") {
		t.Errorf("body of /new cut or converted: %+v", row.Versions)
	}
}

// pathsAll returns every path requested on host, robots.txt included.
func pathsAll(w *vweb, host string) []string {
	var out []string
	for _, h := range w.hitsOf(host) {
		out = append(out, h.Path)
	}
	return out
}

func TestKeepAliveThroughProxy(t *testing.T) {
	w := newVWeb(t)
	pages := map[string]string{}
	var links strings.Builder
	for i := range 30 {
		fmt.Fprintf(&links, `<a href="/%d">x</a>`, i)
		pages[fmt.Sprintf("/%d", i)] = page("leaf")
	}
	pages["/"] = page(links.String())
	w.site("a.test", "", pages)
	cfg := w.config()
	cfg.Concurrency = 2
	cfg.PerHost = 2
	crawl(t, cfg, crawlertest.NewMemStore(), "http://a.test/")
	if n := len(w.hitsOf("a.test")); n != 32 {
		t.Fatalf("requests = %d, want 32", n)
	}
	if n := w.conns.Load(); n > 4 {
		t.Errorf("32 requests through the proxy opened %d connections, want <= 4 (keep-alive)", n)
	}
}

func TestProxyForLoopback(t *testing.T) {
	w := newVWeb(t)
	// Nothing listens on 127.0.0.1:1; only the proxy can answer for it.
	w.site("127.0.0.1:1", "", map[string]string{"/": page("via proxy")})
	store := crawlertest.NewMemStore()
	st := crawl(t, w.config(), store, "http://127.0.0.1:1/")
	if st.Fetched != 1 {
		t.Errorf("loopback target through Config.Proxy: Fetched = %d, want 1 (stats %+v)", st.Fetched, st)
	}
}

func TestNoCookies(t *testing.T) {
	w := newVWeb(t)
	var cookies []string
	w.handle("a.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		cookies = append(cookies, r.Header.Get("Cookie"))
		http.SetCookie(rw, &http.Cookie{Name: "session", Value: "secret", Path: "/"})
		http.SetCookie(rw, &http.Cookie{Name: "wide", Value: "x", Domain: "test", Path: "/"})
		switch r.URL.Path {
		case "/":
			fmt.Fprint(rw, page(`<a href="/2">2</a> <a href="http://b.test/">b</a>`))
		default:
			fmt.Fprint(rw, page("x"))
		}
	}))
	w.handle("b.test", http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		cookies = append(cookies, r.Header.Get("Cookie"))
		fmt.Fprint(rw, page("b"))
	}))
	cfg := w.config()
	cfg.AllowDomains = []string{"a.test", "b.test"}
	cfg.Concurrency = 1
	crawl(t, cfg, crawlertest.NewMemStore(), "http://a.test/")
	if len(cookies) < 4 {
		t.Fatalf("requests = %d, want >= 4", len(cookies))
	}
	for i, c := range cookies {
		if c != "" {
			t.Errorf("request %d sent Cookie %q, want none", i, c)
		}
	}
}
