package crawler

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// errStopped is returned by scheduler waits when the run stops.
var errStopped = errors.New("crawler: run stopped")

// DefaultWindow is how many frontier entries of one host the scheduler
// keeps in memory; the rest stay in the store until the host's window runs
// low.
const DefaultWindow = 32

// refillFunc reads the next entries of host from the store's frontier,
// from position from on (see Store.Next).
type refillFunc func(ctx context.Context, host, from string, n int) (crawlstore.FrontierBatch, error)

// scheduler is the crawler's one per-host scheduler. It owns, for every host
// (URL.Host, port included):
//
//   - the frontier window of this run: at most window entries per host
//     taken from the store's frontier (in order of discovery within a
//     host), with a cursor where the next read of the host starts. The
//     store holds every entry; memory holds a few per host, so it does not
//     grow with the URLs discovered. Hosts with work sit in a heap keyed by
//     the time each may next start a request, so a pop is O(log hosts),
//     and no more than PerHost workers hold entries of one host;
//   - politeness: acquire, called by the transport for every request on the
//     wire (robots.txt, pages, each redirect hop), waits for the host's
//     turn. With no delay (max(Delay, Crawl-delay) = 0) that is while
//     PerHost requests to the host are in flight. With a delay, requests
//     to the host never overlap, and one starts no sooner than the delay
//     after the previous one's response was read (or failed): the server
//     stamps a request somewhere between the client writing it and the
//     client reading its response, so counting from the response's end is
//     what guarantees, whatever the load on either side, that the server
//     never sees two requests to one host closer than the delay (Heritrix
//     counts the same way). A host with a delay therefore gives one worker
//     at a time an entry.
//
// NB: the two per-host counts differ on purpose. A worker holding an entry
// of host A may be fetching a redirect hop on host B; counting that hop
// against B's in-flight requests (not A's entries) keeps the limit true on
// the wire, and since a slot is held only for one request and never while
// waiting for another, no wait cycle can form.
//
// Waking: a worker waiting in pop is woken alone by a change that may give
// it work; a worker that takes an entry wakes the next one when more work
// is ready. Of the workers waiting in pop only one, the timekeeper, sleeps
// with a timer set to when the soonest host becomes ready; the others wait
// for a signal, so a host coming due wakes one worker, not all of them.
// Signals go to the timekeeper first (it re-arms its timer when it finds no
// work), and a worker that leaves pop with an entry while others wait and
// no timekeeper is left wakes one to take that role. Waiters in acquire are
// woken together by their host's changes of politeness state (a release, a
// pause, a Crawl-delay).
//
// Busy workers: the scheduler integrates over time how many workers were
// idle (waiting in pop or in acquire) and how many of them had a host due
// (an entry could be handed out and its request start); see usage.
type scheduler struct {
	perHost int
	delay   time.Duration
	window  int
	refill  refillFunc

	mu       sync.Mutex
	waiters  []chan struct{} // workers waiting in pop without a timer, first in line first
	keeper   chan struct{}   // the worker waiting in pop with a timer; nil: none
	idle     int             // workers waiting in pop or acquire
	woken    int             // times a worker waiting in pop woke up (tests)
	acctAt   time.Time       // when usage was last brought up to date
	use      usage
	dueBuf   []time.Time // dueTime's buffers, reused
	stackBuf []int
	hosts    map[string]*hostState
	ready    hostHeap            // hosts with work and fewer than perHost entries held
	held     int                 // entries handed to workers, not yet done
	inWindow int                 // entries in the windows
	work     int                 // hosts with window entries, more in the store, or a refill under way
	budget   int                 // entries that may still be handed out; -1 = no limit
	claims   map[string]struct{} // row keys of redirect targets being fetched
	aside    map[asideKey]int64  // entries set aside in this run, by origin and reason
	idleQ    []*hostState        // hosts that became idle, to be pruned (sched_prune.go)
	checks   int                 // background reads that may still queue entries (readBehind)
	closed   bool
}

type hostState struct {
	name       string
	window     []entry // entries to hand out, in order
	head       int
	cursor     string         // where the next read of the store starts
	more       bool           // the store may hold entries at or after cursor not in window
	filling    bool           // a refill is under way
	low        string         // during a refill: the lowest position queued meanwhile
	lowSet     bool           //
	holding    []string       // row keys of the entries held by workers
	over       []string       // those of holding whose fetch is over (being stored)
	idx        int            // index in the ready heap, -1 when not in it
	working    bool           // counted in scheduler.work
	inflight   int            // requests on the wire
	last       time.Time      // when the last request ended (response read, or failed)
	changed    chan struct{}  // acquire's waiters on h: closed and replaced on every politeness change
	base       time.Duration  // Config.Delay
	crawl      time.Duration  // Crawl-delay from robots.txt, capped
	isFull     bool           // has its MaxPagesPerHost: its entries are set aside in this run
	outside    bool           // outside the run's allowed domains: likewise
	orig       [2]originState // the host's origins, by schemeIndex
	portless   bool           // the host has no port: its URLs exist on both schemes
	idleQueued bool           // in scheduler.idleQ (sched_prune.go)
}

