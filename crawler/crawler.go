package crawler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/webtable/webtable/extract"
	"github.com/webtable/webtable/urlkey"
)

// Sentinel errors.
var (
	// ErrConfig is wrapped by New for an unusable Config.
	ErrConfig = errors.New("crawler: bad config")
	// ErrSeed is wrapped by Run for a seed that is not a crawlable URL.
	ErrSeed = errors.New("crawler: bad seed")
	// ErrStore is wrapped by Run when the Store fails; the crawl stops.
	ErrStore = errors.New("crawler: store failed")
	// ErrRunning is returned by Run while another Run of the same Crawler
	// is in progress.
	ErrRunning = errors.New("crawler: already running")
)

// Crawler fetches pages politely and hands them to a Store. Create one
// with New; it may Run several times (one run at a time), sharing its
// robots.txt cache and connections.
type Crawler struct {
	cfg   Config
	store Store
	sched *scheduler
	tr    *transport
	rob   *robots
	colly *colly.Collector

	running sync.Mutex

	// retryBase is the first backoff before fetching again after a 429 or
	// 5xx without Retry-After; it doubles with each attempt.
	retryBase time.Duration

	domainsMu sync.RWMutex
	domains   []string  // allowed domains of the current run
	runStart  time.Time // when the current run started
}

