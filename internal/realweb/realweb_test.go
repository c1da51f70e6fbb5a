package realweb

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// small is a web quick to walk whole.
var smallConfig = Config{Seed: 7, Hosts: 3, Pages: 20, Links: 6, IndexLinks: 200}

func startWeb(t *testing.T, cfg Config) *Web {
	t.Helper()
	t.Setenv("HTTP_PROXY", "")
	t.Setenv("HTTPS_PROXY", "")
	w, err := Start(cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(w.Close)
	return w
}

func get(t *testing.T, c *http.Client, u string) (*http.Response, []byte, error) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

// TestOrigins checks each origin behaves as doc.go says, seen by Go's own
// client through the proxy, trusting the test CA.
func TestOrigins(t *testing.T) {
	w := startWeb(t, smallConfig)
	c := w.Client()
	defer c.CloseIdleConnections()
	tests := []struct {
		url    string
		status int                  // when the client gets a response
		check  func(err error) bool // when it gets an error
		want   string               // what check looks for
		beh    Behaviour
	}{
		{url: "http://www.real.test/", status: 200, beh: Serves},
		{url: "https://www.real.test/", status: 200, beh: Serves},
		{url: "https://h001.real.test/", status: 200, beh: Serves},
		{url: "https://secure.real.test/s1.html", status: 200, beh: Serves},
		{url: "http://secure.real.test/s1.html", status: 502, beh: Closed},
		{url: "http://plain.real.test/p1.html", status: 200, beh: Serves},
		{url: "https://plain.real.test/p1.html", check: contains("Bad Gateway"), want: "a 502 to CONNECT", beh: Closed},
		{url: "https://refused.real.test/x0.html", check: contains("Forbidden"), want: "a 403 to CONNECT", beh: Refused},
		{url: "https://tls-alert.real.test/x0.html", check: contains("tls: handshake failure"), want: "a handshake_failure alert", beh: TLSAlert},
		{url: "https://tls-untrusted.real.test/x0.html", check: func(err error) bool {
			var ua x509.UnknownAuthorityError
			return errors.As(err, &ua)
		}, want: "x509.UnknownAuthorityError", beh: TLSUntrusted},
		{url: "https://reset.real.test/x0.html", check: isReset, want: "ECONNRESET", beh: Reset},
		{url: "http://reset-http.real.test/x0.html", check: isReset, want: "ECONNRESET", beh: Reset},
		{url: "https://www.real.test:8444/x0.html", check: contains("Bad Gateway"), want: "a 502 to CONNECT", beh: Closed},
		{url: "http://robots-down.real.test/robots.txt", check: isReset, want: "ECONNRESET", beh: RobotsReset},
		{url: "http://robots-down.real.test/r0.html", status: 200, beh: RobotsReset},
		{url: "http://nowhere.example/", status: 502, beh: Closed},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			if got := w.Behaviour(tc.url); got != tc.beh {
				t.Errorf("Behaviour(%q) = %v, want %v", tc.url, got, tc.beh)
			}
			resp, _, err := get(t, c, tc.url)
			switch {
			case tc.check != nil && err == nil:
				t.Fatalf("GET %s: status %d, want an error (%s)", tc.url, resp.StatusCode, tc.want)
			case tc.check != nil && !tc.check(err):
				t.Fatalf("GET %s: %v, want %s", tc.url, err, tc.want)
			case tc.check == nil && err != nil:
				t.Fatalf("GET %s: %v, want status %d", tc.url, err, tc.status)
			case tc.check == nil && resp.StatusCode != tc.status:
				t.Fatalf("GET %s: status %d, want %d", tc.url, resp.StatusCode, tc.status)
			}
		})
	}
	if n := w.Connects("https://refused.real.test"); n != 1 {
		t.Errorf("Connects(https://refused.real.test) = %d, want 1", n)
	}
}

func contains(s string) func(error) bool {
	return func(err error) bool { return strings.Contains(err.Error(), s) }
}

func isReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }

