package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/temoto/robotstxt"
)

// errRobots is the error of a URL that robots.txt disallows.
var errRobots = errors.New("crawler: disallowed by robots.txt")

// robots fetches, parses and caches robots.txt per scheme and host, for
// the whole life of a Crawler. Fetches go through the crawler's transport,
// so they wait for the per-host scheduler like any request; a host's
// Crawl-delay is handed to the scheduler as soon as it is known.
//
// Status handling follows RFC 9309: 2xx is parsed; 4xx (no robots.txt)
// allows everything; 5xx and network errors disallow the host for this run
// (the pages fail with kind robots and are retried by a later run).
type robots struct {
	client *http.Client
	sched  *scheduler
	agent  string

	mu sync.Mutex
	m  map[string]*robotsEntry // "scheme://host" -> entry
}

type robotsEntry struct {
	ready chan struct{} // closed when group/err are set
	group *robotstxt.Group
	err   error
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
		sched: sched,
		agent: cfg.UserAgent,
		m:     make(map[string]*robotsEntry),
	}
}

// allowed reports whether u may be fetched. A robots.txt that cannot be
// fetched yields an error wrapping errRobots.
func (r *robots) allowed(ctx context.Context, u *url.URL) error {
	key := u.Scheme + "://" + u.Host
	r.mu.Lock()
	e := r.m[key]
	if e == nil {
		e = &robotsEntry{ready: make(chan struct{})}
		r.m[key] = e
		r.mu.Unlock()
		e.group, e.err = r.fetch(ctx, u)
		if e.err != nil && ctx.Err() != nil {
			// Stopped while fetching: forget, so a later call tries again.
			r.mu.Lock()
			delete(r.m, key)
			r.mu.Unlock()
		}
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
	path := u.EscapedPath()
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	if !e.group.Test(path) {
		return errRobots
	}
	return nil
}

func (r *robots) fetch(ctx context.Context, u *url.URL) (*robotstxt.Group, error) {
	ru := url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ru.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errRobots, err)
	}
	req.Header.Set("User-Agent", r.agent)
	resp, err := r.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: fetching %s: %v", errRobots, ru.String(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRobotsBody))
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %v", errRobots, ru.String(), err)
	}
	if resp.StatusCode >= 500 {
		return nil, fmt.Errorf("%w: %s answered %d", errRobots, ru.String(), resp.StatusCode)
	}
	data, err := robotstxt.FromStatusAndBytes(resp.StatusCode, body)
	if err != nil {
		// Unparseable robots.txt: RFC 9309 says to use what parses; the
		// parser gives nothing back, so allow everything.
		data, _ = robotstxt.FromStatusAndBytes(http.StatusNotFound, nil)
	}
	g := data.FindGroup(agentToken(r.agent))
	if g.CrawlDelay > 0 {
		r.sched.setCrawlDelay(u.Host, g.CrawlDelay)
	}
	return g, nil
}

// agentToken is the product token robots.txt groups are matched against:
// the User-Agent's first word without its version ("webtable").
func agentToken(ua string) string {
	tok, _, _ := strings.Cut(strings.TrimSpace(ua), " ")
	tok, _, _ = strings.Cut(tok, "/")
	return strings.ToLower(tok)
}
