package crawler

import "time"

// usage measures how well a run kept its workers busy. Ready is the time
// during which some host was ready: an entry of it could be handed out
// and its request start at once (the MaxPages budget allowing). Idle is
// the part of Ready during which at least one worker waited nonetheless,
// for an entry (in pop) or for a host's turn (in acquire). Idle near zero
// means that whenever a host was ready, every worker was busy.
type usage struct {
	ready, idle time.Duration
}

// account adds the time since the last call to s.use, by the state the
// scheduler had over it: nothing of that state changes without s.mu, and
// every change under s.mu is preceded by a call (see lock). Within the
// interval the only change is time itself passing the soonest host's
// ready time. Callers hold s.mu.
func (s *scheduler) account(now time.Time) {
	from := s.acctAt
	s.acctAt = now
	if from.IsZero() || s.closed || s.budget == 0 || len(s.ready) == 0 {
		return
	}
	if at := readyAt(s.ready[0]); at.After(from) {
		from = at
	}
	if d := now.Sub(from); d > 0 {
		s.use.ready += d
		if s.idle > 0 {
			s.use.idle += d
		}
	}
}

// usage returns the figures of the run so far.
func (s *scheduler) usage() usage {
	s.lock()
	defer s.mu.Unlock()
	return s.use
}
