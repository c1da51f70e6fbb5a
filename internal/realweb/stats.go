package realweb

import (
	"net/url"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// stats counts what the web's origins see. Its maps grow with the URLs
// requested: a test web's size, not a crawl of the internet.
type stats struct {
	pages atomic.Int64

	mu       sync.Mutex
	requests map[string]int // scheme://hostport/path[?query] -> requests read
	answers  map[string]int // hostport/path[?query] -> answers that were not redirects
	connects map[string]int // https://hostport -> CONNECTs
	hosts    map[string]*hostStat
}

type hostStat struct {
	last   time.Time
	minGap time.Duration
	n      int
}

func (s *stats) init() {
	s.requests = map[string]int{}
	s.answers = map[string]int{}
	s.connects = map[string]int{}
	s.hosts = map[string]*hostStat{}
}

// request counts a request the proxy read for an origin that does not
// serve it (a reset, a 502).
func (s *stats) request(scheme, hp, target string) {
	s.mu.Lock()
	s.requests[scheme+"://"+hp+target]++
	s.mu.Unlock()
}

func (s *stats) connect(origin string) {
	s.mu.Lock()
	s.connects[origin]++
	s.mu.Unlock()
}

// served counts a request for target (path and query) an origin answered
// with status, arrived at the given time; page is false for robots.txt.
func (s *stats) served(scheme, hp, target string, status int, arrived time.Time, page bool) {
	if page {
		s.pages.Add(1)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[scheme+"://"+hp+target]++
	if page && (status < 300 || status >= 400) {
		s.answers[hp+target]++
	}
	h := hostName(hp)
	hs := s.hosts[h]
	if hs == nil {
		hs = &hostStat{minGap: time.Duration(1<<63 - 1)}
		s.hosts[h] = hs
	}
	if hs.n > 0 {
		// NB: requests of two connections may be read out of order;
		// the gap is between arrivals, whichever came first.
		gap := arrived.Sub(hs.last)
		if gap < 0 {
			gap = -gap
		}
		hs.minGap = min(hs.minGap, gap)
	}
	if arrived.After(hs.last) {
		hs.last = arrived
	}
	hs.n++
}

// Requests returns how many requests for rawURL (scheme, host, port, path
// and query; the fragment ignored) reached the web: answered by its
// origin, or read by the proxy and then reset or answered 502. robots.txt
// counts. Requests inside a TLS tunnel that failed are never read and
// never counted.
func (w *Web) Requests(rawURL string) int {
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0
	}
	p := u.Path
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	w.stats.mu.Lock()
	defer w.stats.mu.Unlock()
	return w.stats.requests[u.Scheme+"://"+hostPort(u.Scheme, u.Host)+p]
}

// Connects returns how many CONNECT requests the proxy read for origin
// (https://host[:port]), whatever it answered.
func (w *Web) Connects(origin string) int {
	u, err := url.Parse(origin)
	if err != nil {
		return 0
	}
	w.stats.mu.Lock()
	defer w.stats.mu.Unlock()
	return w.stats.connects["https://"+hostPort("https", u.Host)]
}

// TotalPageRequests returns how many requests the serving origins answered,
// robots.txt excepted (pages, redirects and 404s, over both schemes).
func (w *Web) TotalPageRequests() int64 { return w.stats.pages.Load() }

// FetchedTwice returns the pages (as row keys go: host[:port]/path[?query],
// no scheme) that were answered more than once, counting both schemes
// together and leaving out answers that were redirects (http://h/p
// redirected to https://h/p is one fetch of h/p), sorted.
func (w *Web) FetchedTwice() []string {
	w.stats.mu.Lock()
	defer w.stats.mu.Unlock()
	var out []string
	for k, n := range w.stats.answers {
		if n > 1 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// MinGap returns the shortest time between the arrivals of two requests
// for host (a host name, no port), over every origin of it (http and
// https, robots.txt and redirects included), and how many requests
// arrived; the gap is -1 with fewer than two.
//
// A request is timed when its handler starts, after its headers are read,
// so before its response ends; the first request of a new https tunnel is
// timed after the TLS handshake. For a crawler that counts its delay from
// the end of the previous response to the host (as package crawler does),
// the gap is therefore at least the delay, exactly, however loaded the
// machine. For one that counts from the start of the previous request it
// may be shorter by one TLS handshake (a millisecond on loopback, more
// under the race detector).
func (w *Web) MinGap(host string) (time.Duration, int) {
	w.stats.mu.Lock()
	defer w.stats.mu.Unlock()
	hs := w.stats.hosts[host]
	if hs == nil || hs.n < 2 {
		n := 0
		if hs != nil {
			n = hs.n
		}
		return -1, n
	}
	return hs.minGap, hs.n
}

// MinGaps returns [Web.MinGap] of every host that received two requests
// or more.
func (w *Web) MinGaps() map[string]time.Duration {
	w.stats.mu.Lock()
	defer w.stats.mu.Unlock()
	out := map[string]time.Duration{}
	for h, hs := range w.stats.hosts {
		if hs.n >= 2 {
			out[h] = hs.minGap
		}
	}
	return out
}
