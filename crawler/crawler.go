package crawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/webtable/webtable/crawlstore"
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
	store *boundStore // cut off Config.StoreGrace after a run's interrupt
	sched *scheduler
	tr    *transport
	rob   *robots
	colly *colly.Collector

	running sync.Mutex
	cur     current // the run in progress or the last one (Stats)

	// retryBase is the first backoff before fetching again after a 429 or
	// 5xx without Retry-After; it doubles with each attempt.
	retryBase time.Duration

	// clock is Config.Clock or the system's; budget spends Config.Budget
	// (nil: none) and due computes due times (continuous.go).
	clock  Clock
	budget *tokenBucket
	due    *duePolicy

	domainsMu sync.RWMutex
	domains   []string  // allowed domains of the current run
	runStart  time.Time // when the current run started
}

// New returns a Crawler for cfg that stores into store.
func New(cfg Config, store crawlstore.Store) (*Crawler, error) {
	if store == nil {
		return nil, fmt.Errorf("%w: nil store", ErrConfig)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg.AllowDomains = normDomains(cfg.AllowDomains)
	c := &Crawler{cfg: cfg, store: &boundStore{s: store}, retryBase: time.Second, clock: cfg.Clock}
	if c.clock == nil {
		c.clock = realClock{}
	}
	c.budget, c.due = newTokenBucket(cfg.Budget, c.clock), newDuePolicy(&cfg)
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
	cut, release := CutOff(ctx, c.cfg.StoreGrace)
	defer release()
	c.store.cut = cut

	seedURLs, domains, err := c.seedsAndDomains(seeds)
	if err != nil {
		return Stats{}, err
	}
	r := c.newRun(ctx, domains, maxPages)
	defer r.cancel(nil)
	if err := r.loadFrontier(seedURLs); err != nil {
		return r.stats.snapshot(r.sched), err
	}
	c.cur.Store(r)
	c.domainsMu.Lock()
	c.domains, c.runStart = r.domains, r.start
	c.domainsMu.Unlock()

	r.runWorkers()
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

// newRun returns the state of a run of c under ctx with the allowed
// domains and its own limit of successful fetches (0 = no limit), its
// context (runCtx) derived from ctx, and c's transport set to stop with
// it and to report to it. The caller cancels r.cancel at the end.
func (c *Crawler) newRun(ctx context.Context, domains []string, maxPages int) *run {
	r := &run{
		c:       c,
		domains: domains,
		stats:   newStatsRecorder(c.cfg.Progress),
		start:   c.startTime(),
		seen:    newSeenCache(c.cfg.SeenCache),
	}
	// Politeness state (last request per host, Crawl-delays) outlives
	// runs; the frontier starts empty and is read from the store.
	r.sched = c.sched.forRun(maxPages, r.refill)
	r.requeue = crawlstore.Requeue{Failed: true, Done: c.cfg.Recrawl, Before: r.start}
	c.rob.setBackoff(c.retryBase)

	r.runCtx, r.cancel = context.WithCancelCause(ctx)
	r.sm = sitemapRun{origins: map[string]bool{}, files: map[string]bool{}}
	c.tr.setStop(r.runCtx)

	c.tr.setReport(r.requestFailed)
	// Store calls outlive Ctrl-C so that pages in flight are stored.
	r.storeCtx = context.WithoutCancel(ctx)
	return r
}

// loadFrontier readies the run's frontier: it sets the private seed
// addresses, holds back again the origins an earlier run was asked to
// leave alone, fills the frontier from the store and seedURLs, and starts
// reading the sitemaps due and (unless Config.NoSitemaps)
// Config.Sitemaps in the background.
func (r *run) loadFrontier(seedURLs []*url.URL) error {
	if err := r.allowSeeds(r.storeCtx, seedURLs); err != nil {
		return err
	}
	if err := r.loadHolds(r.runCtx); err != nil {
		return err
	}
	if err := r.load(r.runCtx, seedURLs); err != nil {
		return err
	}
	if err := r.readDueSitemaps(); err != nil { // continuous_sitemap_due.go
		return err
	}
	if !r.c.cfg.NoSitemaps {
		for _, s := range r.c.cfg.Sitemaps {
			r.readSitemapLater(s, 0)
		}
	}
	return nil
}

// runWorkers runs the run's workers until the frontier is spent or the
// run stops, then waits for the feed of other shards' hosts and the
// background reads to end.
func (r *run) runWorkers() {
	// NB: twice as many workers as fetch slots (see work), so that pages
	// are stored while others are fetched; one worker keeps Concurrency 1
	// one page at a time.
	workers := r.c.cfg.Concurrency
	if workers > 1 {
		workers *= 2
	}
	r.fetchSlots = make(chan struct{}, r.c.cfg.Concurrency)
	stopFeed := r.feed() // resume.go: the hosts other shards queue for this one
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work(r.runCtx)
		}()
	}
	wg.Wait()
	stopFeed()
	r.sched.close()
	r.bg.Wait()
}

// seedsAndDomains canonicalises the seeds and returns them with the
// run's allowed domains: Config.AllowDomains, else the seeds' registrable
// domains.
func (c *Crawler) seedsAndDomains(seeds []string) ([]*url.URL, []string, error) {
	seedURLs := make([]*url.URL, 0, len(seeds))
	for _, s := range seeds {
		u, err := urlkey.Canonical(s)
		if err != nil {
			return nil, nil, fmt.Errorf("%w %q: %w", ErrSeed, s, err)
		}
		seedURLs = append(seedURLs, u)
	}
	domains := c.cfg.AllowDomains
	if len(domains) == 0 {
		for _, u := range seedURLs {
			domains = append(domains, RegistrableDomain(u.Hostname()))
		}
		for _, s := range c.cfg.Sitemaps {
			if u, err := urlkey.Canonical(s); err == nil && !c.cfg.NoSitemaps {
				domains = append(domains, RegistrableDomain(u.Hostname()))
			}
		}
		domains = normDomains(domains)
	}
	return seedURLs, domains, nil
}

// run is the state of one Run.
type run struct {
	c        *Crawler
	domains  []string
	sched    *scheduler
	stats    *statsRecorder
	storeCtx context.Context
	cancel   context.CancelCauseFunc
	runCtx   context.Context // cancelled when the run stops
	sm       sitemapRun

	start   time.Time          // when the run started, whole milliseconds
	requeue crawlstore.Requeue // which fetched URLs this run fetches again
	seen    *seenCache         // keys the store answered for in this run
	// fetchSlots holds one token per worker between taking an entry and
	// the end of its fetch: Concurrency bounds the fetches in flight, not
	// the pages being stored (see work).
	fetchSlots chan struct{}

	mu     sync.Mutex
	err    error                 // first store failure
	hosts  map[string]*hostCount // --max-pages-per-host: per host of this run
	hinted map[string]bool       // hosts whose first read asked the store's hint (resume.go)

	bg sync.WaitGroup // background reads of the frontier (readBehind)
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

// startTime is when a run starts: the next whole millisecond, on the
// Config.Clock when there is one (which tests move on themselves).
func (c *Crawler) startTime() time.Time {
	if c.cfg.Clock != nil {
		return c.cfg.Clock.Now().Truncate(time.Millisecond).Add(time.Millisecond)
	}
	return nextMillisecond()
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
