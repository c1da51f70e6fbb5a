package crawler

import (
	"maps"
	"sync"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// Stats is a snapshot of a run's progress, for progress bars and the
// closing summary.
type Stats struct {
	// Fetched counts successful fetches (state done, 304s included). It is
	// what Config.MaxPages limits.
	Fetched int64
	// NewVersions counts fetches that stored a new content version (as
	// reported by Store.SavePage).
	NewVersions int64
	// Unchanged counts successful fetches that stored no new version: 304s,
	// unchanged bodies, and responses without a stored body (non-HTML).
	Unchanged int64
	// Redirects counts fetches answered by a redirect to a different row
	// key (followed or not).
	Redirects int64
	// Errors counts failed fetches, robots.txt refusals included;
	// ErrorsByKind splits them.
	Errors       int64
	ErrorsByKind map[crawlstore.ErrorKind]int64
	// ByStatusClass counts the pages stored (Fetched plus Errors) by the
	// class of their HTTP status: [1] to [5] for 1xx to 5xx, [0] for no
	// response (a failure, a robots.txt refusal).
	ByStatusClass [6]int64
	// Traps counts links refused as crawler traps.
	Traps int64
	// Retries counts fetches tried again: after 429, a 5xx, or a
	// robots.txt that could not be had; RetriesBy splits them by cause.
	Retries   int64
	RetriesBy map[RetryCause]int64
	// Failures counts requests (pages, robots.txt, redirect hops) that got
	// no HTTP response, by kind: a refused connection, a proxy refusing
	// CONNECT, a TLS failure, a reset, a timeout...
	Failures map[FailureKind]int64
	// HeldBack lists, in the last snapshot of a run, the entries left
	// queued on purpose, by origin and reason, most entries first.
	HeldBack []crawlstore.HeldBack
	// MaxPagesReached is true in the last snapshot of a run that stopped
	// at its MaxPages with entries still to fetch.
	MaxPagesReached bool
	// BadEntries counts frontier entries skipped because they could not be
	// read (each named once through Config.Log).
	BadEntries int64
	// Bytes counts body bytes received (after Content-Encoding, at most
	// MaxBody per response).
	Bytes int64
	// Queued is the number of entries waiting in this run's frontier;
	// InFlight the number being fetched or stored.
	Queued, InFlight int64
	// Idle is the worker-time (one worker for one second adds a second)
	// the Concurrency workers spent waiting, for an entry or for a host's
	// turn. IdleReady is the part of it during which a host was due for
	// the idle worker (its entry could be handed out and its request
	// start): the integral of min(idle workers, hosts due). IdleReady near
	// zero means that whenever enough hosts were due, every worker was
	// busy; the rest of Idle is workers with no host to fetch from.
	Idle, IdleReady time.Duration
	// Sitemaps counts what was read of sitemaps.
	Sitemaps SitemapStats
	// Elapsed is the time since Run started.
	Elapsed time.Duration
	// Done is true in the last snapshot of a run.
	Done bool
}

// PagesPerSecond is Fetched per second of Elapsed.
func (s Stats) PagesPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Fetched) / s.Elapsed.Seconds()
}

// statsRecorder accumulates Stats and calls the progress callback, one call
// at a time.
type statsRecorder struct {
	progress func(Stats)
	begin    time.Time

	mu sync.Mutex
	s  Stats
}

func newStatsRecorder(progress func(Stats)) *statsRecorder {
	return &statsRecorder{progress: progress, begin: time.Now(), s: Stats{
		ErrorsByKind: map[crawlstore.ErrorKind]int64{}, RetriesBy: map[RetryCause]int64{}, Failures: map[FailureKind]int64{},
	}}
}

func (r *statsRecorder) start() {
	r.mu.Lock()
	r.s.InFlight++
	r.mu.Unlock()
}

func (r *statsRecorder) end() {
	r.mu.Lock()
	r.s.InFlight--
	r.mu.Unlock()
}

func (r *statsRecorder) bytes(n int64) {
	r.mu.Lock()
	r.s.Bytes += n
	r.mu.Unlock()
}

func (r *statsRecorder) retried(cause RetryCause) {
	r.mu.Lock()
	r.s.Retries++
	r.s.RetriesBy[cause]++
	r.mu.Unlock()
}

func (r *statsRecorder) failure(k FailureKind) {
	r.mu.Lock()
	r.s.Failures[k]++
	r.mu.Unlock()
}

// badEntry counts a frontier entry that could not be read and logs its
// line.
func (r *statsRecorder) badEntry(log func(string), line string) {
	r.mu.Lock()
	r.s.BadEntries++
	r.mu.Unlock()
	if log != nil {
		log("skipping a frontier entry that cannot be read: " + line)
	}
}

func (r *statsRecorder) trap() {
	r.mu.Lock()
	r.s.Traps++
	r.mu.Unlock()
}

// page counts a stored page and reports progress.
func (r *statsRecorder) page(p *crawlstore.Page, newVersion bool, sched *scheduler) {
	q, _ := sched.queued()
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case p.Err != "":
		r.s.Errors++
		r.s.ErrorsByKind[p.ErrKind]++
	case newVersion:
		r.s.Fetched++
		r.s.NewVersions++
	default:
		r.s.Fetched++
		r.s.Unchanged++
	}
	if p.Redirected || p.Location != "" {
		r.s.Redirects++
	}
	if c := p.Status / 100; c >= 1 && c <= 5 {
		r.s.ByStatusClass[c]++
	} else {
		r.s.ByStatusClass[0]++
	}
	r.s.Queued = int64(q)
	if r.progress != nil {
		r.progress(r.copyLocked())
	}
}

func (r *statsRecorder) copyLocked() Stats {
	s := r.s
	s.ErrorsByKind = maps.Clone(r.s.ErrorsByKind)
	s.RetriesBy = maps.Clone(r.s.RetriesBy)
	s.Failures = maps.Clone(r.s.Failures)
	s.Elapsed = time.Since(r.begin)
	return s
}

// snapshot returns the current statistics.
func (r *statsRecorder) snapshot(sched *scheduler) Stats {
	q, _ := sched.queued()
	use := sched.usage()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.s.Queued = int64(q)
	r.s.Idle, r.s.IdleReady = use.idle, use.lost
	return r.copyLocked()
}

// finish returns the final statistics and reports them once more.
func (r *statsRecorder) finish(sched *scheduler) Stats {
	q, _ := sched.queued()
	use := sched.usage()
	held := sched.heldBack()
	capped := sched.capped()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.s.Queued = int64(q)
	r.s.Idle, r.s.IdleReady = use.idle, use.lost
	r.s.InFlight = 0
	r.s.Done = true
	r.s.HeldBack, r.s.MaxPagesReached = held, capped
	s := r.copyLocked()
	if r.progress != nil {
		r.progress(s)
	}
	return s
}