// New returns a Crawler for cfg that stores into store.
func New(cfg Config, store Store) (*Crawler, error) {
	if store == nil {
		return nil, fmt.Errorf("%w: nil store", ErrConfig)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg.AllowDomains = normDomains(cfg.AllowDomains)
	c := &Crawler{cfg: cfg, store: store, retryBase: time.Second}
	c.sched = newScheduler(cfg.PerHost, cfg.Delay, cfg.MaxPages)
	tr, err := newTransport(&c.cfg, c.sched)
	if err != nil {
		return nil, err
	}
	c.tr = tr
	c.rob = newRobots(tr, c.sched, &c.cfg)
	c.colly = newCollector(&c.cfg, tr, c.checkRedirect)
	return c, nil
}

// Config returns the crawler's configuration.
func (c *Crawler) Config() Config { return c.cfg }

// Close releases idle connections.
func (c *Crawler) Close() error {
	c.tr.base.CloseIdleConnections()
	return nil
}

// newCollector wraps colly once. NB: colly.NewCollector reads COLLY_*
// environment variables inside it, so every field that matters is set
// after it returns; none of colly's own limits, filters, robots handling,
// caches or cookies are used (see doc.go).
func newCollector(cfg *Config, rt http.RoundTripper, redirect func(*http.Request, []*http.Request) error) *colly.Collector {
	cc := colly.NewCollector()
	cc.UserAgent = cfg.UserAgent
	cc.Headers = nil
	cc.MaxDepth = 0
	cc.MaxRequests = 0
	cc.AllowedDomains = nil
	cc.DisallowedDomains = nil
	cc.URLFilters = nil
	cc.DisallowedURLFilters = nil
	cc.AllowURLRevisit = true // the frontier decides what is fetched again
	cc.MaxBodySize = 0        // the transport bounds bodies and hands colly none
	cc.CacheDir = ""
	cc.IgnoreRobotsTxt = true // robots are ours, fetched through the scheduler
	cc.Async = false          // workers call Request and wait
	cc.ParseHTTPErrorResponse = true
	cc.DetectCharset = false
	cc.CheckHead = false
	cc.TraceHTTP = false
	cc.Context = context.Background() // in-flight fetches finish after Ctrl-C
	cc.WithTransport(rt)
	cc.SetRequestTimeout(0) // the transport times each request once it may start
	cc.DisableCookies()     // no public-suffix list in colly's jar: no cookies at all
	cc.SetRedirectHandler(redirect)
	return cc
}

// Run crawls from seeds (and whatever the store holds as queued) until the
// frontier is empty, MaxPages is reached, ctx is cancelled, or the store
// fails. On cancellation the pages in flight are finished and stored and
// Run returns an error wrapping ctx.Err(); a store failure returns an error
// wrapping ErrStore. Fetch failures are recorded, not returned.
func (c *Crawler) Run(ctx context.Context, seeds []string) (Stats, error) {
	return c.RunLimited(ctx, seeds, c.cfg.MaxPages)
}

// RunLimited is Run with its own limit of successful fetches in place of
// Config.MaxPages (0 = no limit): a crawl that shares one budget of pages
// between several crawlers runs each with the part of it that it reserved.
func (c *Crawler) RunLimited(ctx context.Context, seeds []string, maxPages int) (Stats, error) {
	if maxPages < 0 {
		return Stats{}, fmt.Errorf("%w: max pages %d is negative", ErrConfig, maxPages)
	}
	if !c.running.TryLock() {
		return Stats{}, ErrRunning
	}
	defer c.running.Unlock()

	seedURLs := make([]*url.URL, 0, len(seeds))
	for _, s := range seeds {
		u, err := urlkey.Canonical(s)
		if err != nil {
			return Stats{}, fmt.Errorf("%w %q: %w", ErrSeed, s, err)
		}
		seedURLs = append(seedURLs, u)
	}
	domains := c.cfg.AllowDomains
	if len(domains) == 0 {
		for _, u := range seedURLs {
			domains = append(domains, RegistrableDomain(u.Hostname()))
		}
		domains = normDomains(domains)
	}

	r := &run{
		c:       c,
		domains: domains,
		stats:   newStatsRecorder(c.cfg.Progress),
		start:   nextMillisecond(),
		seen:    newSeenCache(c.cfg.SeenCache),
	}
	// Politeness state (last request per host, Crawl-delays) outlives
	// runs; the frontier starts empty and is read from the store.
	r.sched = c.sched.forRun(maxPages, r.refill)
	r.requeue = Requeue{Failed: true, Done: c.cfg.Recrawl, Before: r.start}
	c.rob.setBackoff(c.retryBase)

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r.cancel = cancel
	c.tr.setStop(runCtx)

	c.tr.setReport(r.requestFailed)
	// Store calls outlive Ctrl-C so that pages in flight are stored.
	r.storeCtx = context.WithoutCancel(ctx)

	if err := r.allowSeeds(r.storeCtx, seedURLs); err != nil {
		return r.stats.snapshot(r.sched), err
	}
	if err := r.loadHolds(runCtx); err != nil {
		return r.stats.snapshot(r.sched), err
	}
	if err := r.load(runCtx, seedURLs); err != nil {
		return r.stats.snapshot(r.sched), err
	}
	c.domainsMu.Lock()
	c.domains, c.runStart = r.domains, r.start
	c.domainsMu.Unlock()

	// NB: twice as many workers as fetch slots (see work), so that pages
	// are stored while others are fetched; one worker keeps Concurrency 1
	// one page at a time.
	workers := c.cfg.Concurrency
	if workers > 1 {
		workers *= 2
	}
	r.fetchSlots = make(chan struct{}, c.cfg.Concurrency)
	stopFeed := r.feed() // resume.go: the hosts other shards queue for this one
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work(runCtx)
		}()
	}
	wg.Wait()
	stopFeed()
	r.sched.close()
	r.bg.Wait()
	st := r.stats.finish(r.sched)

	if err := r.fatal(); err != nil {
		return st, err
	}
	if ctx.Err() == nil {
		// NB: an interrupted run saw only part of the frontier: what the
		// last whole run recorded stays.
		if err := r.recordHolds(st.HeldBack); err != nil {
			return st, err
		}
	}
	if err := ctx.Err(); err != nil {
		return st, fmt.Errorf("crawler: run stopped: %w", err)
	}
	return st, nil
}

// run is the state of one Run.
type run struct {
	c        *Crawler
	domains  []string
	sched    *scheduler
	stats    *statsRecorder
	storeCtx context.Context
	cancel   context.CancelCauseFunc

	start   time.Time  // when the run started, whole milliseconds
	requeue Requeue    // which fetched URLs this run fetches again
	seen    *seenCache // keys the store answered for in this run
	// fetchSlots holds one token per worker between taking an entry and
	// the end of its fetch: Concurrency bounds the fetches in flight, not
	// the pages being stored (see work).
	fetchSlots chan struct{}

	mu     sync.Mutex
	err    error                 // first store failure
	hosts  map[string]*hostCount // --max-pages-per-host: per host of this run
	hinted map[string]bool       // hosts whose first read asked the store's hint (resume.go)

	bg sync.WaitGroup // background reads of the frontier (readBehind)

	// legacyPrivate: the store was written before private seeds were
	// recorded (see allowLegacyHost).
	legacyPrivate bool
}

