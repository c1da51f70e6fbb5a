package crawler

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/temoto/robotstxt"
)

// errRobots is the error of a URL that robots.txt disallows.
var errRobots = errors.New("crawler: disallowed by robots.txt")

// errRobotsUnavailable is the error of a URL whose host's robots.txt
// answered 5xx or could not be reached: the page is not fetched and stays
// queued, and robots.txt is asked again after a backoff.
var errRobotsUnavailable = errors.New("crawler: robots.txt unavailable")

// robotsServerError is wrapped with errRobotsUnavailable for a robots.txt
// answered with 5xx.
type robotsServerError struct{ status int }

func (e *robotsServerError) Error() string { return fmt.Sprintf("status %d", e.status) }

// Robots caching (RFC 9309, section 2.4).
const (
	// RobotsTTL is how long a robots.txt is used before it is fetched
	// again.
	RobotsTTL = 24 * time.Hour
	// MaxRobots bounds the robots.txt files kept in memory; the least
	// recently used is forgotten (and fetched again when needed).
	MaxRobots = 100_000
	// MaxRobotsBytes bounds the memory of the robots.txt files kept, each
	// counted as twice its size (its text and the rules parsed from it)
	// plus robotsEntryBytes; the least recently used go first.
	MaxRobotsBytes = 64 << 20
	// robotsEntryBytes is what an entry costs beyond its file.
	robotsEntryBytes = 256
)

// robots fetches, parses and caches robots.txt per scheme and host, for
// the whole life of a Crawler. Fetches go through the crawler's transport,
// so they wait for the per-host scheduler like any request; a host's
// Crawl-delay is handed to the scheduler as soon as it is known.
//
// Status handling follows RFC 9309: 2xx is parsed; 4xx (no robots.txt)
// allows everything; 5xx and network errors make the host's pages wait,
// queued, while robots.txt is asked again after a doubling backoff. A
// robots.txt is kept for at most RobotsTTL per scheme, host and port, and
// at most MaxRobots of them (least recently used forgotten first).
type robots struct {
	client   *http.Client
	sched    *scheduler
	agent    string
	backoff  time.Duration // first wait after an unavailable robots.txt
	max      int           // entries kept
	maxBytes int64         // their memory, as robotsEntry.size counts it
	ttl      time.Duration // how long an entry is used

	mu    sync.Mutex
	m     map[string]*list.Element // "scheme://host[:port]" -> *robotsEntry
	lru   list.List                // most recently used first
	bytes int64                    // sum of the entries' sizes
}

type robotsEntry struct {
	key     string
	ready   chan struct{} // closed when group/err are set
	group   *robotstxt.Group
	maps    []string // its Sitemap lines
	err     error
	fetched time.Time // when it was fetched
	retryAt time.Time // unavailable: asked again from then on
	fails   int       // unavailable answers in a row
	size    int64     // its memory, counted in robots.bytes once fetched
}

func newRobots(rt http.RoundTripper, sched *scheduler, cfg *Config) *robots {
	return &robots{
		client: &http.Client{
			Transport: rt, // times each request once it may start (no Timeout here)
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if len(via) > 5 {
					return errors.New("robots.txt: too many redirects")
				}
				if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
					return fmt.Errorf("robots.txt: redirect to %s: scheme", req.URL.Scheme)
				}
				req.URL.User = nil // never send credentials
				req.Header.Del("Authorization")
				return nil
			},
		},
		sched:    sched,
		agent:    cfg.UserAgent,
		backoff:  time.Second,
		max:      MaxRobots,
		maxBytes: MaxRobotsBytes,
		ttl:      RobotsTTL,
		m:        make(map[string]*list.Element),
	}
}

// setBackoff sets the first wait after an unavailable robots.txt.
func (r *robots) setBackoff(d time.Duration) {
	r.mu.Lock()
	r.backoff = d
	r.mu.Unlock()
}

// unavailable reports whether err says robots.txt could not be had (the
// page waits) and, if so, how many times in a row.
func unavailable(err error) bool { return errors.Is(err, errRobotsUnavailable) }