// TestRedirects checks each redirect goes where doc.go says.
func TestRedirects(t *testing.T) {
	w := startWeb(t, smallConfig)
	c := w.Client()
	defer c.CloseIdleConnections()
	tests := []struct{ url, want string }{
		{"http://redir.real.test/up/1.html", "301 https://redir.real.test/up/1.html"},
		{"https://redir.real.test/up/1.html", "200"},
		{"https://redir.real.test/down/2.html", "302 http://redir.real.test/down/2.html"},
		{"http://redir.real.test/down/2.html", "200"},
		{"http://redir.real.test/chain/0.html", "301 https://redir.real.test/hop/0.html"},
		{"https://redir.real.test/chain/0.html", "301 https://redir.real.test/hop/0.html"},
		{"https://redir.real.test/hop/0.html", "302 http://redir.real.test/last/0.html"},
		{"http://redir.real.test/last/0.html", "301 https://redir.real.test/final/0.html"},
		{"https://redir.real.test/final/0.html", "200"},
		{"http://redir.real.test/final/0.html", "200"},
		{"https://redir.real.test/to-refused.html", "302 https://refused.real.test/x0.html"},
		{"http://redir.real.test/up/9.html", "404"},
	}
	for _, tc := range tests {
		resp, _, err := get(t, c, tc.url)
		if err != nil {
			t.Errorf("GET %s: %v", tc.url, err)
			continue
		}
		got := fmt.Sprint(resp.StatusCode)
		if loc := resp.Header.Get("Location"); loc != "" {
			got += " " + loc
		}
		if got != tc.want {
			t.Errorf("GET %s = %q, want %q", tc.url, got, tc.want)
		}
		if w.Redirects()[tc.url] != "" && !strings.HasSuffix(tc.want, w.Redirects()[tc.url]) {
			t.Errorf("Redirects()[%q] = %q, want the Location of %q", tc.url, w.Redirects()[tc.url], tc.want)
		}
	}
}

// TestSchemesServeOneContent checks a path served by both schemes is the
// same bytes on each.
func TestSchemesServeOneContent(t *testing.T) {
	w := startWeb(t, smallConfig)
	c := w.Client()
	defer c.CloseIdleConnections()
	for _, p := range []string{"www.real.test/", "www.real.test/all.html", "h000.real.test/", "h002.real.test" + sitePath(13), "slow.real.test/robots.txt", "redir.real.test/final/1.html"} {
		_, a, err := get(t, c, "http://"+p)
		if err != nil {
			t.Fatal(err)
		}
		_, b, err := get(t, c, "https://"+p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) || len(a) == 0 {
			t.Errorf("http://%s and https://%s differ (%d and %d bytes)", p, p, len(a), len(b))
		}
	}
}

var hrefRE = regexp.MustCompile(`href="([^"]*)"`)

