package crawler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/sitemap"
	"github.com/webtable/webtable/urlkey"
)

// maxSitemapNesting is how deep sitemap indexes may nest: the protocol
// allows none (an index lists sitemaps of URLs); one more level is read
// for the sites that do it, deeper is counted as bad.
const maxSitemapNesting = 2

// sitemapBatch is how many listed URLs go to the store in one Enqueue.
const sitemapBatch = 1000

// sitemapRun is the sitemap state of one run: the origins whose
// robots.txt Sitemap lines were read, and the sitemap files fetched (an
// index listing one twice, or in a loop, fetches it once).
type sitemapRun struct {
	mu      sync.Mutex
	origins map[string]bool
	files   map[string]bool
}

// sitemapsOfOrigin reads, once per run and origin, the sitemaps named by
// the robots.txt of u's origin (just found to allow u), in the background.
func (r *run) sitemapsOfOrigin(u *url.URL) {
	if r.c.cfg.NoSitemaps {
		return
	}
	origin := u.Scheme + "://" + u.Host
	r.sm.mu.Lock()
	seen := r.sm.origins[origin]
	r.sm.origins[origin] = true
	r.sm.mu.Unlock()
	if seen {
		return
	}
	for _, loc := range r.c.rob.sitemaps(u) {
		r.readSitemapLater(loc, 0)
	}
}

// readSitemapLater reads one sitemap file in the background; the run is
// not over before it is read.
func (r *run) readSitemapLater(loc string, level int) {
	if !r.sched.checking() {
		return // the run is over
	}
	r.bg.Add(1)
	go func() {
		defer r.bg.Done()
		defer r.sched.checked()
		r.readSitemap(loc, level)
	}()
}

// readSitemap fetches and reads one sitemap file (level 0: named by
// robots.txt or --sitemap), queues the URLs it lists and reads the
// sitemaps an index lists. What is wrong with a file is counted and named
// once in Config.Log.
func (r *run) readSitemap(loc string, level int) {
	u, err := urlkey.Canonical(loc)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		r.stats.sitemapBad(r.c.cfg.Log, fmt.Sprintf("sitemap %q: not an http(s) URL", loc))
		return
	}
	s := u.String()
	r.sm.mu.Lock()
	again := r.sm.files[s]
	r.sm.files[s] = true
	r.sm.mu.Unlock()
	switch {
	case again && level > 0:
		r.stats.sitemapBad(r.c.cfg.Log, fmt.Sprintf("sitemap %s: listed again by an index (a loop?), read once", s))
		return
	case again:
		return // named by two robots.txt or by --sitemap too
	case level > maxSitemapNesting:
		r.stats.sitemapBad(r.c.cfg.Log, fmt.Sprintf("sitemap %s: indexes nested %d deep, not read", s, level))
		return
	case !r.c.mine(u.Host):
		return // its host's shard reads it
	}
	var sched *crawlstore.SitemapSchedule // a continuous crawl's (continuous_sitemap_due.go)
	if level == 0 {
		sc, ok, skip, err := r.sitemapSchedule(s, u.Host)
		if err != nil {
			r.fail(err)
			return
		}
		if skip {
			return // not due yet
		}
		if ok {
			sched = &sc
		}
	}
	if err := r.c.budget.take(r.runCtx); err != nil {
		return // stopped while waiting for the budget
	}
	now := r.c.clock.Now()
	f, res, err := r.fetchSitemap(u, sched)
	if sched != nil && r.runCtx.Err() == nil {
		if serr := r.saveSitemapSchedule(*sched, res, now); serr != nil {
			r.fail(serr)
			return
		}
	}
	if res.notModified {
		r.stats.sitemapUnchanged()
		return
	}
	if err != nil {
		if r.runCtx.Err() == nil {
			r.stats.sitemapBad(r.c.cfg.Log, fmt.Sprintf("sitemap %s: %v", s, err))
		}
		if f == nil || len(f.URLs) == 0 {
			return
		}
	}
	r.stats.sitemapFile(f)
	if f.Cut || f.Skipped > 0 {
		r.c.logf("sitemap %s: past the protocol's limits (50,000 URLs, 50 MB): %d URLs skipped, cut at 50 MB: %v", s, f.Skipped, f.Cut)
	}
	if f.Kind == sitemap.Index {
		for _, e := range f.URLs {
			if eu, err := urlkey.Canonical(e.Loc); err == nil && eu.Hostname() != u.Hostname() {
				r.stats.sitemapOutside(r.c.cfg.Log, s, e.Loc, 1)
				continue
			}
			r.readSitemap(e.Loc, level+1)
		}
		return
	}
	r.queueListed(u, s, f.URLs)
}