func newScheduler(perHost int, delay time.Duration, maxPages int) *scheduler {
	s := &scheduler{
		perHost: perHost,
		delay:   delay,
		window:  DefaultWindow,
		hosts:   make(map[string]*hostState),
	}
	return s.reset(maxPages)
}

// lock takes s.mu and brings the usage figures up to now: every change of
// what they depend on (the ready heap, the idle count, the budget) happens
// under s.mu taken this way.
func (s *scheduler) lock() {
	s.mu.Lock()
	s.account(time.Now())
}

// reset empties the frontier for a new run. Callers hold s.mu or own s.
func (s *scheduler) reset(maxPages int) *scheduler {
	for _, h := range s.hosts {
		h.window, h.head, h.cursor, h.more, h.filling, h.lowSet = nil, 0, "", false, false, false
		h.holding, h.over, h.idx, h.working, h.isFull, h.outside = nil, nil, -1, false, false, false
		for i := range h.orig {
			h.orig[i].forRun()
		}
	}
	s.aside = nil
	clear(s.ready)
	s.ready = s.ready[:0]
	s.held, s.work, s.inWindow, s.checks = 0, 0, 0, 0
	s.budget = -1
	if maxPages > 0 {
		s.budget = maxPages
	}
	s.closed = false
	s.use, s.acctAt = usage{}, time.Time{}
	return s
}

// forRun empties the frontier for a new run reading refills through
// refill, keeping the politeness state of every host, and returns s.
func (s *scheduler) forRun(maxPages int, refill refillFunc) *scheduler {
	s.lock()
	defer s.mu.Unlock()
	s.refill = refill
	return s.reset(maxPages)
}

// signal wakes one worker waiting in pop: the timekeeper if there is one,
// else the first in line. Callers hold s.mu.
func (s *scheduler) signal() {
	if s.keeper != nil {
		ch := s.keeper
		s.keeper = nil
		ch <- struct{}{}
		return
	}
	if len(s.waiters) > 0 {
		ch := s.waiters[0]
		s.waiters = s.waiters[1:]
		ch <- struct{}{}
	}
}

// wakeAll wakes every worker waiting in pop. Callers hold s.mu.
func (s *scheduler) wakeAll() {
	if s.keeper != nil {
		s.keeper <- struct{}{}
		s.keeper = nil
	}
	for _, ch := range s.waiters {
		ch <- struct{}{}
	}
	s.waiters = nil
}

// waiting returns the number of workers waiting in pop. Callers hold s.mu.
func (s *scheduler) waiting() int {
	n := len(s.waiters)
	if s.keeper != nil {
		n++
	}
	return n
}

func (s *scheduler) host(name string) *hostState {
	h := s.hosts[name]
	if h == nil {
		h = &hostState{name: name, idx: -1, base: s.delay, portless: !hasPort(name)}
		s.hosts[name] = h
	}
	return h
}

// hasPort reports whether a host as url.URL.Host holds it names a port.
func hasPort(host string) bool {
	return strings.LastIndexByte(host, ':') > strings.LastIndexByte(host, ']')
}

// hasWork reports whether h has entries to hand out now or in the store.
func (h *hostState) hasWork() bool { return h.head < len(h.window) || h.more }

// update puts h in or out of the ready heap and the work count after a
// change. Callers hold s.mu.
func (s *scheduler) update(h *hostState) {
	working := h.hasWork() || h.filling
	if working != h.working {
		h.working = working
		if working {
			s.work++
		} else {
			s.work--
		}
	}
	ready := h.hasWork() && !h.filling && h.fetching() < s.limit(h)
	switch {
	case ready && h.idx < 0:
		s.ready.push(heapEntry{at: readyAt(h), h: h})
	case ready:
		s.fix(h)
	case h.idx >= 0:
		s.ready.remove(h.idx)
	}
	s.noteIdle(h)
}

// queued returns the number of entries waiting in memory and held by
// workers (the store may hold more).
func (s *scheduler) queued() (queued, held int) {
	s.lock()
	defer s.mu.Unlock()
	return s.inWindow, s.held
}

// over reports whether the run has nothing left to do. Callers hold s.mu.
func (s *scheduler) over() bool {
	return s.closed || (s.work == 0 && s.held == 0 && s.checks == 0) || (s.budget == 0 && s.held == 0)
}

// checking counts a background read of the store that may still queue
// entries: the run is not over before it ends (checked). It reports false,
// counting nothing, when the run is over already.
func (s *scheduler) checking() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.checks++
	return true
}

