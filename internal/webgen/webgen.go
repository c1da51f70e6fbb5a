package webgen

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Domain is the registrable domain of every generated host.
const Domain = "web.test"

// Shape selects the generated web.
type Shape int

// The shapes.
const (
	Grid Shape = iota
	Tree
)

// Config describes a generated web.
type Config struct {
	Shape     Shape
	Hosts     int // Grid: number of hosts
	Pages     int // Grid: pages per host; Tree: the most pages served (0 = no limit)
	Fan       int // Tree: new pages linked by each page
	PageBytes int // approximate size of a page
	// OnPage, when set, is called with the number of page requests so far
	// (robots.txt not counted), from the server's goroutines.
	OnPage func(n int64, host, path string)
}

// Web is a running generated web.
type Web struct {
	cfg   Config
	srv   *httptest.Server
	pages atomic.Int64
	pad   string

	mu      sync.Mutex
	hosts   map[string]*hostStat
	seen    []uint64 // bitmap of page ids requested
	twice   int64    // pages requested more than once
	started time.Time
	first   time.Time // first page request
}

// hostStat is what the server keeps of one host's requests: when the
// last came, the shortest gap between two, and how many.
type hostStat struct {
	last   time.Time
	minGap time.Duration
	n      int
}

// Start serves cfg on 127.0.0.1 until Close.
func Start(cfg Config) *Web {
	if cfg.PageBytes <= 0 {
		cfg.PageBytes = 2048
	}
	if cfg.Fan <= 0 {
		cfg.Fan = 50
	}
	w := &Web{cfg: cfg, hosts: map[string]*hostStat{}, started: time.Now()}
	w.pad = "<p>" + strings.Repeat("lorem ipsum dolor sit amet ", cfg.PageBytes/27+1) + "</p>"
	w.srv = httptest.NewServer(http.HandlerFunc(w.serve))
	return w
}

// Proxy is the proxy URL to crawl through (--proxy).
func (w *Web) Proxy() string { return w.srv.URL }

// Close stops the server.
func (w *Web) Close() { w.srv.Close() }

// Host names grid host i.
func Host(i int) string { return fmt.Sprintf("h%04d.%s", i, Domain) }

// Seed is the URL a crawl of the web starts from.
func (w *Web) Seed() string {
	if w.cfg.Shape == Tree {
		return "http://tree." + Domain + "/p/0"
	}
	return "http://" + Host(0) + "/p/0"
}

// Pages returns the number of page requests served.
func (w *Web) Pages() int64 { return w.pages.Load() }

// Twice returns the number of pages requested more than once.
func (w *Web) Twice() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.twice
}

// MinGap returns the shortest time between two requests to one host, over
// every host with two requests or more (robots.txt included), and how many
// hosts had two or more.
func (w *Web) MinGap() (time.Duration, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	gap, n := time.Duration(-1), 0
	for _, h := range w.hosts {
		if h.n < 2 {
			continue
		}
		n++
		if gap < 0 || h.minGap < gap {
			gap = h.minGap
		}
	}
	return gap, n
}

// FirstPage is when the first page (not robots.txt) was requested; zero if
// none was.
func (w *Web) FirstPage() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first
}

// id numbers a page across the web, for the bitmap; -1 when it is no page.
func (w *Web) id(host, path string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(path, "/p/"))
	if err != nil || !strings.HasPrefix(path, "/p/") || n < 0 {
		return -1
	}
	if w.cfg.Shape == Tree {
		if host != "tree."+Domain || (w.cfg.Pages > 0 && n >= w.cfg.Pages) {
			return -1
		}
		return n
	}
	var h int
	if _, err := fmt.Sscanf(host, "h%d."+Domain, &h); err != nil || h >= w.cfg.Hosts || n >= w.cfg.Pages {
		return -1
	}
	return h*w.cfg.Pages + n
}

// serve answers a request for any host: it notes the request's arrival
// for MinGap, then serves robots.txt's 404 or the page (counted, and
// marked in the bitmap).
func (w *Web) serve(rw http.ResponseWriter, r *http.Request) {
	host := r.Host
	now := time.Now()
	w.mu.Lock()
	hs := w.hosts[host]
	if hs == nil {
		hs = &hostStat{minGap: time.Hour}
		w.hosts[host] = hs
	}
	if hs.n > 0 {
		hs.minGap = min(hs.minGap, now.Sub(hs.last))
	}
	hs.last = now
	hs.n++
	w.mu.Unlock()

	if r.URL.Path == "/robots.txt" {
		http.NotFound(rw, r)
		return
	}
	id := w.id(host, r.URL.Path)
	if id < 0 {
		http.NotFound(rw, r)
		return
	}
	w.mu.Lock()
	if w.first.IsZero() {
		w.first = now
	}
	for len(w.seen) <= id/64 {
		w.seen = append(w.seen, 0)
	}
	if w.seen[id/64]&(1<<(id%64)) != 0 {
		w.twice++
	}
	w.seen[id/64] |= 1 << (id % 64)
	w.mu.Unlock()
	n := w.pages.Add(1)
	if w.cfg.OnPage != nil {
		w.cfg.OnPage(n, host, r.URL.Path)
	}
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html><title>%s%s</title>\n", host, r.URL.Path)
	if w.cfg.Shape == Tree {
		page, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
		for k := 1; k <= w.cfg.Fan; k++ {
			fmt.Fprintf(&b, "<a href=\"/p/%d\">page %d</a>\n", w.cfg.Fan*page+k, w.cfg.Fan*page+k)
		}
	} else {
		i := id % w.cfg.Pages
		h := id / w.cfg.Pages
		for k := 1; k <= 4; k++ {
			fmt.Fprintf(&b, "<a href=\"/p/%d\">page %d</a>\n", (3*i+k)%w.cfg.Pages, k)
		}
		for k := 1; k <= 2; k++ {
			fmt.Fprintf(&b, "<a href=\"http://%s/p/%d\">elsewhere</a>\n", Host((h+97*k)%w.cfg.Hosts), i)
		}
	}
	b.WriteString(w.pad)
	rw.Write([]byte(b.String()))
}
