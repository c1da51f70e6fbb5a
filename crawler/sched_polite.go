package crawler

import (
	"context"
	"time"
)

// broadcast wakes every waiter in acquire on h. Callers hold s.mu.
func (h *hostState) broadcast() {
	if h.changed != nil {
		close(h.changed)
		h.changed = nil
	}
}

// limit is the most requests to h in flight at once, and the most entries
// of h handed out at once: PerHost without a delay, one with.
func (s *scheduler) limit(h *hostState) int {
	if h.delay() > 0 {
		return 1
	}
	return s.perHost
}

// later reports whether the next request to the origin of scheme on host
// may not start yet (its delay since the last request, a pause).
func (s *scheduler) later(scheme, host string) bool {
	s.lock()
	defer s.mu.Unlock()
	return time.Now().Before(s.host(host).nextStart(schemeIndex(scheme)))
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