// bfs crawls the web with c as a simple, correct crawler does: breadth
// first from the seeds, robots.txt obeyed (unreachable: disallow all), one
// fetch per row key, a failing origin not tried again and its URLs tried
// by the other scheme, links read by readLinks. It returns the row keys of the 200 pages with the URL each was fetched
// by, and each failing origin's linked row keys not fetched.
func bfs(t *testing.T, w *Web, c *http.Client, readLinks func([]byte) pageLinks) (pages map[string]string, dead map[string]map[string]bool) {
	t.Helper()
	type robots struct {
		ok       bool
		disallow []string
	}
	robotsOf := map[string]robots{}
	allowed := func(u *url.URL) bool {
		o := u.Scheme + "://" + u.Host
		r, done := robotsOf[o]
		if !done {
			resp, body, err := get(t, c, o+"/robots.txt")
			switch {
			case err != nil || resp.StatusCode >= 500:
				r = robots{}
			case resp.StatusCode >= 400:
				r = robots{ok: true}
			default:
				r.ok = true
				for _, l := range strings.Split(string(body), "\n") {
					if p, ok := strings.CutPrefix(l, "Disallow: "); ok {
						r.disallow = append(r.disallow, p)
					}
				}
			}
			robotsOf[o] = r
		}
		if !r.ok {
			return false
		}
		for _, p := range r.disallow {
			if strings.HasPrefix(u.Path, p) {
				return false
			}
		}
		return true
	}
	pages, dead = map[string]string{}, map[string]map[string]bool{}
	answered := map[string]bool{} // any answer
	fetched := map[string]bool{}  // an answer not a redirect
	tried := map[string]bool{}
	var queue []*url.URL
	push := func(base *url.URL, ref string) {
		u, err := url.Parse(ref)
		if err != nil {
			return // as a crawler drops it
		}
		if base != nil {
			u = base.ResolveReference(u)
		}
		u.Fragment = ""
		if u.Path == "" {
			u.Path = "/"
		}
		if (u.Scheme != "http" && u.Scheme != "https") || !w.inWeb(hostPort(u.Scheme, u.Host)) || tried[u.String()] {
			return
		}
		tried[u.String()] = true
		queue = append(queue, u)
	}
	for _, s := range w.Seeds() {
		push(nil, s)
	}
	fallback := map[string]bool{} // URLs not linked, tried by the other scheme
	failed := map[string]bool{}   // origins
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		key := u.Host + u.Path
		if u.RawQuery != "" {
			key += "?" + u.RawQuery
		}
		if fetched[key] {
			// NB: fetched by the other scheme. A redirect does not
			// count: http -> https of one page is one fetch.
			continue
		}
		var resp *http.Response
		var body []byte
		var err error
		o := u.Scheme + "://" + u.Host
		if failed[o] {
			// A failure stays with its origin: not tried again.
			err = errors.New("origin failed before")
		} else if allowed(u) {
			resp, body, err = get(t, c, u.String())
		} else if r := robotsOf[o]; r.ok {
			continue // disallowed
		} else {
			err = errors.New("robots.txt unreachable")
		}
		if err == nil && resp.StatusCode == http.StatusBadGateway {
			err = errors.New("502")
		}
		if err != nil {
			failed[o] = true
			if !fallback[u.String()] {
				if dead[o] == nil {
					dead[o] = map[string]bool{}
				}
				dead[o][key] = true
			}
			other := *u
			other.Scheme = map[string]string{"http": "https", "https": "http"}[u.Scheme]
			if !tried[other.String()] {
				fallback[other.String()] = true
			}
			push(nil, other.String())
			continue
		}
		answered[key] = true
		switch {
		case resp.StatusCode == 200:
			fetched[key] = true
			if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
				continue
			}
			pages[key] = u.String()
			pl := readLinks(body)
			if pl.metaNoFollow {
				continue
			}
			base := u
			if pl.base != "" {
				b, err := url.Parse(pl.base)
				if err != nil {
					t.Fatalf("%s: bad base %q", u, pl.base)
				}
				base = u.ResolveReference(b)
			}
			for _, h := range pl.hrefs {
				push(base, h)
			}
		case resp.StatusCode/100 == 3:
			push(u, resp.Header.Get("Location"))
		case resp.StatusCode == 404:
			fetched[key] = true
		default:
			t.Errorf("GET %s: status %d", u, resp.StatusCode)
		}
	}
	for o, keys := range dead {
		for k := range keys {
			if answered[k] {
				delete(keys, k)
			}
		}
		if len(keys) == 0 {
			delete(dead, o)
		}
	}
	return pages, dead
}

// TestOracleMatchesBFS checks the oracle against what a simple crawler
// built on Go's client reaches, and the counters against what it did.
func TestOracleMatchesBFS(t *testing.T) {
	w := startWeb(t, smallConfig)
	c := w.Client()
	defer c.CloseIdleConnections()
	pages, dead := bfs(t, w, c, tokenLinks)

	var got []string
	for k := range pages {
		got = append(got, k)
	}
	slices.Sort(got)
	var want []string
	for _, u := range w.Reachable() {
		want = append(want, strings.SplitN(u, "://", 2)[1])
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("row keys reached by a BFS through the proxy (+) differ from Reachable (-):\n%s", diff)
	}
	deadCount := map[string]int{}
	for o, keys := range dead {
		deadCount[o] = len(keys)
	}
	if diff := cmp.Diff(w.UnreachableOrigins(), deadCount); diff != "" {
		t.Errorf("origins the BFS could not fetch from (+) differ from UnreachableOrigins (-):\n%s", diff)
	}
	for _, u := range w.Reachable() {
		key := strings.SplitN(u, "://", 2)[1]
		if n := w.Requests(u); n != 1 && pages[key] == u {
			t.Errorf("Requests(%q) = %d after one fetch", u, n)
		}
	}
	if twice := w.FetchedTwice(); len(twice) != 0 {
		t.Errorf("FetchedTwice() = %q after a crawl that fetched each key once", twice)
	}
	for _, u := range w.Disallowed() {
		if n := w.Requests(u); n != 0 {
			t.Errorf("Requests(%q) = %d for a page robots.txt disallows", u, n)
		}
	}
	for _, u := range w.ReachableByFallbackOnly() {
		if !slices.Contains(w.Reachable(), u) {
			t.Errorf("ReachableByFallbackOnly has %q, not in Reachable", u)
		}
	}
	if got, want := w.ReachableByFallbackOnly(), []string{"http://plain.real.test/only-https.html", "https://secure.real.test/only-http.html"}; !slices.Equal(got, want) {
		t.Errorf("ReachableByFallbackOnly() = %q, want %q", got, want)
	}
	if gap, n := w.MinGap(HostWWW); n < 2 || gap < 0 {
		t.Errorf("MinGap(%q) = %v, %d: want a gap over two requests or more", HostWWW, gap, n)
	}
	if w.TotalPageRequests() < int64(len(pages)) {
		t.Errorf("TotalPageRequests() = %d, fewer than the %d pages fetched", w.TotalPageRequests(), len(pages))
	}
}

