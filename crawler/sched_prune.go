package crawler

import "time"

// Idle hosts leave the scheduler. A host's state (its politeness, its
// origins) is kept while it may matter: while it has work, entries held,
// requests in flight or waiting, and until its delay and its origins'
// pauses and holds have passed. Then it goes, so that memory follows the
// hosts being crawled, not every host met since the Crawler was made. A
// host met again starts afresh, with nothing to wait for; its Crawl-delay
// comes back from the robots.txt cache at its next page (robots.allowed).

// pruneBatch bounds the idle hosts looked at per call of prune.
const pruneBatch = 8

// noteIdle queues h to be pruned once it became idle. Callers hold s.mu.
func (s *scheduler) noteIdle(h *hostState) {
	if h.idleQueued || !h.idle() {
		return
	}
	h.idleQueued = true
	s.idleQ = append(s.idleQ, h)
}

// idle reports whether nothing of the run refers to h.
func (h *hostState) idle() bool {
	return !h.working && !h.filling && h.idx < 0 && len(h.holding) == 0 && h.inflight == 0 && h.changed == nil
}

// expired reports whether forgetting h loses no politeness at now: its
// delay since its last request and its origins' pauses and holds are over.
func (h *hostState) expired(now time.Time) bool {
	for i := range h.orig {
		o := &h.orig[i]
		if now.Before(h.nextStart(i)) || o.held(now) {
			return false
		}
	}
	return true
}

// prune looks at up to pruneBatch hosts from the front of the idle queue:
// one busy again leaves the queue (noteIdle queues it when it is idle
// again), one whose state has expired leaves the scheduler, one with an
// origin held back is kept without being looked at again, and one whose
// delay or pause is not over goes to the back. Callers hold s.mu.
func (s *scheduler) prune(now time.Time) {
	for n := 0; n < pruneBatch && len(s.idleQ) > 0; n++ {
		h := s.idleQ[0]
		s.idleQ[0] = nil
		s.idleQ = s.idleQ[1:]
		h.idleQueued = false
		switch {
		case !h.idle() || s.hosts[h.name] != h:
		case h.expired(now):
			delete(s.hosts, h.name)
		case h.orig[0].held(now) || h.orig[1].held(now):
		default:
			h.idleQueued = true
			s.idleQ = append(s.idleQ, h)
		}
	}
}