// fetchSitemap fetches u through the crawler's transport (so through
// the per-host scheduler, like any request) and parses it. With sched
// (a continuous crawl's schedule of it), the request is conditional on
// the validators of its last 200; res says what came back.
func (r *run) fetchSitemap(u *url.URL, sched *crawlstore.SitemapSchedule) (_ *sitemap.File, res sitemapRead, _ error) {
	if !r.c.cfg.IgnoreRobots {
		if err := r.c.rob.allowed(r.runCtx, u); err != nil {
			return nil, res, fmt.Errorf("not read: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(r.runCtx, 4*r.c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, res, err
	}
	req.Header.Set("User-Agent", r.c.cfg.UserAgent)
	if sched != nil && sched.ETag != "" {
		req.Header.Set("If-None-Match", sched.ETag)
	}
	if sched != nil && sched.LastModified != "" {
		req.Header.Set("If-Modified-Since", sched.LastModified)
	}
	client := &http.Client{Transport: r.c.tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > 5 || req.URL.Hostname() != u.Hostname() {
			return errors.New("redirected too often or to another host")
		}
		return nil
	}}
	resp, err := client.Do(req)
	if err != nil {
		return nil, res, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotModified && sched != nil && (sched.ETag != "" || sched.LastModified != "") {
		res.ok, res.notModified = true, true
		return nil, res, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, res, fmt.Errorf("answered %d", resp.StatusCode)
	}
	h := sha256.New()
	f, err := sitemap.Parse(io.TeeReader(resp.Body, h), sitemap.Limits{})
	res.ok = err == nil
	res.etag, res.lastModified, res.sha256 = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"), hex.EncodeToString(h.Sum(nil))
	return f, res, err
}

// queueListed queues the URLs a sitemap at su (s its String) lists, as a
// seed's links: depth 1, under the run's admission rules, only those on
// the sitemap's own host.
func (r *run) queueListed(su *url.URL, s string, listed []sitemap.URL) {
	if r.c.cfg.Depth < 1 {
		return
	}
	var entries []crawlstore.Entry
	outside, first := 0, ""
	for _, l := range listed {
		lu, err := urlkey.Canonical(l.Loc)
		if err != nil || (lu.Scheme != "http" && lu.Scheme != "https") || lu.Hostname() != su.Hostname() {
			if outside++; first == "" {
				first = l.Loc
			}
			continue
		}
		ls := lu.String()
		switch r.c.admit(lu, ls, r.domains) {
		case refusedTrap:
			r.stats.trap()
			continue
		case refusedDomain:
			if outside++; first == "" {
				first = l.Loc
			}
			continue
		}
		entries = append(entries, crawlstore.Entry{URL: ls, Key: urlkey.KeyOf(lu), Depth: 1,
			Sitemap: crawlstore.SitemapHint{LastMod: l.LastMod, ChangeFreq: l.ChangeFreq, Priority: l.Priority, Listed: true}})
	}
	if outside > 0 {
		r.stats.sitemapOutside(r.c.cfg.Log, s, first, outside)
	}
	for len(entries) > 0 && !r.sched.isClosed() {
		n := min(len(entries), sitemapBatch)
		if err := r.enqueueListed(entries[:n]); err != nil {
			r.fail(err)
			return
		}
		entries = entries[n:]
	}
}

// enqueueListed hands entries to the store and the new ones of this
// shard to the scheduler.
func (r *run) enqueueListed(entries []crawlstore.Entry) error {
	states, err := r.c.store.Enqueue(r.storeCtx, entries, r.requeue)
	if err != nil {
		return fmt.Errorf("%w: queueing sitemap URLs: %w", ErrStore, err)
	}
	if len(states) != len(entries) {
		return fmt.Errorf("%w: Enqueue returned %d states for %d entries", ErrStore, len(states), len(entries))
	}
	again, err := r.requeueModified(entries, states) // continuous_sitemap.go
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(entries))
	for i, e := range entries {
		keys = append(keys, e.Key)
		r.stats.sitemapURL(states[i] == crawlstore.StateNone)
	}
	for _, e := range append(entries, again...) {
		if e.Frontier == "" {
			continue
		}
		if host := crawlstore.HostOf(e.URL); r.c.mine(host) {
			r.sched.enqueued(host, e)
		}
	}
	r.seen.add(keys...)
	return nil
}

// logf writes one line to Config.Log, if set.
func (c *Crawler) logf(format string, args ...any) {
	if c.cfg.Log != nil {
		c.cfg.Log(fmt.Sprintf(format, args...))
	}
}