// TestOracleShape pins the oracle's figures on the unreachable origins,
// which do not depend on the Config.
func TestOracleShape(t *testing.T) {
	w := startWeb(t, smallConfig)
	want := map[string]int{
		"https://refused.real.test":       deadPages,
		"https://tls-alert.real.test":     deadPages,
		"https://tls-untrusted.real.test": deadPages,
		"https://reset.real.test":         deadPages,
		"http://reset-http.real.test":     deadPages,
		"http://robots-down.real.test":    deadPages,
		ClosedPortOrigin:                  deadPages,
	}
	if diff := cmp.Diff(want, w.UnreachableOrigins()); diff != "" {
		t.Errorf("UnreachableOrigins() mismatch (-want +got):\n%s", diff)
	}
	reach := w.Reachable()
	if n, want := len(reach), smallConfig.Hosts*smallConfig.Pages+3+2*(smallPages+1)+slowPages+3*chains+1; n != want {
		t.Errorf("len(Reachable()) = %d, want %d", n, want)
	}
	for _, u := range []string{"https://www.real.test/", "https://secure.real.test/s5.html", "http://plain.real.test/p5.html", "https://redir.real.test/up/0.html", "http://redir.real.test/down/0.html", "https://redir.real.test/final/2.html"} {
		if !slices.Contains(reach, u) {
			t.Errorf("Reachable() lacks %s", u)
		}
	}
	if got := len(w.Disallowed()); got != deadPages {
		t.Errorf("len(Disallowed()) = %d, want %d", got, deadPages)
	}
}

// TestBigIndex checks the index page has IndexLinks links.
func TestBigIndex(t *testing.T) {
	w := startWeb(t, Config{Seed: 1, Hosts: 2, Pages: 10})
	c := w.Client()
	defer c.CloseIdleConnections()
	_, body, err := get(t, c, "https://www.real.test/all.html")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(hrefRE.FindAll(body, -1)); n != 3000 {
		t.Errorf("https://www.real.test/all.html has %d links, want 3000", n)
	}
}

// TestDeterministic checks two starts with one Config serve the same web,
// and another seed a different one.
func TestDeterministic(t *testing.T) {
	cfg := Config{Seed: 42, Hosts: 2, Pages: 15, Links: 8, IndexLinks: 100}
	bodies := func(cfg Config) (map[string]string, []string, map[string]int) {
		w := startWeb(t, cfg)
		c := w.Client()
		defer c.CloseIdleConnections()
		out := map[string]string{}
		for _, u := range w.Reachable() {
			_, b, err := get(t, c, u)
			if err != nil {
				t.Fatal(err)
			}
			out[u] = string(b)
		}
		return out, w.Reachable(), w.UnreachableOrigins()
	}
	a, ra, ua := bodies(cfg)
	b, rb, ub := bodies(cfg)
	if !cmp.Equal(ra, rb) || !cmp.Equal(ua, ub) {
		t.Errorf("two starts of one Config have different oracles")
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two starts of one Config serve different pages:\n%s", diff)
	}
	cfg.Seed++
	if c, _, _ := bodies(cfg); cmp.Equal(a, c) {
		t.Errorf("seeds %d and %d serve the same pages", cfg.Seed-1, cfg.Seed)
	}
}