// allowed reports whether u may be fetched. A robots.txt that cannot be
// fetched yields an error wrapping errRobots.
func (r *robots) allowed(ctx context.Context, u *url.URL) error {
	key := u.Scheme + "://" + u.Host
	now := time.Now()
	r.mu.Lock()
	var e *robotsEntry
	if el := r.m[key]; el != nil {
		e = el.Value.(*robotsEntry)
		select {
		case <-e.ready:
			stale := now.Sub(e.fetched) >= r.ttl
			if unavailable(e.err) {
				stale = !now.Before(e.retryAt)
			}
			if stale {
				r.remove(el)
				e = &robotsEntry{key: key, fails: e.fails}
				if !unavailable(el.Value.(*robotsEntry).err) {
					e.fails = 0
				}
			} else {
				r.lru.MoveToFront(el)
			}
		default:
			r.lru.MoveToFront(el)
		}
	}
	if e == nil {
		e = &robotsEntry{key: key}
	}
	if e.ready == nil {
		e.ready = make(chan struct{})
		r.m[key] = r.lru.PushFront(e)
		r.evict()
		r.mu.Unlock()
		var n int
		e.group, e.maps, n, e.err = r.fetch(ctx, u)
		e.fetched = time.Now()
		if unavailable(e.err) {
			e.fails++
			e.retryAt = e.fetched.Add(min(r.backoff<<min(e.fails-1, 16), MaxCrawlDelay))
		}
		r.mu.Lock()
		if el := r.m[key]; el != nil && el.Value.(*robotsEntry) == e {
			if e.err != nil && ctx.Err() != nil {
				// Stopped while fetching: forget, so a later call tries again.
				r.remove(el)
			} else {
				e.size = 2*int64(n) + robotsEntryBytes
				r.bytes += e.size
				r.evict()
			}
		}
		r.mu.Unlock()
		close(e.ready)
	} else {
		r.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if e.err != nil {
		return e.err
	}
	if d := e.group.CrawlDelay; d > 0 {
		// NB: again at every page: the scheduler forgets an idle host's
		// politeness (sched_prune.go), the cache keeps its Crawl-delay.
		r.sched.setCrawlDelay(serverKey(u.Scheme, u.Host), d)
	}
	path := u.EscapedPath()
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	if !e.group.Test(path) {
		return errRobots
	}
	return nil
}

// remove forgets an entry. Callers hold r.mu.
func (r *robots) remove(el *list.Element) {
	e := el.Value.(*robotsEntry)
	r.lru.Remove(el)
	delete(r.m, e.key)
	r.bytes -= e.size
	e.size = 0
}

// evict forgets the least recently used entries while there are more than
// r.max or they take more than r.maxBytes, keeping the newest. Callers
// hold r.mu.
func (r *robots) evict() {
	for r.lru.Len() > 1 && (r.lru.Len() > r.max || r.bytes > r.maxBytes) {
		r.remove(r.lru.Back())
	}
}

// fetch fetches and parses the robots.txt of u's origin, and returns its
// group for our agent, its Sitemap lines and the size of the file read.
func (r *robots) fetch(ctx context.Context, u *url.URL) (*robotstxt.Group, []string, int, error) {
	ru := url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ru.String(), nil)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%w: %v", errRobots, err)
	}
	req.Header.Set("User-Agent", r.agent)
	resp, err := r.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, 0, ctx.Err()
		}
		return nil, nil, 0, fmt.Errorf("%w: fetching %s: %w", errRobotsUnavailable, ru.String(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRobotsBody))
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%w: reading %s: %v", errRobotsUnavailable, ru.String(), err)
	}
	if resp.StatusCode >= 500 {
		return nil, nil, len(body), fmt.Errorf("%w: %s answered %w", errRobotsUnavailable, ru.String(), &robotsServerError{resp.StatusCode})
	}
	data, err := robotstxt.FromStatusAndBytes(resp.StatusCode, body)
	if err != nil {
		// Unparseable robots.txt: RFC 9309 says to use what parses; the
		// parser gives nothing back, so allow everything.
		data, _ = robotstxt.FromStatusAndBytes(http.StatusNotFound, nil)
	}
	g := data.FindGroup(agentToken(r.agent))
	if g.CrawlDelay > 0 {
		r.sched.setCrawlDelay(serverKey(u.Scheme, u.Host), g.CrawlDelay)
	}
	return g, data.Sitemaps, len(body), nil
}

// sitemaps returns the Sitemap lines of the robots.txt of u's origin, as
// last fetched (none when it was not, or could not be).
func (r *robots) sitemaps(u *url.URL) []string {
	if e := r.fetched(u); e != nil {
		return e.maps
	}
	return nil
}

// failures returns how many times in a row the robots.txt of u's origin
// could not be had, the last answer included (0 when it was).
func (r *robots) failures(u *url.URL) int {
	if e := r.fetched(u); e != nil {
		return e.fails
	}
	return 0
}

// fetched returns the cache entry of u's origin once its fetch has ended,
// nil while it goes on or when there is none. NB: an entry's fields are
// written before ready is closed and never after, so they may be read
// without r.mu.
func (r *robots) fetched(u *url.URL) *robotsEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	if el := r.m[u.Scheme+"://"+u.Host]; el != nil {
		e := el.Value.(*robotsEntry)
		select {
		case <-e.ready:
			return e
		default:
		}
	}
	return nil
}

// agentToken is the product token robots.txt groups are matched against:
// the User-Agent's first word without its version ("webtable").
func agentToken(ua string) string {
	tok, _, _ := strings.Cut(strings.TrimSpace(ua), " ")
	tok, _, _ = strings.Cut(tok, "/")
	return strings.ToLower(tok)
}