// hostCount is a host's pages for MaxPagesPerHost: done (counted by the
// store at the host's first entry in the run, then here) and being
// fetched.
type hostCount struct{ done, fetching int }

// hostAdmits reserves a fetch of host under MaxPagesPerHost, and reports
// false when the host has its pages (its entries stay queued), or after a
// store failure. A reserved fetch is ended by hostDone.
func (r *run) hostAdmits(host string) bool {
	limit := r.c.cfg.MaxPagesPerHost
	if limit <= 0 {
		return true
	}
	r.mu.Lock()
	hc := r.hosts[host]
	r.mu.Unlock()
	if hc == nil {
		n, err := r.c.store.HostPages(r.storeCtx, host, limit)
		if err != nil {
			r.fail(fmt.Errorf("%w: counting the pages of %s: %w", ErrStore, host, err))
			return false
		}
		r.mu.Lock()
		if r.hosts == nil {
			r.hosts = make(map[string]*hostCount)
		}
		if hc = r.hosts[host]; hc == nil {
			hc = &hostCount{done: n}
			r.hosts[host] = hc
		}
		r.mu.Unlock()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if hc.done+hc.fetching >= limit {
		return false
	}
	hc.fetching++
	return true
}

// hostDone ends a fetch reserved by hostAdmits; done reports a page
// marked done.
func (r *run) hostDone(host string, done bool) {
	if r.c.cfg.MaxPagesPerHost <= 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	hc := r.hosts[host]
	hc.fetching--
	if done {
		hc.done++
	}
}

// refill reads the next frontier entries of host for the scheduler. An
// entry that cannot be read is named in one line and counted; a store
// failure stops the run.
func (r *run) refill(ctx context.Context, host, from string, n int) (FrontierBatch, error) {
	b, err := r.c.store.Next(r.storeCtx, host, r.startAt(host, from), n)
	if err != nil {
		r.fail(fmt.Errorf("%w: reading the frontier of %s: %w", ErrStore, host, err))
		return b, err
	}
	for _, bad := range b.Bad {
		r.stats.badEntry(r.c.cfg.Log, bad)
	}
	return b, nil
}

func (r *run) fail(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	r.cancel(err)
}

func (r *run) fatal() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// load fills the frontier: first the hosts the store's frontier holds
// (resume; their entries are read as they are needed), then the seeds not
// yet done (all of them with Recrawl). A run without seeds or allowed
// domains resumes every host queued and allows their domains.
func (r *run) load(ctx context.Context, seeds []*url.URL) error {
	anyDomain := len(r.domains) == 0
	err := r.c.store.Hosts(ctx, r.c.cfg.Shard, r.c.cfg.Shards, func(host string) bool {
		name := (&url.URL{Host: host}).Hostname()
		outside := false
		if anyDomain {
			r.domains = append(r.domains, RegistrableDomain(name))
		} else if !domainAllowed(name, r.domains) {
			outside = true // counted and left queued for a run that allows it
		}
		if err := r.allowLegacyHost(r.storeCtx, host); err != nil {
			r.fail(err)
			return false
		}
		r.sched.addHost(host, outside)
		return true
	})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("crawler: run stopped: %w", ctx.Err())
		}
		return fmt.Errorf("%w: reading queued hosts: %w", ErrStore, err)
	}
	r.domains = normDomains(r.domains)
	if len(seeds) == 0 {
		return nil
	}
	// NB: seeds of other shards' hosts are queued for their shard if new,
	// never queued again once fetched: that is their own shard's call (it
	// gets the same seeds). Requeued here, a failed seed that its shard
	// had just fetched again in this round was left queued at the end.
	var mine, others []Entry
	var hosts []string // of mine
	for _, u := range seeds {
		e := Entry{URL: u.String(), Key: urlkey.KeyOf(u), Depth: 0}
		if r.c.mine(u.Host) {
			mine = append(mine, e)
			hosts = append(hosts, u.Host)
		} else {
			others = append(others, e)
		}
	}
	if _, err := r.enqueueSeeds(others, Requeue{}); err != nil {
		return err
	}
	states, err := r.enqueueSeeds(mine, r.requeue)
	if err != nil {
		return err
	}
	for i, e := range mine {
		switch {
		case e.Frontier != "":
			r.sched.enqueued(hosts[i], e)
		case states[i] == StateQueued:
			r.sched.addHost(hosts[i], false) // queued by an earlier run
		}
	}
	return nil
}