// TestCACert checks the written CA certificate is the one that signs the
// web's certificates.
func TestCACert(t *testing.T) {
	w := startWeb(t, smallConfig)
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := w.WriteCACert(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != "CERTIFICATE" {
		t.Fatalf("%s holds no PEM certificate", path)
	}
	ca, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !ca.IsCA || ca.PublicKeyAlgorithm != x509.ECDSA {
		t.Errorf("CA certificate: IsCA %v, key %v; want a CA with an ECDSA key", ca.IsCA, ca.PublicKeyAlgorithm)
	}
	leaf, err := w.ca.leaf(HostSecure)
	if err != nil {
		t.Fatal(err)
	}
	lc, _ := x509.ParseCertificate(leaf.Certificate[0])
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	if _, err := lc.Verify(x509.VerifyOptions{Roots: pool, DNSName: HostSecure}); err != nil {
		t.Errorf("the certificate of %s does not verify against the written CA: %v", HostSecure, err)
	}
}

func TestRelative(t *testing.T) {
	tests := []struct{ from, to, want string }{
		{"/", "/", "./"},
		{"/", "/d1/p5.html", "d1/p5.html"},
		{"/d1/p5.html", "/d1/p9.html", "p9.html"},
		{"/d1/p5.html", "/d2/p6.html", "../d2/p6.html"},
		{"/d1/p5.html", "/", "../"},
	}
	for _, tc := range tests {
		base, _ := url.Parse("http://h" + tc.from)
		ref, _ := url.Parse(tc.want)
		if got := relative(tc.from, tc.to); got != tc.want || base.ResolveReference(ref).Path != tc.to {
			t.Errorf("relative(%q, %q) = %q, want %q", tc.from, tc.to, got, tc.want)
		}
	}
}

// TestCounters checks what the servers count: requests per URL over both
// schemes, pages answered twice, CONNECTs, and the gap between requests to
// one host name whatever their scheme.
func TestCounters(t *testing.T) {
	w := startWeb(t, smallConfig)
	c := w.Client()
	defer c.CloseIdleConnections()
	for _, u := range []string{
		"http://www.real.test/about.html",
		"https://www.real.test/about.html",
		"http://redir.real.test/up/0.html",
		"https://redir.real.test/up/0.html",
		"http://reset-http.real.test/x1.html",
		"https://www.real.test/robots.txt",
	} {
		get(t, c, u)
	}
	for u, want := range map[string]int{
		"http://www.real.test/about.html":      1,
		"https://www.real.test/about.html":     1,
		"https://www.real.test:443/about.html": 1,
		"http://redir.real.test/up/0.html":     1,
		"http://reset-http.real.test/x1.html":  2, // the client tries again on a new connection
		"https://www.real.test/robots.txt":     1,
		"http://www.real.test/robots.txt":      0,
	} {
		if got := w.Requests(u); got != want {
			t.Errorf("Requests(%q) = %d, want %d", u, got, want)
		}
	}
	// NB: once or twice: Go's client tries a GET again on a new
	// connection when a kept-alive one is reset.
	if got := w.Requests("http://reset-http.real.test/x1.html"); got < 1 || got > 2 {
		t.Errorf("Requests(http://reset-http.real.test/x1.html) = %d, want 1 or 2", got)
	}
	if got, want := w.FetchedTwice(), []string{"www.real.test/about.html"}; !slices.Equal(got, want) {
		t.Errorf("FetchedTwice() = %q, want %q (redir.real.test/up/0.html was a redirect, then a page)", got, want)
	}
	if got := w.TotalPageRequests(); got != 4 {
		t.Errorf("TotalPageRequests() = %d, want 4 (robots.txt and resets not counted)", got)
	}
	if gap, n := w.MinGap(HostWWW); n != 3 || gap < 0 {
		t.Errorf("MinGap(%q) = %v, %d; want a gap over 3 requests (http and https together)", HostWWW, gap, n)
	}
	if _, ok := w.MinGaps()[HostRedirect]; !ok {
		t.Errorf("MinGaps() = %v, lacks %s", w.MinGaps(), HostRedirect)
	}
	if n := w.Connects("https://www.real.test"); n < 1 {
		t.Errorf("Connects(https://www.real.test) = %d, want at least 1", n)
	}
}

// TestRobots checks the robots.txt files doc.go lists.
func TestRobots(t *testing.T) {
	w := startWeb(t, Config{Seed: 1, Hosts: 2, Pages: 4, CrawlDelay: 3})
	c := w.Client()
	defer c.CloseIdleConnections()
	tests := []struct {
		url, want string // want: body, or "404"
	}{
		{"http://www.real.test/robots.txt", "User-agent: *\nDisallow: /private/\n"},
		{"https://www.real.test/robots.txt", "User-agent: *\nDisallow: /private/\n"},
		{"https://slow.real.test/robots.txt", "User-agent: *\nCrawl-delay: 3\nDisallow:\n"},
		{"https://secure.real.test/robots.txt", "User-agent: *\nAllow: /\n"},
		{"http://h000.real.test/robots.txt", "404"},
		{"https://h001.real.test/robots.txt", "User-agent: *\nDisallow:\n"},
		{"http://redir.real.test/robots.txt", "404"},
	}
	for _, tc := range tests {
		resp, body, err := get(t, c, tc.url)
		if err != nil {
			t.Errorf("GET %s: %v", tc.url, err)
			continue
		}
		got := string(body)
		if resp.StatusCode == 404 {
			got = "404"
		}
		if got != tc.want {
			t.Errorf("GET %s = %q, want %q", tc.url, got, tc.want)
		}
	}
}

// TestCloseWithOpenTunnels checks Close returns while a client still holds
// kept-alive tunnels and proxy connections, and closes them.
func TestCloseWithOpenTunnels(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	w, err := Start(smallConfig)
	if err != nil {
		t.Fatal(err)
	}
	c := w.Client()
	defer c.CloseIdleConnections()
	for _, u := range []string{"https://www.real.test/", "https://h001.real.test/", "http://www.real.test/"} {
		if _, _, err := get(t, c, u); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if _, _, err := get(t, c, "https://www.real.test/"); err == nil {
		t.Errorf("GET through a closed web succeeded")
	}
}

// TestStaticPaths checks ServeDirs maps URLs to files and nothing outside
// its directory.
func TestStaticPaths(t *testing.T) {
	t.Setenv("HTTP_PROXY", "")
	dir := t.TempDir()
	for name, body := range map[string]string{"index.html": "<a href=a/b.html>b</a>", "a/b.html": "<a href='../index.html'>up</a> <a href='https://docs.example.org/x'>x</a> <a href='https://www.example.org/y'>y</a>", "a/c..d.txt": "dots"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := ServeDirs(map[string]string{"http://docs.example.org/v1/": dir})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	c := w.Client()
	defer c.CloseIdleConnections()
	tests := []struct{ url, want string }{
		{"http://docs.example.org/v1/", "200 <a href=a/b.html>b</a>"},
		{"http://docs.example.org/v1", "301 http://docs.example.org/v1/"},
		{"http://docs.example.org/v1/a", "301 http://docs.example.org/v1/a/"},
		{"http://docs.example.org/v1/a/", "404"},
		{"http://docs.example.org/v1/a/c..d.txt", "200 dots"},
		{"http://docs.example.org/v1/../../etc/passwd", "404"},
		{"http://docs.example.org/v1/%2e%2e/%2e%2e/etc/passwd", "404"},
		{"http://other.example.org/v1/", "502"},
	}
	for _, tc := range tests {
		resp, body, err := get(t, c, tc.url)
		if err != nil {
			t.Errorf("GET %s: %v", tc.url, err)
			continue
		}
		got := fmt.Sprint(resp.StatusCode)
		switch {
		case resp.StatusCode == 200:
			got += " " + string(body)
		case resp.StatusCode/100 == 3:
			got += " " + resp.Header.Get("Location")
		}
		if got != tc.want {
			t.Errorf("GET %s = %q, want %q", tc.url, got, tc.want)
		}
	}
	if got, want := w.Files(), []string{"http://docs.example.org/v1/a/b.html", "http://docs.example.org/v1/a/c..d.txt", "http://docs.example.org/v1/index.html"}; !slices.Equal(got, want) {
		t.Errorf("Files() = %q, want %q", got, want)
	}
	if got, want := w.Reachable(), []string{"http://docs.example.org/v1/a/b.html", "http://docs.example.org/v1/index.html"}; !slices.Equal(got, want) {
		t.Errorf("Reachable() = %q, want %q", got, want)
	}
	// https://docs.example.org/x is refused, then answered 404 by http:
	// not unreachable. https://www.example.org/y is refused, and closed
	// by http.
	if got, want := w.UnreachableOrigins(), map[string]int{"https://www.example.org": 1}; !cmp.Equal(got, want) {
		t.Errorf("UnreachableOrigins() = %v, want %v", got, want)
	}
	if got, want := w.NotFound(), []string{"http://docs.example.org/x"}; !slices.Equal(got, want) {
		t.Errorf("NotFound() = %q, want %q", got, want)
	}
}
