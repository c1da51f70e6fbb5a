package crawler

import (
	"slices"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

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
func (s *scheduler) enqueued(host string, stored crawlstore.Entry) {
	e := entry{Entry: stored}
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
func (h *hostState) push(e entry) {
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
func (s *scheduler) retry(host string, e entry) { s.readd(host, e, false) }

// putBack returns e, handed out by pop and not fetched, to the front of
// its host's window, for a worker to take when the host's turn comes
// (rather than one waiting for it now): call it before done. Nothing
// happens if the host was given up.
func (s *scheduler) putBack(host string, e entry) { s.readd(host, e, true) }

// readd puts e, handed out by pop, back in its host's window: at the
// front (putBack), or at the back with a worker woken for it (retry);
// nothing happens if the host was given up.
func (s *scheduler) readd(host string, e entry, front bool) {
	s.lock()
	defer s.mu.Unlock()
	h := s.host(host)
	if s.closed || !s.place(h, &e, time.Now()) {
		s.update(h)
		return
	}
	switch {
	case !front:
		h.push(e)
	case h.head > 0:
		h.head--
		h.window[h.head] = e
	default:
		h.window = slices.Insert(h.window, 0, e)
	}
	s.inWindow++
	s.update(h)
	if !front {
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
func (s *scheduler) fetchOver(host string, e entry) {
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