// enqueueSeeds queues seed entries (setting their Frontier when queued)
// with requeue, and returns each one's prior state.
func (r *run) enqueueSeeds(entries []Entry, requeue Requeue) ([]State, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	states, err := r.c.store.Enqueue(r.storeCtx, entries, requeue)
	if err != nil {
		return nil, fmt.Errorf("%w: queueing seeds: %w", ErrStore, err)
	}
	if len(states) != len(entries) {
		return nil, fmt.Errorf("%w: Enqueue returned %d states for %d entries", ErrStore, len(states), len(entries))
	}
	return states, nil
}

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
func (r *run) fetchedInRun(f Fetch, ok bool) bool {
	if !ok {
		return false
	}
	switch f.State {
	case StateDone:
		return !r.c.cfg.Recrawl || !f.Time.Before(r.start)
	case StateFailed:
		return !f.Time.Before(r.start)
	}
	return false
}

// process fetches one entry, stores the result and queues its links.
// It reports whether the fetch succeeded (counts against MaxPages). It
// calls fetchOver once the page's fetch is over, before storing it (see
// work).
func (r *run) process(ctx context.Context, e Entry, fetchOver func()) bool {
	host := hostOf(e.URL)
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
	start := time.Now()
	p := &Page{URL: e.URL, Key: e.Key, Frontier: e.Frontier, FinalURL: e.URL, Depth: e.Depth,
		Time: start.Truncate(time.Millisecond), Requeue: r.requeue}
	r.stats.start()
	defer r.stats.end()
	// The store decides whether the URL is still to be fetched: an entry
	// queued twice (two pages saved at once) or reached meanwhile through
	// a redirect is not fetched again.
	last, ok, err := r.c.store.LastFetch(r.storeCtx, p.URL)
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

	if !r.c.cfg.IgnoreRobots {
		if err := r.c.rob.allowed(ctx, u); err != nil {
			if ctx.Err() != nil {
				return false // stopped before fetching: stays queued
			}
			if unavailable(err) {
				r.robotsUnavailable(e, u, host, err)
				return false
			}
			p.Err, p.ErrKind = err.Error(), KindRobots
			r.save(p, u)
			return false
		}
	}
	if r.sched.later(u.Scheme, host) {
		// NB: the robots.txt just fetched (or a redirect hop of another
		// worker) took the host's turn: the page waits for the next one
		// in the frontier, not in a worker that could fetch another host.
		r.sched.putBack(host, e)
		return false
	}

	hdr := http.Header{}
	hdr.Set("User-Agent", r.c.cfg.UserAgent)
	hdr.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8")
	if r.c.cfg.Recrawl && ok && last.SHA256 != "" {
		if last.ETag != "" {
			hdr.Set("If-None-Match", last.ETag)
		}
		if last.LastModified != "" {
			hdr.Set("If-Modified-Since", last.LastModified)
		}
	}

	id, capt := r.c.tr.register()
	defer r.c.tr.unregister(id)
	defer r.c.sched.unclaim(capt)
	hdr.Set(fetchIDHeader, id)
	err = r.c.colly.Request(http.MethodGet, p.URL, nil, nil, hdr)
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
	// NB: the host's next entry waits until the answer's pause or give-up
	// (a 429, a 5xx) is in place: freed before, another worker could
	// fetch from a host that had just asked to be left alone.
	retried := r.retry(e, host, u, p, capt)
	r.sched.fetchOver(host, e)
	if retried {
		return false // queued again; nothing stored yet
	}
	if p.NotModified {
		if !r.notModified(p, e, last) {
			return false
		}
	}
	fetched = r.save(p, u)
	return fetched
}

