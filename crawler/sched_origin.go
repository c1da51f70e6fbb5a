package crawler

import (
	"cmp"
	"slices"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// originState is what the scheduler knows of one origin of a host: its
// pause (a server's 429 or 5xx, a backoff), and whether its entries are
// held back, and why.
type originState struct {
	pause  time.Time             // no request to the origin starts before
	until  time.Time             // its entries are set aside before (farFuture: for the run)
	reason crawlstore.HoldReason // why, while until is ahead
	detail string                // the last error that held it back
	fails  int                   // requests in a row that got no response
	works  bool                  // a request got a response in this run
}

// forRun forgets, at the start of a run, the holds that last for a run
// (an unreachable origin is tried again); a server's Retry-After is kept
// until its time.
func (o *originState) forRun() {
	o.fails, o.works = 0, false
	if o.reason != crawlstore.HoldRetryAfter {
		o.until, o.reason, o.detail = time.Time{}, "", ""
	}
}

// held reports whether the origin's entries are held back at now.
func (o *originState) held(now time.Time) bool { return now.Before(o.until) }

// asideKey counts entries set aside by origin and reason.
type asideKey struct {
	origin string
	reason crawlstore.HoldReason
}

// place decides, as an entry of h enters its window, whether it is handed
// out: kept as it is, moved to the host's other scheme (its own origin
// unreachable, the other not held back), or set aside, counted in
// s.aside (it stays queued in the store). Callers hold s.mu.
func (s *scheduler) place(h *hostState, e *entry, now time.Time) bool {
	if e.moved {
		// NB: placed again from its own scheme, so that it is counted
		// under the origin its links name when both are held back.
		e.URL, e.moved = otherSchemeURL(e.URL), false
	}
	i := entryScheme(e.URL)
	switch {
	case h.outside:
		s.setAside(h, i, crawlstore.HoldDomain)
		return false
	case h.isFull:
		s.setAside(h, i, crawlstore.HoldHostFull)
		return false
	}
	o := &h.orig[i]
	if !o.held(now) {
		return true
	}
	if fallback(o.reason) && h.portless && !h.orig[1-i].held(now) {
		e.URL, e.moved = otherSchemeURL(e.URL), true
		return true
	}
	s.setAside(h, i, o.reason)
	return false
}

// setAside counts an entry of h's origin i set aside for reason.
func (s *scheduler) setAside(h *hostState, i int, reason crawlstore.HoldReason) {
	if s.aside == nil {
		s.aside = make(map[asideKey]int64)
	}
	s.aside[asideKey{schemeNames[i] + "://" + h.name, reason}]++
}

// take removes and returns the first entry of h's window whose origin may
// start a request at now (an origin's pause keeps its entries, not the
// other origin's).
func (h *hostState) take(now time.Time) (entry, bool) {
	for i := h.head; i < len(h.window); i++ {
		e := h.window[i]
		if h.orig[entryScheme(e.URL)].pause.After(now) {
			continue
		}
		if i == h.head {
			h.window[i] = entry{}
			h.head++
		} else {
			h.window = slices.Delete(h.window, i, i+1)
		}
		return e, true
	}
	return entry{}, false
}

// sweep places again the window entries of h after a hold: those of a
// held origin move to the other scheme or are set aside. Callers hold s.mu.
func (s *scheduler) sweep(h *hostState) {
	now := time.Now()
	kept := h.window[:h.head]
	for _, e := range h.window[h.head:] {
		if s.place(h, &e, now) {
			kept = append(kept, e)
		} else {
			s.inWindow--
		}
	}
	clear(h.window[len(kept):])
	h.window = kept
	s.politenessChanged(h)
	if s.over() {
		s.wakeAll()
	}
}

// hold holds back the origin of scheme on host until until (farFuture: for
// the rest of the run) for reason, and reports whether it was not held
// back before (a caller logs the origin once).
func (s *scheduler) hold(scheme, host string, reason crawlstore.HoldReason, detail string, until time.Time) bool {
	s.lock()
	defer s.mu.Unlock()
	h := s.host(host)
	o := &h.orig[schemeIndex(scheme)]
	fresh := !o.held(time.Now())
	if until.After(o.until) {
		o.until = until
	}
	o.reason, o.detail = reason, detail
	s.sweep(h)
	return fresh
}

// pause keeps requests to the origin of scheme on host from starting
// before now+d (a server asked to wait with 429/503, or a backoff).
func (s *scheduler) pause(scheme, host string, d time.Duration) {
	s.lock()
	defer s.mu.Unlock()
	h := s.host(host)
	o := &h.orig[schemeIndex(scheme)]
	if t := time.Now().Add(d); t.After(o.pause) {
		o.pause = t
	}
	s.politenessChanged(h)
}

// failed counts a request to the origin of scheme on host that got no
// response, of kind k, and reports whether the origin is now held back for
// the run for reason (at once for a definitive kind, else after MaxOriginFailures in
// a row) and whether that is new.
func (s *scheduler) failed(scheme, host string, k FailureKind, reason crawlstore.HoldReason, detail string) (held, fresh bool) {
	s.lock()
	h := s.host(host)
	o := &h.orig[schemeIndex(scheme)]
	o.fails++
	now := time.Now()
	if o.held(now) {
		s.mu.Unlock()
		return true, false
	}
	if !k.definitive() && o.fails < MaxOriginFailures {
		s.mu.Unlock()
		return false, false
	}
	s.mu.Unlock()
	return true, s.hold(scheme, host, reason, detail, farFuture)
}

// answered records that a request to the origin of scheme on host got a
// response: its run of failures ends.
func (s *scheduler) answered(scheme, host string) {
	s.lock()
	defer s.mu.Unlock()
	if h := s.hosts[host]; h != nil {
		o := &h.orig[schemeIndex(scheme)]
		o.fails, o.works = 0, true
	}
}

// works reports whether the origin of scheme on host answered a request in
// this run and is not held back.
func (s *scheduler) works(scheme, host string) bool {
	s.lock()
	defer s.mu.Unlock()
	h := s.hosts[host]
	return h != nil && h.orig[schemeIndex(scheme)].works && !h.orig[schemeIndex(scheme)].held(time.Now())
}

// full sets aside the entries of host for the rest of the run: it has its
// MaxPagesPerHost. Its other entries are still read from the store, to be
// counted (see Stats.HeldBack); the store keeps them.
func (s *scheduler) full(host string) {
	s.lock()
	defer s.mu.Unlock()
	h := s.host(host)
	h.isFull = true
	s.sweep(h)
}

// recheck places e (handed out by pop on host) again, as it is about to be
// fetched: an origin held back since it was placed moves it or sets it
// aside (false).
func (s *scheduler) recheck(host string, e *entry) bool {
	s.lock()
	defer s.mu.Unlock()
	return s.place(s.host(host), e, time.Now())
}

// heldOrigin reports whether the origin of scheme on host is held back now.
func (s *scheduler) heldOrigin(scheme, host string) bool {
	s.lock()
	defer s.mu.Unlock()
	h := s.hosts[host]
	return h != nil && h.orig[schemeIndex(scheme)].held(time.Now())
}

// heldBack lists the entries set aside in this run by origin and reason,
// most entries first.
func (s *scheduler) heldBack() []crawlstore.HeldBack {
	s.lock()
	defer s.mu.Unlock()
	out := make([]crawlstore.HeldBack, 0, len(s.aside))
	for k, n := range s.aside {
		hb := crawlstore.HeldBack{Origin: k.origin, Reason: k.reason, Entries: n}
		scheme, host, _ := cutOrigin(k.origin)
		if h := s.hosts[host]; h != nil {
			if o := h.orig[schemeIndex(scheme)]; o.reason == k.reason {
				hb.Detail = o.detail
				if o.until != farFuture {
					hb.Until = o.until
				}
			}
		}
		out = append(out, hb)
	}
	slices.SortFunc(out, func(a, b crawlstore.HeldBack) int {
		return cmp.Or(cmp.Compare(b.Entries, a.Entries), cmp.Compare(a.Origin, b.Origin), cmp.Compare(a.Reason, b.Reason))
	})
	return out
}

// cutOrigin splits "scheme://host" into its parts.
func cutOrigin(origin string) (scheme, host string, ok bool) {
	for i := 0; i+2 < len(origin); i++ {
		if origin[i:i+3] == "://" {
			return origin[:i], origin[i+3:], true
		}
	}
	return "", origin, false
}

// capped reports whether the run used up its MaxPages with work left.
func (s *scheduler) capped() bool {
	s.lock()
	defer s.mu.Unlock()
	return s.budget == 0 && s.work > 0
}
