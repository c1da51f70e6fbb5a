package crawler

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/webtable/webtable/crawler/crawlertest"
	"github.com/webtable/webtable/crawlstore"
)

// vweb is a test web: one loopback HTTP server acting as the crawler's
// proxy, serving several virtual hosts (r.Host) with their own handlers.
// Unknown hosts get 502, as from a proxy that cannot reach them.
type vweb struct {
	srv *httptest.Server
	// tls, when started (serveTLS), serves the same hosts over https to
	// the CONNECT tunnels of the hosts in tunnels; CONNECT to any other
	// host is refused (403), as by a proxy that blocks port 443.
	tls     *httptest.Server
	tunnels map[string]bool

	mu    sync.Mutex
	hosts map[string]http.Handler
	hits  []hit
	// inflight per host and the maximum seen, to check concurrency limits.
	inflight    map[string]int
	maxInflight map[string]int
	maxTotal    int
	total       int
	conns       atomic.Int64 // connections accepted
}

type hit struct {
	Host, Path string // Path includes the query
	Scheme     string // "https" for a request through a CONNECT tunnel
	At         time.Time
	Header     http.Header
}

func newVWeb(t *testing.T) *vweb {
	t.Helper()
	clearProxyEnv(t)
	w := &vweb{hosts: map[string]http.Handler{}, inflight: map[string]int{}, maxInflight: map[string]int{}}
	w.srv = httptest.NewUnstartedServer(http.HandlerFunc(w.serve))
	w.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			w.conns.Add(1)
		}
	}
	w.srv.Start()
	t.Cleanup(w.srv.Close)
	// Test servers listen on loopback only (issue 7: safety).
	if ap, ok := w.srv.Listener.Addr().(*net.TCPAddr); !ok || !ap.IP.IsLoopback() {
		t.Fatalf("test proxy listens on %v, want a loopback address", w.srv.Listener.Addr())
	}
	return w
}

// clearProxyEnv keeps the environment's proxies out of a test.
func clearProxyEnv(t *testing.T) {
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"} {
		t.Setenv(k, "")
	}
}

func (w *vweb) serve(rw http.ResponseWriter, r *http.Request) {
	at := time.Now()
	if r.Method == http.MethodConnect {
		w.connect(rw, r)
		return
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := serverKey(scheme, r.Host) // every spelling of a host is one
	w.mu.Lock()
	w.hits = append(w.hits, hit{Host: host, Path: r.URL.RequestURI(), Scheme: scheme, At: at, Header: r.Header.Clone()})
	h := w.hosts[host]
	w.inflight[host]++
	w.total++
	w.maxInflight[host] = max(w.maxInflight[host], w.inflight[host])
	w.maxTotal = max(w.maxTotal, w.total)
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.inflight[host]--
		w.total--
		w.mu.Unlock()
	}()
	if h == nil {
		http.Error(rw, "unknown host "+host, http.StatusBadGateway)
		return
	}
	h.ServeHTTP(rw, r)
}

func (w *vweb) handle(host string, h http.Handler) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.hosts[host] = h
}

// site serves pages (path -> HTML) on host; robots is robots.txt ("" = 404).
func (w *vweb) site(host, robots string, pages map[string]string) {
	w.handle(host, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			if robots == "" {
				http.NotFound(rw, r)
				return
			}
			rw.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(rw, robots)
			return
		}
		body, ok := pages[r.URL.RequestURI()]
		if !ok {
			http.NotFound(rw, r)
			return
		}
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(rw, body)
	}))
}

// hitsOf returns the requests to host, in arrival order.
func (w *vweb) hitsOf(host string) []hit {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []hit
	for _, h := range w.hits {
		if h.Host == host {
			out = append(out, h)
		}
	}
	return out
}

// paths returns the paths requested on host, robots.txt excluded, sorted
// by arrival.
func (w *vweb) paths(host string) []string {
	var out []string
	for _, h := range w.hitsOf(host) {
		if h.Path != "/robots.txt" {
			out = append(out, h.Path)
		}
	}
	return out
}

// testConfig is the default configuration through w, with no delay.
func (w *vweb) config() Config {
	cfg := DefaultConfig()
	cfg.Proxy = w.srv.URL
	cfg.Delay = 0
	cfg.Timeout = 10 * time.Second
	return cfg
}

// crawl runs a crawler once and fails the test on error.
func crawl(t *testing.T, cfg Config, store crawlstore.Store, seeds ...string) Stats {
	t.Helper()
	c, err := New(cfg, store)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer c.Close()
	c.retryBase = 10 * time.Millisecond
	st, err := c.Run(context.Background(), seeds)
	if err != nil {
		t.Fatalf("Run(%q): %v", seeds, err)
	}
	return st
}

// page builds a small HTML page with the given body.
func page(body string) string {
	return "<!doctype html><html><head><title>t</title></head><body>" + body + "</body></html>"
}

func TestSmoke(t *testing.T) {
	w := newVWeb(t)
	w.site("a.test", "", map[string]string{
		"/":  page(`<a href="/x">X</a> <a href="http://b.test/">B</a>`),
		"/x": page(`<a href="/">home</a>`),
	})
	store := crawlertest.NewMemStore()
	st := crawl(t, w.config(), store, "http://a.test/")
	if st.Fetched != 2 {
		t.Errorf("Fetched = %d, want 2 (stats %+v)", st.Fetched, st)
	}
	row, ok := store.Row("http://b.test/")
	if !ok || row.Anchors["http://a.test/"] != "B" || row.State != crawlstore.StateNone {
		t.Errorf("row b.test = %+v, want anchor B and no state (outside the allowed domains)", row)
	}
	t.Logf("keys %v", store.Keys())
}