// notModified completes a 304: the validators, media type and charset of
// the stored content carry over, and the links of the stored content are
// followed (a recrawl must reach the pages behind an unchanged one). It
// returns false after a store failure.
func (r *run) notModified(p *Page, e Entry, last Fetch) bool {
	p.ETag = cmp.Or(p.ETag, last.ETag)
	p.LastModified = cmp.Or(p.LastModified, last.LastModified)
	p.MediaType = cmp.Or(p.MediaType, last.MediaType)
	p.Charset = cmp.Or(p.Charset, last.Charset)
	if !isHTML(p.MediaType) || p.Redirected {
		return true
	}
	body, ok, err := r.c.store.Content(r.storeCtx, p.URL)
	if err != nil {
		r.fail(fmt.Errorf("%w: content of %s: %w", ErrStore, p.URL, err))
		return false
	}
	if !ok {
		return true
	}
	ct := "text/html"
	if p.Charset != "" {
		ct += "; charset=" + p.Charset
	}
	final, err := urlkey.Canonical(p.FinalURL)
	if err != nil {
		return true
	}
	r.links(p, e, final, extract.Extract(body, ct))
	return true
}

// retry decides whether a fetch answered with 429 or a 5xx is tried again
// in this run (at most MaxRetries times). If so it pauses the host for the
// server's Retry-After or an exponential backoff from retryBase (capped at
// MaxCrawlDelay), queues the entry again and returns true. A Retry-After
// beyond MaxCrawlDelay is honoured by leaving the host alone until then
// (scheduler.giveUp): the page is recorded as failed, the host's other
// entries stay queued.
func (r *run) retry(e Entry, host string, u *url.URL, p *Page, capt *capture) bool {
	if p.Status != http.StatusTooManyRequests && p.Status < 500 {
		return false
	}
	n := e.tries
	if n >= MaxRetries {
		return r.otherScheme(e, host, u, p, capt)
	}
	e.tries++
	final := u
	if capt.resp.Request != nil && capt.resp.Request.URL != nil {
		final = capt.resp.Request.URL
	}
	wait := r.c.retryBase << n
	if ra, ok := retryAfter(capt.resp.Header.Get("Retry-After"), time.Now()); ok {
		if ra > MaxCrawlDelay {
			// Honour the server without waiting longer than the cap: no
			// more requests to the host until then, in this run or a
			// later run of this Crawler; its entries stay queued in the
			// store.
			p.Err += fmt.Sprintf(" (Retry-After %v is beyond %v: origin left for a later run)", ra, MaxCrawlDelay)
			detail := fmt.Sprintf("%d with Retry-After %v", p.Status, ra.Round(time.Second))
			fh := serverKey(final.Scheme, final.Host)
			until := time.Now().Add(ra)
			if r.sched.hold(final.Scheme, fh, HoldRetryAfter, detail, until) {
				r.logOrigin(final.Scheme+"://"+fh, HoldRetryAfter, detail, until)
			}
			return false
		}
		wait = ra
	}
	wait = min(wait, MaxCrawlDelay)
	r.sched.pause(final.Scheme, serverKey(final.Scheme, final.Host), wait)
	r.sched.retry(host, e)
	cause := RetryServerError
	if p.Status == http.StatusTooManyRequests {
		cause = RetryTooMany
	}
	r.stats.retried(cause)
	return true
}

// retryAfter parses a Retry-After header: delay-seconds or an HTTP date.
// Delays beyond a day are reported as a day.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	const day = 24 * time.Hour
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return time.Duration(min(secs, int64(day/time.Second))) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), day), true
	}
	return 0, false
}

// stopped reports whether err comes from the run stopping.
func (r *run) stopped(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, errStopped) || errors.Is(err, context.Canceled))
}

