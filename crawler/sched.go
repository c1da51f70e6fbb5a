package crawler

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errStopped is returned by scheduler waits when the run stops.
var errStopped = errors.New("crawler: run stopped")

// scheduler is the crawler's one per-host scheduler. It owns, for every host
// (URL.Host, port included):
//
//   - the frontier of this run: a FIFO of entries per host (breadth-first
//     within a host), handed to workers by pop so that no more than PerHost
//     workers hold entries of one host, preferring the host that may start
//     a request soonest;
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
type scheduler struct {
	perHost int
	delay   time.Duration

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every change
	hosts   map[string]*hostState
	active  []*hostState // hosts with queued entries
	pending int          // queued entries + entries held by workers
	budget  int          // entries that may still be handed out; -1 = no limit
	closed  bool
	seen    map[string]struct{} // row keys queued or fetched in this run
}

type hostState struct {
	name     string
	queue    []Entry
	head     int
	active   bool
	held     int           // entries handed to workers, not yet done
	inflight int           // requests on the wire
	last     time.Time     // start of the last request
	crawl    time.Duration // Crawl-delay from robots.txt, capped
	pause    time.Time     // no request starts before (Retry-After, backoff)
	until    time.Time     // given up: no entries of this host before (a long Retry-After)
}

func newScheduler(perHost int, delay time.Duration, maxPages int) *scheduler {
	s := &scheduler{
		perHost: perHost,
		delay:   delay,
		changed: make(chan struct{}),
		hosts:   make(map[string]*hostState),
		budget:  -1,
		seen:    make(map[string]struct{}),
	}
	if maxPages > 0 {
		s.budget = maxPages
	}
	return s
}

// broadcast wakes every waiter. Callers hold s.mu.
// forRun empties the frontier for a new run, keeping the politeness state
// of every host, and returns s.
func (s *scheduler) forRun(maxPages int) *scheduler {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.hosts {
		h.queue, h.head, h.active, h.held = nil, 0, false, 0
	}
	s.active = nil
	s.pending = 0
	s.budget = -1
	if maxPages > 0 {
		s.budget = maxPages
	}
	s.closed = false
	s.seen = make(map[string]struct{})
	return s
}

func (s *scheduler) broadcast() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *scheduler) host(name string) *hostState {
	h := s.hosts[name]
	if h == nil {
		h = &hostState{name: name}
		s.hosts[name] = h
	}
	return h
}

// markSeen records key as met in this run and reports whether it was new.
func (s *scheduler) markSeen(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.seen[key]; ok {
		return false
	}
	s.seen[key] = struct{}{}
	return true
}

// isSeen reports whether key was met in this run.
func (s *scheduler) isSeen(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.seen[key]
	return ok
}

// push queues e under host unless the run is closed or the host was
// given up.
func (s *scheduler) push(host string, e Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	h := s.host(host)
	if time.Now().Before(h.until) {
		return
	}
	h.queue = append(h.queue, e)
	if !h.active {
		h.active = true
		s.active = append(s.active, h)
	}
	s.pending++
	s.broadcast()
}

// queued returns the number of entries waiting.
func (s *scheduler) queued() (queued, held int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.active {
		queued += len(h.queue) - h.head
	}
	return queued, s.pending - queued
}

// pop hands out the next entry, from the host whose next request may start
// soonest among those with fewer than PerHost entries held. It waits while
// there is none, or while that host's next start is still ahead (so a
// worker is not tied to a host with a long Crawl-delay while another host
// could be served first). It returns ok=false when ctx is done, when the
// run is closed, or when nothing is pending any more (the crawl is over).
func (s *scheduler) pop(ctx context.Context) (e Entry, host string, ok bool) {
	var w waiter
	defer w.stop()
	for {
		if ctx.Err() != nil {
			return Entry{}, "", false
		}
		s.mu.Lock()
		if s.closed || s.pending == 0 || (s.budget == 0 && s.held() == 0) {
			if !s.closed {
				s.closed = true
				s.broadcast()
			}
			s.mu.Unlock()
			return Entry{}, "", false
		}
		var wait time.Duration
		if s.budget != 0 {
			if h, at := s.pick(); h != nil {
				if wait = time.Until(at); wait <= 0 {
					e = h.queue[h.head]
					h.queue[h.head] = Entry{}
					h.head++
					if h.head == len(h.queue) {
						h.queue, h.head = h.queue[:0], 0
						s.deactivate(h)
					}
					h.held++
					if s.budget > 0 {
						s.budget--
					}
					s.mu.Unlock()
					return e, h.name, true
				}
			}
		}
		ch := s.changed
		s.mu.Unlock()
		if w.wait(ctx, nil, ch, wait) != nil {
			return Entry{}, "", false
		}
	}
}

