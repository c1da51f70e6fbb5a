package crawler

import (
	"container/heap"
	"context"
	"errors"
	"slices"
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
//     wire (robots.txt, pages, each redirect hop), waits until fewer than
//     PerHost requests to the host are in flight and max(Delay, Crawl-delay)
//     has passed since the last request to it started.
//
// NB: the two per-host counts differ on purpose. A worker holding an entry
// of host A may be fetching a redirect hop on host B; counting that hop
// against B's in-flight requests (not A's entries) keeps the limit true on
// the wire, and since a slot is held only for one request and never while
// waiting for another, no wait cycle can form.
//
// Waking: a worker waiting in pop is woken alone (the first in line) by a
// change that may give it work; a worker that takes an entry wakes the next
// one when more work is ready. Waiters in acquire are woken together by the
// changes of politeness state (a release, a pause, a Crawl-delay).
type scheduler struct {
	perHost int
	delay   time.Duration
	window  int
	refill  refillFunc

	mu       sync.Mutex
	changed  chan struct{} // acquire's waiters: closed and replaced on every politeness change
	waiters  []chan struct{}
	hosts    map[string]*hostState
	ready    hostHeap            // hosts with work and fewer than perHost entries held
	held     int                 // entries handed to workers, not yet done
	inWindow int                 // entries in the windows
	work     int                 // hosts with window entries, more in the store, or a refill under way
	budget   int                 // entries that may still be handed out; -1 = no limit
	claims   map[string]struct{} // row keys of redirect targets being fetched
	checks   int                 // background reads that may still queue entries (readBehind)
	closed   bool
}

type hostState struct {
	name     string
	window   []Entry // entries to hand out, in order
	head     int
	cursor   string   // where the next read of the store starts
	more     bool     // the store may hold entries at or after cursor not in window
	filling  bool     // a refill is under way
	low      string   // during a refill: the lowest position queued meanwhile
	lowSet   bool     //
	holding  []string // row keys of the entries held by workers
	idx      int      // index in the ready heap, -1 when not in it
	working  bool     // counted in scheduler.work
	inflight int      // requests on the wire
	last     time.Time
	popped   time.Time     // when an entry was last handed out
	base     time.Duration // Config.Delay
	crawl    time.Duration // Crawl-delay from robots.txt, capped
	pause    time.Time     // no request starts before (Retry-After, backoff)
	until    time.Time     // given up: no entries of this host before (a long Retry-After)
	isFull   bool          // has its MaxPagesPerHost: no entries of this host in this run
}

func newScheduler(perHost int, delay time.Duration, maxPages int) *scheduler {
	s := &scheduler{
		perHost: perHost,
		delay:   delay,
		window:  DefaultWindow,
		changed: make(chan struct{}),
		hosts:   make(map[string]*hostState),
	}
	return s.reset(maxPages)
}

// reset empties the frontier for a new run. Callers hold s.mu or own s.
func (s *scheduler) reset(maxPages int) *scheduler {
	for _, h := range s.hosts {
		h.window, h.head, h.cursor, h.more, h.filling, h.lowSet = nil, 0, "", false, false, false
		h.holding, h.idx, h.working, h.isFull = nil, -1, false, false
	}
	s.ready = s.ready[:0]
	s.held, s.work, s.inWindow, s.checks = 0, 0, 0, 0
	s.budget = -1
	if maxPages > 0 {
		s.budget = maxPages
	}
	s.closed = false
	return s
}

// forRun empties the frontier for a new run reading refills through
// refill, keeping the politeness state of every host, and returns s.
func (s *scheduler) forRun(maxPages int, refill refillFunc) *scheduler {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refill = refill
	return s.reset(maxPages)
}

// broadcast wakes every waiter in acquire. Callers hold s.mu.
func (s *scheduler) broadcast() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// signal wakes the first worker waiting in pop. Callers hold s.mu.
func (s *scheduler) signal() {
	if len(s.waiters) > 0 {
		ch := s.waiters[0]
		s.waiters = s.waiters[1:]
		ch <- struct{}{}
	}
}

// wakeAll wakes every worker waiting in pop. Callers hold s.mu.
func (s *scheduler) wakeAll() {
	for _, ch := range s.waiters {
		ch <- struct{}{}
	}
	s.waiters = nil
}

func (s *scheduler) host(name string) *hostState {
	h := s.hosts[name]
	if h == nil {
		h = &hostState{name: name, idx: -1, base: s.delay}
		s.hosts[name] = h
	}
	return h
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
	ready := h.hasWork() && !h.filling && len(h.holding) < s.perHost
	switch {
	case ready && h.idx < 0:
		heap.Push(&s.ready, h)
	case ready:
		heap.Fix(&s.ready, h.idx)
	case h.idx >= 0:
		heap.Remove(&s.ready, h.idx)
	}
}

// addHost records that host has entries in the store (resume), unless the
// run is closed or the host was given up.
func (s *scheduler) addHost(host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.host(host)
	if s.closed || h.isFull || time.Now().Before(h.until) {
		return
	}
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
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.host(host)
	if s.closed || h.isFull || time.Now().Before(h.until) {
		return
	}
	switch {
	case h.filling:
		if !h.lowSet || e.Frontier < h.low {
			h.low, h.lowSet = e.Frontier, true
		}
	case !h.more && len(h.window)-h.head < s.window:
		if !h.has(e.Key) {
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
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.host(host)
	if s.closed || h.isFull || time.Now().Before(h.until) {
		return
	}
	h.push(e)
	s.inWindow++
	s.update(h)
	s.signal()
}

// queued returns the number of entries waiting in memory and held by
// workers (the store may hold more).
func (s *scheduler) queued() (queued, held int) {
	s.mu.Lock()
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

// nextPop is when the next entry of h may be handed out (its key in the
// ready heap): when its next request may start, and, while a worker holds
// one of its entries, not before the delay after that entry was handed
// out (so that a second worker does not take an entry only to wait for the
// first one's request). Callers hold s.mu.
func (s *scheduler) nextPop(h *hostState) time.Time { return readyAt(h) }

// pop hands out the next entry, from the host whose next request may start
// soonest among those with fewer than PerHost entries held, refilling the
// host's window from the store when it is empty. It waits while there is
// none, or while that host's next start is still ahead. It returns
// ok=false when ctx is done, when the run is closed, or when nothing is
// left (the crawl is over). A refill that fails is reported by the
// refill function; the host is then left alone for the run.
func (s *scheduler) pop(ctx context.Context) (e Entry, host string, ok bool) {
	var w waiter
	defer w.stop()
	for {
		if ctx.Err() != nil {
			return Entry{}, "", false
		}
		s.mu.Lock()
		if s.over() {
			if !s.closed {
				s.closed = true
				s.broadcast()
			}
			s.wakeAll()
			s.mu.Unlock()
			return Entry{}, "", false
		}
		var wait time.Duration
		if s.budget != 0 && len(s.ready) > 0 {
			h := s.ready[0]
			now := time.Now()
			if wait = s.nextPop(h).Sub(now); wait <= 0 {
				if h.head == len(h.window) {
					s.fill(ctx, h) // unlocks and locks s.mu
					s.mu.Unlock()
					continue
				}
				e = h.window[h.head]
				h.window[h.head] = Entry{}
				h.head++
				s.inWindow--
				if _, ok := s.claims[e.Key]; ok {
					// A redirect is fetching this URL now; its save
					// marks the entry's page done.
					s.update(h)
					s.mu.Unlock()
					continue
				}
				h.holding = append(h.holding, e.Key)
				h.popped = now
				s.held++
				if s.budget > 0 {
					s.budget--
				}
				s.update(h)
				if len(s.ready) > 0 && !s.nextPop(s.ready[0]).After(now) {
					s.signal() // more work is ready: the next worker takes it
				}
				s.mu.Unlock()
				return e, h.name, true
			}
		}
		ch := make(chan struct{}, 1)
		s.waiters = append(s.waiters, ch)
		s.mu.Unlock()
		err := w.wait(ctx, nil, ch, wait)
		s.mu.Lock()
		for i, c := range s.waiters {
			if c == ch {
				s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
				break
			}
		}
		s.mu.Unlock()
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
	from, n := h.cursor, s.window
	s.mu.Unlock()
	b, err := s.refill(ctx, h.name, from, n)
	s.mu.Lock()
	h.filling = false
	if err != nil {
		h.more = false // left in the store for a later run
	} else {
		for _, e := range b.Entries {
			if !h.has(e.Key) {
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
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hosts[host]
	for i, k := range h.holding {
		if k == e.Key {
			h.holding = append(h.holding[:i], h.holding[i+1:]...)
			break
		}
	}
	s.held--
	if !fetched && s.budget >= 0 {
		s.budget++
	}
	s.update(h)
	if s.over() {
		s.wakeAll()
	} else {
		s.signal()
	}
}

// holds reports whether an entry of row key on host is held by a worker.
func (s *scheduler) holds(host, key string) bool {
	s.mu.Lock()
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
	s.mu.Lock()
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
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range capt.claims {
		delete(s.claims, k)
	}
}

// close ends the run: pop returns false from now on.
func (s *scheduler) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.broadcast()
	}
	s.wakeAll()
}

// delay is the least time between the starts of two requests to h.
func (h *hostState) delay() time.Duration { return max(h.base, h.crawl) }

// nextStart is the earliest time a request to h may start. Callers hold s.mu.
func (s *scheduler) nextStart(h *hostState) time.Time {
	next := h.last.Add(h.delay())
	if next.Before(h.pause) {
		return h.pause
	}
	return next
}

// politenessChanged re-sorts h after its next start moved and wakes the
// waiters. Callers hold s.mu.
func (s *scheduler) politenessChanged(h *hostState) {
	if h.idx >= 0 {
		heap.Fix(&s.ready, h.idx)
	}
	s.broadcast()
	s.signal()
}

// pauseHost keeps requests to host from starting before now+d (a server
// asked to wait with 429/503, or a backoff).
func (s *scheduler) pauseHost(host string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.host(host)
	if t := time.Now().Add(d); t.After(h.pause) {
		h.pause = t
	}
	s.politenessChanged(h)
}

// giveUp drops the entries of host in memory and refuses new ones for d,
// in this run and later runs of the same Crawler (the server asked for a
// pause longer than the crawler waits). The store still holds them.
func (s *scheduler) giveUp(host string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.host(host)
	if t := time.Now().Add(d); t.After(h.until) {
		h.until = t
	}
	s.inWindow -= len(h.window) - h.head
	h.window, h.head, h.more = nil, 0, false
	s.update(h)
	if s.over() {
		s.wakeAll()
	}
}

// full drops the entries of host in memory and refuses new ones for the
// rest of the run: it has its MaxPagesPerHost. The store still holds them.
func (s *scheduler) full(host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.host(host)
	h.isFull = true
	s.inWindow -= len(h.window) - h.head
	h.window, h.head, h.more = nil, 0, false
	s.update(h)
	if s.over() {
		s.wakeAll()
	}
}

// gaveUp reports whether host is given up for now.
func (s *scheduler) gaveUp(host string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hosts[host]
	return h != nil && time.Now().Before(h.until)
}

// setCrawlDelay records a host's robots.txt Crawl-delay, capped at
// MaxCrawlDelay.
func (s *scheduler) setCrawlDelay(host string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.host(host)
	h.crawl = min(max(d, 0), MaxCrawlDelay)
	s.politenessChanged(h)
}

// acquire waits until a request to host may start, then counts it in
// flight; release must be called when its response has been read. It fails
// when ctx is done or stop is closed.
func (s *scheduler) acquire(ctx context.Context, stop <-chan struct{}, host string) (release func(), err error) {
	var w waiter
	defer w.stop()
	for {
		s.mu.Lock()
		h := s.host(host)
		now := time.Now()
		var wait time.Duration
		if h.inflight < s.perHost {
			next := s.nextStart(h)
			if !now.Before(next) {
				h.inflight++
				h.last = now
				if h.idx >= 0 {
					heap.Fix(&s.ready, h.idx)
				}
				s.mu.Unlock()
				return func() {
					s.mu.Lock()
					h.inflight--
					s.broadcast()
					s.mu.Unlock()
				}, nil
			}
			wait = next.Sub(now)
		}
		ch := s.changed
		s.mu.Unlock()
		if err := w.wait(ctx, stop, ch, wait); err != nil {
			return nil, err
		}
	}
}

// wrote records that a request to host was written to its connection: the
// host's next request starts no sooner than the delay after it.
func (s *scheduler) wrote(host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.host(host)
	if now := time.Now(); now.After(h.last) {
		h.last = now
		if h.idx >= 0 {
			heap.Fix(&s.ready, h.idx)
		}
	}
}

// hostHeap orders hosts by the time their next request may start.
type hostHeap []*hostState

func (q hostHeap) Len() int { return len(q) }
func (q hostHeap) Less(i, j int) bool {
	return readyAt(q[i]).Before(readyAt(q[j]))
}
func (q hostHeap) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].idx, q[j].idx = i, j
}
func (q *hostHeap) Push(x any) {
	h := x.(*hostState)
	h.idx = len(*q)
	*q = append(*q, h)
}
func (q *hostHeap) Pop() any {
	old := *q
	h := old[len(old)-1]
	old[len(old)-1] = nil
	h.idx = -1
	*q = old[:len(old)-1]
	return h
}

// readyAt is the heap key of h: the later of its last request plus its
// delay and its pause. NB: it reads fields changed only under the
// scheduler's lock, and every change re-sorts h (heap.Fix).
func readyAt(h *hostState) time.Time {
	next := h.last.Add(h.delay())
	if p := h.popped.Add(h.delay()); len(h.holding) > 0 && p.After(next) {
		next = p
	}
	if next.Before(h.pause) {
		return h.pause
	}
	return next
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
