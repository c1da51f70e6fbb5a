package crawler

import (
	"slices"
	"time"
)

// usage measures how well a run kept its workers busy, in worker-time (one
// worker idle for a second adds a second). A worker is idle while it waits
// for an entry (in pop) or for a host's turn (in acquire); a host is due
// while one of its entries could be handed out and its request start at
// once (the MaxPages budget allowing).
type usage struct {
	// idle is the worker-time spent idle.
	idle time.Duration
	// lost is the part of idle during which a due host was left for it:
	// the integral over time of min(idle workers, due hosts). Near zero
	// means that whenever enough hosts were due, every worker was busy.
	lost time.Duration
}

// account adds the time since the last call to s.use, by the state the
// scheduler had over it: nothing of that state changes without s.mu, and
// every change under s.mu is preceded by a call (see lock). Within the
// interval the only change is time passing hosts' ready times. Callers
// hold s.mu.
func (s *scheduler) account(now time.Time) {
	from := s.acctAt
	s.acctAt = now
	d := now.Sub(from)
	if from.IsZero() || s.closed || d <= 0 || s.idle == 0 {
		return
	}
	s.use.idle += time.Duration(s.idle) * d
	if s.budget != 0 && len(s.ready) > 0 {
		s.use.lost += s.dueTime(from, now, s.idle)
	}
}

// dueTime returns the integral from from to to of min(k, hosts due). It
// walks the ready heap from its root, never below a host due at to or
// later (its children are due no sooner), and stops once k hosts were due
// at from: it visits about k nodes plus those coming due in the interval.
// Callers hold s.mu.
func (s *scheduler) dueTime(from, to time.Time, k int) time.Duration {
	early := 0            // hosts due at from
	later := s.dueBuf[:0] // ready times of hosts coming due in (from, to)
	stack := append(s.stackBuf[:0], 0)
	for len(stack) > 0 && early < k {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		at := s.ready[i].at
		if !at.Before(to) {
			continue
		}
		if at.After(from) {
			later = append(later, at)
		} else {
			early++
		}
		if c := 2*i + 1; c < len(s.ready) {
			stack = append(stack, c)
		}
		if c := 2*i + 2; c < len(s.ready) {
			stack = append(stack, c)
		}
	}
	s.dueBuf, s.stackBuf = later, stack
	span := to.Sub(from)
	if early >= k {
		return time.Duration(k) * span
	}
	total := time.Duration(early) * span
	slices.SortFunc(later, func(a, b time.Time) int { return a.Compare(b) })
	for _, at := range later[:min(len(later), k-early)] {
		total += to.Sub(at)
	}
	return total
}

// usage returns the figures of the run so far.
func (s *scheduler) usage() usage {
	s.lock()
	defer s.mu.Unlock()
	return s.use
}
