package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// work is one worker: it takes entries until the run ends.
//
// A worker holds a fetch slot (r.fetchSlots) from taking an entry until
// its fetch is over, not while it stores the page: a save waits for its
// commit (one Badger commit for the saves that come together, a few
// hundred µs or more), during which a worker that held its slot kept a
// fetch from starting. With twice as many workers as slots, the others
// fetch meanwhile; Concurrency still bounds the fetches in flight.
func (r *run) work(ctx context.Context) {
	for {
		select {
		case r.fetchSlots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		held := true
		release := func() {
			if held {
				held = false
				<-r.fetchSlots
			}
		}
		e, host, ok := r.sched.pop(ctx)
		if !ok {
			release()
			return
		}
		fetched := r.process(ctx, e, release)
		release()
		r.sched.done(host, e, fetched)
	}
}

// fetchedInRun reports whether a URL whose last fetch is f (ok: there was
// one) must not be fetched again in this run: it was fetched in this run
// already, or it is done and this is not a recrawl. The store says so, not
// the crawler's memory.
func (r *run) fetchedInRun(f crawlstore.Fetch, ok bool) bool {
	if !ok {
		return false
	}
	switch f.State {
	case crawlstore.StateDone:
		return !r.c.refetches() || !f.Time.Before(r.start)
	case crawlstore.StateFailed:
		return !f.Time.Before(r.start)
	}
	return false
}

// process fetches one entry, stores the result and queues its links.
// It reports whether the fetch succeeded (counts against MaxPages). It
// calls fetchOver once the page's fetch is over, before storing it (see
// work).
func (r *run) process(ctx context.Context, e entry, fetchOver func()) bool {
	host := crawlstore.HostOf(e.URL)
	if !r.sched.recheck(host, &e) {
		return false // its origin is held back (counted): stays queued
	}
	u, err := url.Parse(e.URL)
	if err != nil || e.Key == "" {
		if u, err = urlkey.Canonical(e.URL); err != nil {
			return false // the store holds something the crawler would never queue
		}
		e.URL, e.Key = u.String(), urlkey.KeyOf(u)
	}
	start := r.c.clock.Now()
	p := &crawlstore.Page{URL: e.URL, Key: e.Key, Frontier: e.Frontier, FinalURL: e.URL, Depth: e.Depth, Sitemap: e.Sitemap,
		Time: start.Truncate(time.Millisecond), Requeue: r.requeue}
	if p.Key == "" {
		// NB: the store sets it on every entry it hands out; an entry
		// queued without one is keyed here, once.
		p.Key, _ = urlkey.Key(p.URL)
	}
	r.stats.start()
	defer r.stats.end()
	// The store decides whether the URL is still to be fetched: an entry
	// queued twice (two pages saved at once) or reached meanwhile through
	// a redirect is not fetched again.
	last, ok, err := r.c.store.LastFetch(r.storeCtx, p.Key)
	if err != nil {
		r.fail(fmt.Errorf("%w: last fetch of %s: %w", ErrStore, p.URL, err))
		return false
	}
	if r.fetchedInRun(last, ok) {
		return false
	}
	if !r.hostAdmits(u.Host) {
		r.sched.full(host)
		r.sched.retry(host, e) // set aside, counted: stays queued
		return false
	}
	fetched := false
	defer func() { r.hostDone(u.Host, fetched) }()

	if !r.robotsAllow(ctx, e, u, host, p) {
		return false
	}
	if r.sched.later(u.Scheme, host) {
		// NB: the robots.txt just fetched (or a redirect hop of another
		// worker) took the host's turn: the page waits for the next one
		// in the frontier, not in a worker that could fetch another host.
		r.sched.putBack(host, e)
		return false
	}

	fetched = r.fetchAndSave(ctx, e, u, host, p, last, ok, fetchOver)
	return fetched
}

// fetchAndSave fetches p, the page of entry e (URL u, of host; last its
// last fetch, ok: there was one), once the budget allows, and stores it,
// unless it is retried, set aside or stopped. It reports whether the
// fetch succeeded, and calls fetchOver once the fetch is over (see
// process).
func (r *run) fetchAndSave(ctx context.Context, e entry, u *url.URL, host string, p *crawlstore.Page, last crawlstore.Fetch, ok bool, fetchOver func()) bool {
	if err := r.c.budget.take(ctx); err != nil {
		r.sched.putBack(host, e)
		return false // stopped while waiting for the budget: stays queued
	}
	hdr := r.header(last, ok)
	id, capt := r.c.tr.register()
	defer r.c.tr.unregister(id)
	defer r.c.sched.unclaim(capt)
	hdr.Set(fetchIDHeader, id)
	sent := time.Now()
	err := r.c.colly.Request(http.MethodGet, p.URL, nil, nil, hdr)
	fetchOver()
	if err != nil && r.stopped(ctx, err) {
		r.sched.fetchOver(host, e)
		return false // never reached the wire, or stopped between hops: stays queued
	}
	if capt.resp == nil && r.unreachable(e, u, host, err) {
		r.sched.fetchOver(host, e)
		return false // moved to the other scheme, or set aside: stays queued
	}
	r.fill(p, e, u, capt, err)
	r.c.cfg.Hooks.fetched(time.Since(sent), p.Status)
	// NB: the host's next entry waits until the answer's pause or give-up
	// (a 429, a 5xx) is in place: freed before, another worker could
	// fetch from a host that had just asked to be left alone.
	retried := r.retry(e, host, u, p, capt)
	r.sched.fetchOver(host, e)
	if retried {
		return false // queued again; nothing stored yet
	}
	if !r.renderPage(ctx, p, e) { // render_page.go: --render
		return false // stopped while rendering: stays queued
	}
	if p.NotModified {
		if !r.notModified(p, e, last) {
			return false
		}
	}
	if r.c.cfg.Continuous {
		p.Change = r.c.due.change(p, last, ok)
	}
	return r.save(p, u)
}

// refetches reports whether runs fetch pages already done again: a
// recrawl, or a continuous crawl (the pages due).
func (c *Crawler) refetches() bool { return c.cfg.Recrawl || c.cfg.Continuous }

// stopped reports whether err comes from the run stopping.
func (r *run) stopped(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, errStopped) || errors.Is(err, context.Canceled))
}