// fill completes p from what the transport captured and colly returned.
func (r *run) fill(p *Page, e Entry, u *url.URL, capt *capture, err error) {
	cfg := &r.c.cfg
	if capt.resp == nil || err != nil {
		p.Err, p.ErrKind = errText(err), errKind(err)
		if capt.resp != nil {
			p.Status = capt.resp.StatusCode
		}
		return
	}
	resp := capt.resp
	final := u
	// NB: only a followed redirect changes the URL; with one hop the final
	// URL is the requested one even if colly's URL parser spelled it
	// differently on the wire.
	if capt.hops > 1 && resp.Request != nil && resp.Request.URL != nil {
		if fu, ferr := urlkey.Canonical(resp.Request.URL.String()); ferr == nil {
			final = fu
		}
	}
	p.FinalURL = final.String()
	p.Redirected = urlkey.KeyOf(final) != urlkey.KeyOf(u)
	p.Status = resp.StatusCode
	p.ETag = resp.Header.Get("ETag")
	p.LastModified = resp.Header.Get("Last-Modified")
	ct := resp.Header.Get("Content-Type")
	if mt, params, perr := mime.ParseMediaType(ct); perr == nil {
		p.MediaType = strings.ToLower(mt)
		p.Charset = strings.ToLower(params["charset"])
	} else if ct != "" {
		mt, _, _ := strings.Cut(ct, ";")
		p.MediaType = strings.ToLower(strings.TrimSpace(mt))
	}
	p.Length = int64(len(capt.body))
	p.Truncated = capt.truncated
	r.stats.bytes(p.Length)

	switch {
	case resp.StatusCode == http.StatusNotModified:
		p.NotModified = true
		return
	case resp.StatusCode >= 400:
		p.Err, p.ErrKind = fmt.Sprintf("http status %d %s", resp.StatusCode, http.StatusText(resp.StatusCode)), KindHTTP
		return
	case resp.StatusCode >= 300:
		// A redirect not followed: its target was met in this run (see
		// checkRedirect), or it had no usable Location. No content.
		if loc, err := resp.Location(); err == nil {
			if lu, err := urlkey.Canonical(loc.String()); err == nil && urlkey.KeyOf(lu) != urlkey.KeyOf(final) {
				p.Location = lu.String()
				if r.c.admit(lu, p.Location, r.domains) == otherShard {
					// Another shard's host (see checkRedirect): queued
					// for that shard at the depth of the page.
					p.Discovered = append(p.Discovered, Entry{URL: p.Location, Key: urlkey.KeyOf(lu), Depth: p.Depth})
				}
			}
		}
		return
	}
	if sniffed(p.MediaType) && len(capt.body) > 0 {
		p.MediaType, _, _ = strings.Cut(http.DetectContentType(capt.body), ";")
	}
	html := isHTML(p.MediaType)
	if html || cfg.StoreAll {
		p.Body = capt.body
		if p.Body == nil {
			p.Body = []byte{}
		}
		p.SHA256 = SHA256Hex(p.Body)
		p.Header = wireHeader(resp, capt.encoding)
	}
	if !html {
		return
	}
	ex := extract.Extract(capt.body, ct)
	if p.Charset == "" {
		p.Charset = ex.Charset
	}
	r.links(p, e, final, ex)
}

// isHTML reports whether a response of this media type is an HTML page.
func isHTML(mediaType string) bool {
	return mediaType == "text/html" || mediaType == "application/xhtml+xml"
}

// sniffed reports whether a declared media type is replaced by the one
// sniffed from the body: when it is missing or says "unknown", as in the
// WHATWG MIME Sniffing standard (a declared type, even a wrong one such as
// text/plain for HTML or text/html for a binary, is trusted).
func sniffed(mediaType string) bool {
	switch mediaType {
	case "", "unknown/unknown", "application/unknown", "*/*":
		return true
	}
	return false
}

// save hands p to the store, queues the new links and updates the
// statistics. It reports whether the fetch succeeded.
func (r *run) save(p *Page, u *url.URL) bool {
	res, err := r.c.store.SavePage(r.storeCtx, p)
	if err != nil {
		r.fail(fmt.Errorf("%w: saving %s: %w", ErrStore, p.URL, err))
		return false
	}
	if len(res.States) != len(p.Discovered) {
		r.fail(fmt.Errorf("%w: SavePage returned %d states for %d links", ErrStore, len(res.States), len(p.Discovered)))
		return false
	}
	// Every discovered URL is now queued or needs nothing more in this run
	// (see seenCache), as is the page.
	keys := make([]string, 0, len(p.Discovered)+1)
	for _, e := range p.Discovered {
		keys = append(keys, e.Key)
	}
	r.seen.add(append(keys, p.Key)...)
	// The store queued what it had not seen (Frontier set): those of this
	// shard's hosts go to the scheduler; the rest wait in the store.
	for _, e := range p.Discovered {
		if e.Frontier == "" {
			continue
		}
		if host := hostOf(e.URL); r.c.mine(host) {
			r.sched.enqueued(host, e)
		}
	}
	r.stats.page(p, res.NewVersion, r.sched)
	return p.Err == ""
}