// held returns the number of entries held by workers. Callers hold s.mu.
func (s *scheduler) held() int {
	n := s.pending
	for _, h := range s.active {
		n -= len(h.queue) - h.head
	}
	return n
}

// pick returns the active host below PerHost entries held whose next
// request may start soonest, and that time. Callers hold s.mu.
func (s *scheduler) pick() (best *hostState, at time.Time) {
	for _, h := range s.active {
		if h.held >= s.perHost {
			continue
		}
		next := s.nextStart(h)
		if best == nil || next.Before(at) {
			best, at = h, next
		}
	}
	return best, at
}

func (s *scheduler) deactivate(h *hostState) {
	h.active = false
	for i, a := range s.active {
		if a == h {
			last := len(s.active) - 1
			s.active[i] = s.active[last]
			s.active[last] = nil
			s.active = s.active[:last]
			return
		}
	}
}

// done returns an entry handed out by pop. fetched reports a successful
// fetch, which uses up one page of the MaxPages budget; otherwise the
// budget is given back.
func (s *scheduler) done(host string, fetched bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hosts[host].held--
	s.pending--
	if !fetched && s.budget >= 0 {
		s.budget++
	}
	s.broadcast()
}

// close ends the run: pop returns false from now on.
func (s *scheduler) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.broadcast()
	}
}

func (s *scheduler) hostDelay(h *hostState) time.Duration {
	return max(s.delay, h.crawl)
}

// nextStart is the earliest time a request to h may start. Callers hold s.mu.
func (s *scheduler) nextStart(h *hostState) time.Time {
	next := h.last.Add(s.hostDelay(h))
	if next.Before(h.pause) {
		return h.pause
	}
	return next
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
	s.broadcast()
}

// giveUp drops the queued entries of host and refuses new ones for d, in
// this run and later runs of the same Crawler (the server asked for a
// pause longer than the crawler waits). The store still holds them as
// queued.
func (s *scheduler) giveUp(host string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.host(host)
	if t := time.Now().Add(d); t.After(h.until) {
		h.until = t
	}
	if h.active {
		s.pending -= len(h.queue) - h.head
		h.queue, h.head = nil, 0
		s.deactivate(h)
	}
	s.broadcast()
}

// gaveUp reports whether host is given up for now.
func (s *scheduler) gaveUp(host string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hosts[host]
	return h != nil && time.Now().Before(h.until)
}

// retry queues e again under host, for an entry handed out by pop whose
// fetch is to be tried again: call it before done.
// It queues the entry exactly as push does (at the back of its host's
// queue, nothing if the host was given up); the name says why it is there.
func (s *scheduler) retry(host string, e Entry) { s.push(host, e) }

// setCrawlDelay records a host's robots.txt Crawl-delay, capped at
// MaxCrawlDelay.
func (s *scheduler) setCrawlDelay(host string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.host(host).crawl = min(max(d, 0), MaxCrawlDelay)
	s.broadcast()
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

// waiter is how pop and acquire sleep between looks at the scheduler: until
// it changes, or a deadline passes, reusing one timer across the loop.
type waiter struct{ timer *time.Timer }

// wait blocks until changed is closed, d has passed (d <= 0: no deadline),
// ctx is done or stop is closed (nil: never). It returns ctx's error or
// errStopped for the last two, nil otherwise.
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