// checked ends a background read counted by checking.
func (s *scheduler) checked() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checks--
	if s.over() {
		s.wakeAll()
	}
}

// isClosed reports whether the run is over.
func (s *scheduler) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// pop hands out the next entry, from the host whose next request may start
// soonest among those with fewer entries being fetched than their limit
// (PerHost, or one with a delay), refilling the
// host's window from the store when it is empty. It waits while there is
// none, or while that host's next start is still ahead. It returns
// ok=false when ctx is done, when the run is closed, or when nothing is
// left (the crawl is over). A refill that fails is reported by the
// refill function; the host is then left alone for the run.
func (s *scheduler) pop(ctx context.Context) (e entry, host string, ok bool) {
	var w waiter
	defer w.stop()
	s.lock()
	defer s.mu.Unlock()
	for {
		if ctx.Err() != nil {
			return entry{}, "", false
		}
		if s.over() {
			s.closed = true
			s.wakeAll()
			return entry{}, "", false
		}
		var wait time.Duration
		if s.budget != 0 && len(s.ready) > 0 {
			h := s.ready[0].h
			now := time.Now()
			if wait = readyAt(h).Sub(now); wait <= 0 {
				if h.head == len(h.window) {
					s.fill(ctx, h) // unlocks and locks s.mu
					continue
				}
				var taken bool
				if e, taken = h.take(now); !taken {
					s.fix(h) // NB: readyAt looks at the same pauses: not reached
					continue
				}
				s.inWindow--
				if _, ok := s.claims[e.Key]; ok {
					// A redirect is fetching this URL now; its save
					// marks the entry's page done.
					s.update(h)
					continue
				}
				h.holding = append(h.holding, e.Key)
				s.held++
				if s.budget > 0 {
					s.budget--
				}
				s.update(h)
				if len(s.ready) > 0 && (s.keeper == nil || !s.ready[0].at.After(now)) {
					// More work is ready (the next worker takes it), or
					// will be and no one watches the clock for it.
					s.signal()
				}
				return e, h.name, true
			}
		}
		ch := make(chan struct{}, 1)
		timed := wait > 0 && s.keeper == nil
		if timed {
			s.keeper = ch
		} else {
			wait = 0
			s.waiters = append(s.waiters, ch)
		}
		s.idle++
		s.mu.Unlock()
		err := w.wait(ctx, nil, ch, wait)
		s.lock()
		s.idle--
		s.woken++
		if s.keeper == ch {
			s.keeper = nil
		}
		for i, c := range s.waiters {
			if c == ch {
				s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
				break
			}
		}
		if err != nil {
			return entry{}, "", false
		}
	}
}

// fill reads the next entries of h from the store. Callers hold s.mu; it
// is released during the read.
func (s *scheduler) fill(ctx context.Context, h *hostState) {
	h.filling, h.lowSet = true, false
	s.update(h)
	if len(s.ready) > 0 && s.keeper == nil {
		// NB: this worker was the one watching the clock, or taking the
		// next host due: another does while it reads.
		s.signal()
	}
	from, n := h.cursor, s.window
	s.mu.Unlock()
	b, err := s.refill(ctx, h.name, from, n)
	s.lock()
	h.filling = false
	if err != nil {
		h.more = false // left in the store for a later run
	} else {
		now := time.Now()
		for _, stored := range b.Entries {
			e := entry{Entry: stored}
			if !h.has(e.Key) && s.place(h, &e, now) {
				h.push(e)
				s.inWindow++
			}
		}
		h.cursor, h.more = b.Next, b.More
	}
	if h.lowSet {
		// Entries queued during the read may sit before its end.
		if h.cursor != "" {
			h.cursor = min(h.cursor, h.low)
		}
		h.more = true
	}
	s.update(h)
	if h.idx >= 0 {
		s.signal()
	}
}

// done returns an entry handed out by pop. fetched reports a successful
// fetch, which uses up one page of the MaxPages budget; otherwise the
// budget is given back.
func (s *scheduler) done(host string, e entry, fetched bool) {
	s.lock()
	defer s.mu.Unlock()
	h := s.hosts[host]
	if i := slices.Index(h.holding, e.Key); i >= 0 {
		h.holding = slices.Delete(h.holding, i, i+1)
	}
	if i := slices.Index(h.over, e.Key); i >= 0 {
		h.over = slices.Delete(h.over, i, i+1)
	}
	s.held--
	if !fetched && s.budget >= 0 {
		s.budget++
	}
	s.update(h)
	s.prune(time.Now())
	if s.over() {
		s.wakeAll()
	} else {
		s.signal()
	}
}

// close ends the run: pop returns false from now on.
func (s *scheduler) close() {
	s.lock()
	defer s.mu.Unlock()
	s.closed = true
	s.wakeAll()
}