// robotsAllow reports whether robots.txt lets p's URL u be fetched. A page
// it disallows is stored as failed (kind robots); one whose robots.txt
// cannot be had waits (robotsUnavailable); a run stopping leaves it
// queued.
func (r *run) robotsAllow(ctx context.Context, e entry, u *url.URL, host string, p *crawlstore.Page) bool {
	if r.c.cfg.IgnoreRobots {
		return true
	}
	err := r.c.rob.allowed(ctx, u)
	switch {
	case err == nil:
		r.sitemapsOfOrigin(u)
		return true
	case ctx.Err() != nil:
		// stopped before fetching: stays queued
	case unavailable(err):
		r.robotsUnavailable(e, u, host, err)
	default:
		p.Err, p.ErrKind = err.Error(), crawlstore.KindRobots
		r.save(p, u)
	}
	return false
}

// header is the request header of a fetch whose last fetch is last (ok:
// there was one): conditional when recrawling a stored page.
func (r *run) header(last crawlstore.Fetch, ok bool) http.Header {
	hdr := http.Header{}
	hdr.Set("User-Agent", r.c.cfg.UserAgent)
	hdr.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8")
	if r.c.refetches() && ok && last.SHA256 != "" {
		if last.ETag != "" {
			hdr.Set("If-None-Match", last.ETag)
		}
		if last.LastModified != "" {
			hdr.Set("If-Modified-Since", last.LastModified)
		}
	}
	return hdr
}
