package crawler

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"
)

// errStopped is returned by scheduler waits when the run stops.
var errStopped = errors.New("crawler: run stopped")

// DefaultWindow is how many frontier entries of one host the scheduler
// keeps in memory; the rest stay in the store until the host's window runs
// low.
const DefaultWindow = 32

// refillFunc reads the next entries of host from the store's frontier,
// from position from on (see Store.Next).
type refillFunc func(ctx context.Context, host, from string, n int) (FrontierBatch, error)

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
	window     []Entry // entries to hand out, in order
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

// broadcast wakes every waiter in acquire on h. Callers hold s.mu.
func (h *hostState) broadcast() {
	if h.changed != nil {
		close(h.changed)
		h.changed = nil
	}
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

// limit is the most requests to h in flight at once, and the most entries
// of h handed out at once: PerHost without a delay, one with.
func (s *scheduler) limit(h *hostState) int {
	if h.delay() > 0 {
		return 1
	}
	return s.perHost
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

// addHost records that host has entries in the store (resume), unless the
// run is closed. Those of a host outside the allowed domains are read to
// be counted and set aside (HoldDomain).
func (s *scheduler) addHost(host string, outside bool) {
	s.lock()
	defer s.mu.Unlock()
	h := s.host(host)
	if s.closed {
		return
	}
	h.outside = h.outside || outside
	h.more = true
	s.update(h)
	s.signal()
}

// enqueued records an entry the store has just queued (e.Frontier set) on
// host: kept in the host's window while there is room and nothing older
// waits in the store, otherwise left to the next refill, which then starts
// no later than the entry's position (saves of one host may commit out of
// the order of their positions).
func (s *scheduler) enqueued(host string, e Entry) {
	s.lock()
	defer s.mu.Unlock()
	h := s.host(host)
	if s.closed {
		return
	}
	switch {
	case h.filling:
		if !h.lowSet || e.Frontier < h.low {
			h.low, h.lowSet = e.Frontier, true
		}
	case !h.more && len(h.window)-h.head < s.window:
		if !h.has(e.Key) && s.place(h, &e, time.Now()) {
			h.push(e)
			s.inWindow++
		}
		if next := e.Frontier + "\x00"; next > h.cursor {
			h.cursor = next
		}
	default:
		// NB: "" is the host's first entry: never moved forward from it.
		if h.cursor != "" {
			h.cursor = min(h.cursor, e.Frontier)
		}
		h.more = true
	}
	s.update(h)
	s.signal()
}

// push appends e to h's window.
func (h *hostState) push(e Entry) {
	if h.head > 0 && h.head == len(h.window) {
		h.window, h.head = h.window[:0], 0
	}
	h.window = append(h.window, e)
}

// has reports whether an entry of row key is in h's window or held.
func (h *hostState) has(key string) bool {
	for _, k := range h.holding {
		if k == key {
			return true
		}
	}
	for _, e := range h.window[h.head:] {
		if e.Key == key {
			return true
		}
	}
	return false
}

// retry queues e again under host, for an entry handed out by pop whose
// fetch is to be tried again: call it before done. It goes to the back of
// the host's window (nothing if the host was given up); its store entry
// is still there, so a crash loses nothing.
func (s *scheduler) retry(host string, e Entry) {
	s.lock()
	defer s.mu.Unlock()
	h := s.host(host)
	if s.closed || !s.place(h, &e, time.Now()) {
		s.update(h)
		return
	}
	h.push(e)
	s.inWindow++
	s.update(h)
	s.signal()
}

// later reports whether the next request to the origin of scheme on host
// may not start yet (its delay since the last request, a pause).
func (s *scheduler) later(scheme, host string) bool {
	s.lock()
	defer s.mu.Unlock()
	return time.Now().Before(s.host(host).nextStart(schemeIndex(scheme)))
}

// putBack returns e, handed out by pop and not fetched, to the front of
// its host's window, for a worker to take when the host's turn comes
// (rather than one waiting for it now): call it before done. Nothing
// happens if the host was given up.
func (s *scheduler) putBack(host string, e Entry) {
	s.lock()
	defer s.mu.Unlock()
	h := s.host(host)
	if s.closed || !s.place(h, &e, time.Now()) {
		s.update(h)
		return
	}
	if h.head > 0 {
		h.head--
		h.window[h.head] = e
	} else {
		h.window = slices.Insert(h.window, 0, e)
	}
	s.inWindow++
	s.update(h)
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
func (s *scheduler) pop(ctx context.Context) (e Entry, host string, ok bool) {
	var w waiter
	defer w.stop()
	s.lock()
	defer s.mu.Unlock()
	for {
		if ctx.Err() != nil {
			return Entry{}, "", false
		}
		if s.over() {
			s.closed = true
			s.wakeAll()
			return Entry{}, "", false
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
			return Entry{}, "", false
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
		for _, e := range b.Entries {
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
func (s *scheduler) done(host string, e Entry, fetched bool) {
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

// fetching is the number of h's entries held by workers whose fetch is not
// over: what PerHost (or one, with a delay) bounds.
func (h *hostState) fetching() int { return len(h.holding) - len(h.over) }

// fetchOver records that the fetch of e, handed out by pop on host, is over
// (its response read, or it failed): storing it does not hold the host's
// turn, so with a delay its next entry is handed out when the delay has
// passed, not when the page is stored. done still follows.
func (s *scheduler) fetchOver(host string, e Entry) {
	s.lock()
	defer s.mu.Unlock()
	h := s.hosts[host]
	if h == nil || !slices.Contains(h.holding, e.Key) || slices.Contains(h.over, e.Key) {
		return
	}
	h.over = append(h.over, e.Key)
	s.update(h)
	if h.idx >= 0 {
		s.signal()
	}
}

// holds reports whether an entry of row key on host is held by a worker.
func (s *scheduler) holds(host, key string) bool {
	s.lock()
	defer s.mu.Unlock()
	h := s.hosts[host]
	if h == nil {
		return false
	}
	for _, k := range h.holding {
		if k == key {
			return true
		}
	}
	return false
}

// claim records that the fetch with id follows a redirect to the URL of
// row key on host, and reports false when a worker fetches that URL
// already (its entry, or another redirect to it). The claim lasts until
// unclaim of the fetch's capture.
func (s *scheduler) claim(id string, tr *transport, host, key string) bool {
	var capt *capture
	if v, ok := tr.captures.Load(id); ok {
		capt = v.(*capture)
	}
	s.lock()
	defer s.mu.Unlock()
	if h := s.hosts[host]; h != nil && slices.Contains(h.holding, key) {
		return false
	}
	if _, ok := s.claims[key]; ok {
		return false
	}
	if s.claims == nil {
		s.claims = make(map[string]struct{})
	}
	s.claims[key] = struct{}{}
	if capt != nil {
		// NB: only the fetch's own goroutine touches its capture.
		capt.claims = append(capt.claims, key)
	}
	return true
}

// unclaim ends the claims of a fetch.
func (s *scheduler) unclaim(capt *capture) {
	if len(capt.claims) == 0 {
		return
	}
	s.lock()
	defer s.mu.Unlock()
	for _, k := range capt.claims {
		delete(s.claims, k)
	}
}

// close ends the run: pop returns false from now on.
func (s *scheduler) close() {
	s.lock()
	defer s.mu.Unlock()
	s.closed = true
	s.wakeAll()
}

// delay is the least time between the end of one request to h and the
// start of the next.
func (h *hostState) delay() time.Duration { return max(h.base, h.crawl) }

// nextStart is the earliest time a request to h's origin of scheme index
// i may start, requests in flight aside: the delay after the last request
// to h ended, and not before the origin's pause. Callers hold s.mu.
func (h *hostState) nextStart(i int) time.Time {
	next := h.last.Add(h.delay())
	if p := h.orig[i].pause; next.Before(p) {
		return p
	}
	return next
}

// politenessChanged re-sorts h after its next start or its limit moved
// and wakes the waiters. Callers hold s.mu.
func (s *scheduler) politenessChanged(h *hostState) {
	s.fix(h)
	s.update(h)
	h.broadcast()
	s.signal()
}

// setCrawlDelay records a host's robots.txt Crawl-delay, capped at
// MaxCrawlDelay.
func (s *scheduler) setCrawlDelay(host string, d time.Duration) {
	s.lock()
	defer s.mu.Unlock()
	h := s.host(host)
	if d = min(max(d, 0), MaxCrawlDelay); h.crawl == d {
		return
	}
	h.crawl = d
	s.politenessChanged(h)
}

// acquire waits until a request to the origin of scheme on host may
// start (host is a serverKey), then counts it in
// flight; release must be called when its response has been read (or the
// request failed): the host's delay counts from then. It fails when ctx is
// done or stop is closed.
func (s *scheduler) acquire(ctx context.Context, stop <-chan struct{}, scheme, host string) (release func(), err error) {
	var w waiter
	defer w.stop()
	s.lock()
	defer s.mu.Unlock()
	i := schemeIndex(scheme)
	for {
		h := s.host(host)
		now := time.Now()
		var wait time.Duration
		if h.inflight < s.limit(h) {
			next := h.nextStart(i)
			if !now.Before(next) {
				h.inflight++
				s.fix(h)
				return func() { s.release(h) }, nil
			}
			wait = next.Sub(now)
		}
		if h.changed == nil {
			h.changed = make(chan struct{})
		}
		ch := h.changed
		s.idle++
		s.mu.Unlock()
		err := w.wait(ctx, stop, ch, wait)
		s.lock()
		s.idle--
		if err != nil {
			return nil, err
		}
	}
}

// release ends a request to h started by acquire.
func (s *scheduler) release(h *hostState) {
	s.lock()
	defer s.mu.Unlock()
	h.inflight--
	h.last = time.Now()
	h.broadcast()
	if h.idx >= 0 {
		// Its next start moved (from "after this request" to a time).
		s.fix(h)
		s.signal()
	}
}

// hostHeap orders hosts by the time their next request may start. Each
// entry carries that time, so that comparisons read the heap's array and
// not the hosts (with 100,000 hosts, a cache miss each).
type hostHeap []heapEntry

// heapEntry is a host in the ready heap and its key, readyAt(h) when it
// was last pushed or fixed.
type heapEntry struct {
	at time.Time
	h  *hostState
}

func (q hostHeap) less(i, j int) bool { return q[i].at.Before(q[j].at) }

func (q hostHeap) swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].h.idx, q[j].h.idx = i, j
}

// NB: the heap operations are container/heap's, written for this type so
// that an entry is not boxed in an interface (an allocation) on every push.

func (q *hostHeap) push(e heapEntry) {
	e.h.idx = len(*q)
	*q = append(*q, e)
	q.up(len(*q) - 1)
}

func (q *hostHeap) remove(i int) {
	n := len(*q) - 1
	if n != i {
		q.swap(i, n)
		if !q.down(i, n) {
			q.up(i)
		}
	}
	(*q)[n].h.idx = -1
	(*q)[n] = heapEntry{}
	*q = (*q)[:n]
}

func (q hostHeap) fix(i int) {
	if !q.down(i, len(q)) {
		q.up(i)
	}
}

func (q hostHeap) init() {
	for i := len(q)/2 - 1; i >= 0; i-- {
		q.down(i, len(q))
	}
}

func (q hostHeap) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !q.less(j, i) {
			break
		}
		q.swap(i, j)
		j = i
	}
}

func (q hostHeap) down(i0, n int) bool {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 {
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && q.less(j2, j1) {
			j = j2
		}
		if !q.less(j, i) {
			break
		}
		q.swap(i, j)
		i = j
	}
	return i > i0
}

// fix re-sorts h in the ready heap, if it is there, after a change of what
// its key is computed from. Callers hold s.mu.
func (s *scheduler) fix(h *hostState) {
	if h.idx >= 0 {
		s.ready[h.idx].at = readyAt(h)
		s.ready.fix(h.idx)
	}
}

// farFuture sorts after every time a host becomes ready.
var farFuture = time.Unix(1<<62, 0)

// readyAt is the heap key of h: when its next request may start, for an
// entry of its window whose origin is not paused (a refill when the window
// is empty). With a
// delay, while a request to h is in flight (a redirect hop of a worker
// holding another host's entry), that is not known before it ends: h sorts
// last. NB: it reads fields changed only under the scheduler's lock, and
// every change re-sorts h (fix).
func readyAt(h *hostState) time.Time {
	if h.inflight > 0 && h.delay() > 0 {
		return farFuture
	}
	next := h.last.Add(h.delay())
	if h.head == len(h.window) {
		return next // a refill, whose entries' origins are not known yet
	}
	// The soonest an entry of the window may start: its origin's pause.
	var paused [2]bool
	soonest := farFuture
	for _, e := range h.window[h.head:] {
		i := entryScheme(e.URL)
		if paused[i] {
			continue
		}
		paused[i] = true
		if p := h.orig[i].pause; p.Before(soonest) {
			soonest = p
		}
		if paused[1-i] {
			break
		}
	}
	return maxTime(next, soonest)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// waiter is how pop and acquire sleep between looks at the scheduler: until
// it changes, or a deadline passes, reusing one timer across the loop.
type waiter struct{ timer *time.Timer }

// wait blocks until changed is closed or receives, d has passed (d <= 0:
// no deadline), ctx is done or stop is closed (nil: never). It returns
// ctx's error or errStopped for the last two, nil otherwise.
func (w *waiter) wait(ctx context.Context, stop <-chan struct{}, changed <-chan struct{}, d time.Duration) error {
	var tc <-chan time.Time
	if d > 0 {
		if w.timer == nil {
			w.timer = time.NewTimer(d)
		} else {
			w.timer.Reset(d)
		}
		tc = w.timer.C
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-stop:
		return errStopped
	case <-changed:
	case <-tc:
	}
	return nil
}

// stop releases the timer.
func (w *waiter) stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
}