// links resolves, canonicalises and filters the raw links of a page.
// Links whose URLs differ only in session-id parameters count as one
// target (see frontierKey); a link continuing a chain of more than
// MaxPatternChain hops within one URL pattern is not followed.
func (r *run) links(p *Page, e Entry, final *url.URL, ex extract.Links) {
	var linkURLs []*url.URL // the parsed URL of each of p.Links
	p.Links, linkURLs, p.LinksFound = resolveLinks(final, ex, r.c.cfg.MaxLinks, r.stats.trap)
	follow := p.Depth < r.c.cfg.Depth
	if !follow {
		return
	}
	pattern := urlPattern(final)
	for i, l := range p.Links {
		if l.NoFollow {
			continue
		}
		lu := linkURLs[i]
		if r.c.admit(lu, l.URL, r.domains) == refusedDomain {
			continue // traps never made it into p.Links
		}
		// Whether the URL was seen is the store's to say (SavePage reads
		// the state of every discovered URL in one batch); the cache only
		// spares it the URLs it answered for already in this run.
		su := withoutSession(lu)
		sk := urlkey.KeyOf(su)
		if r.seen.has(sk) {
			continue
		}
		chain := 0
		if urlPattern(lu) == pattern {
			if chain = e.Chain + 1; chain > MaxPatternChain {
				r.stats.trap()
				continue
			}
		}
		// NB: queued without session ids, so that the store, which keys
		// what it has seen by URL, sees one URL however many ids link to it.
		p.Discovered = append(p.Discovered, Entry{URL: su.String(), Key: sk, Depth: p.Depth + 1, Chain: chain})
	}
}

// resolveLinks resolves and canonicalises the raw links of the page at
// final: one Link per distinct target (links whose URLs differ only in
// session-id parameters count as one, see frontierKey), resolved against
// <base>, traps and links to the page itself left out, at most maxLinks
// kept in document order. It returns the kept links, the parsed URL of
// each, and how many distinct targets were found; onTrap, if not nil, is
// called for each trap left out.
func resolveLinks(final *url.URL, ex extract.Links, maxLinks int, onTrap func()) (links []Link, urls []*url.URL, found int) {
	base := final
	if ex.Base != "" {
		if b, err := final.Parse(ex.Base); err == nil && (b.Scheme == "http" || b.Scheme == "https") {
			base = b
		}
	}
	self := frontierKey(final)
	index := make(map[string]int, len(ex.Links))
	for _, l := range ex.Links {
		if l.Href == "" || len(l.Href) > 4*MaxURLLength {
			continue
		}
		ref, err := base.Parse(l.Href)
		if err != nil || (ref.Scheme != "http" && ref.Scheme != "https") {
			continue
		}
		cu, err := urlkey.Canonical(ref.String())
		if err != nil {
			continue
		}
		s := cu.String()
		if isTrap(cu, s) {
			if onTrap != nil {
				onTrap()
			}
			continue
		}
		key := frontierKey(cu)
		if key == self {
			continue
		}
		nofollow := l.NoFollow || ex.MetaNoFollow
		if i, ok := index[key]; ok {
			if i < 0 {
				continue
			}
			if links[i].Text == "" {
				links[i].Text = l.Text
			}
			links[i].NoFollow = links[i].NoFollow && nofollow
			continue
		}
		found++
		if len(links) >= maxLinks {
			index[key] = -1 // found, not kept: counted once
			continue
		}
		index[key] = len(links)
		links = append(links, Link{URL: s, Text: l.Text, NoFollow: nofollow})
		urls = append(urls, cu)
	}
	return links, urls, found
}

// checkRedirect vets each redirect hop (colly calls it through
// SetRedirectHandler): at most MaxRedirects, http and https only, no loop
// back to a URL of the chain, a canonical URL within the allowed domains
// and not a trap, of this crawler's shard, allowed by robots.txt, and not
// met before in this run. It strips user info, Authorization and Cookie
// from every hop.
func (c *Crawler) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return &redirectError{fmt.Sprintf("more than %d redirects", MaxRedirects)}
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return &redirectError{fmt.Sprintf("redirect to a %s: URL", req.URL.Scheme)}
	}
	// NB: net/http would turn user info in a Location into an
	// Authorization header for the next host. Never send credentials.
	req.URL.User = nil
	req.Header.Del("Authorization")
	req.Header.Del("Cookie")
	u, err := urlkey.Canonical(req.URL.String())
	if err != nil {
		return &redirectError{fmt.Sprintf("redirect to a bad URL: %v", err)}
	}
	for _, v := range via {
		if v.URL.String() == req.URL.String() {
			return &redirectError{fmt.Sprintf("redirect loop back to %s", u)}
		}
	}
	c.domainsMu.RLock()
	domains := c.domains
	c.domainsMu.RUnlock()
	switch c.admit(u, u.String(), domains) {
	case refusedTrap:
		return &redirectError{"redirect to a crawler trap"}
	case refusedDomain:
		return &redirectError{fmt.Sprintf("redirect to %s, outside the allowed domains", u.Hostname())}
	case otherShard:
		// Another shard's host: not fetched (nor its robots.txt) here. The
		// 3xx is recorded with its Location, queued for that shard.
		return http.ErrUseLastResponse
	}
	if !c.cfg.IgnoreRobots {
		if err := c.rob.allowed(req.Context(), u); err != nil {
			return &redirectError{fmt.Sprintf("redirect to %s: %v", u, err)}
		}
	}
	// At most one fetch per URL per crawl: a target already met (fetched or
	// queued) is not fetched through the redirect; the 3xx is recorded with
	// its Location. A target with the requested URL's key (http -> https)
	// is the same page and always followed.
	if orig, err := urlkey.Canonical(via[0].URL.String()); err != nil || frontierKey(orig) != frontierKey(u) {
		key := urlkey.KeyOf(u)
		// Not a target another worker is fetching now (its entry, or a
		// redirect to it)...
		if !c.sched.claim(req.Header.Get(fetchIDHeader), c.tr, u.Host, key) {
			return http.ErrUseLastResponse
		}
		// ...nor one the store says was fetched in this run, or done
		// before it unless recrawling. A store error only costs a fetch.
		c.domainsMu.RLock()
		start := c.runStart
		c.domainsMu.RUnlock()
		if f, ok, err := c.store.LastFetch(context.WithoutCancel(req.Context()), u.String()); err == nil && ok {
			if (f.State == StateDone && (!c.cfg.Recrawl || !f.Time.Before(start))) || (f.State == StateFailed && !f.Time.Before(start)) {
				return http.ErrUseLastResponse
			}
		}
	}
	return nil
}

// nextMillisecond waits for the next whole millisecond (at most 1 ms) and
// returns it. A run starts there so that every fetch of an earlier run
// (whose times are stored in whole milliseconds) is strictly before it,
// and every fetch of this run at or after it: the store tells the two
// apart by time alone (Requeue.Before).
func nextMillisecond() time.Time {
	now := time.Now()
	next := now.Truncate(time.Millisecond).Add(time.Millisecond)
	time.Sleep(next.Sub(now))
	return next
}

// hostOf returns the host (with its port) of a canonical URL, as
// url.URL.Host holds it, without parsing the rest.
func hostOf(canonical string) string {
	_, rest, ok := strings.Cut(canonical, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// redirectError is a redirect hop refused by checkRedirect.
type redirectError struct{ msg string }

func (e *redirectError) Error() string { return "crawler: " + e.msg }

// errKind classifies a fetch error.
func errKind(err error) ErrorKind {
	var re *redirectError
	var be *bodyError
	var ne interface{ Timeout() bool }
	switch {
	case errors.As(err, &re):
		return KindRedirect
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return KindTimeout
	case errors.As(err, &be):
		return KindBody
	}
	return KindNetwork
}

// errText is the recorded text of a fetch error.
func errText(err error) string {
	if err == nil {
		return "no response"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

func normDomains(ds []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range ds {
		d = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")
		if d != "" && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}
