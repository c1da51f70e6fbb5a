package crawler

import (
	"maps"
	"sync/atomic"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// Hooks are called as a run goes, for metrics. They are called from many
// goroutines at once and must return quickly; a nil hook is not called.
// Not flags.
type Hooks struct {
	// Fetch is called after each request for a page (a retry is a request
	// of its own) with how long it took, from sending it until its body
	// was read or it failed, and the final HTTP status (0: no response).
	Fetch func(d time.Duration, status int)
	// Store is called after each Store.SavePage with how long it took.
	Store func(d time.Duration)
}

func (h *Hooks) fetched(d time.Duration, status int) {
	if h.Fetch != nil {
		h.Fetch(d, status)
	}
}

func (h *Hooks) stored(d time.Duration) {
	if h.Store != nil {
		h.Store(d)
	}
}

// Gauges are the levels of a run at one moment, beside its counts.
type Gauges struct {
	// Hosts is the number of hosts with entries to fetch in this run.
	Hosts int64
	// HeldBack counts, by reason, the origins whose entries were set aside
	// in this run (HeldBack in the last snapshot lists them).
	HeldBack map[crawlstore.HoldReason]int64
	// Robots is the number of robots.txt files cached.
	Robots int64
}

// current is the run in progress or the last one, for Crawler.Stats.
type current = atomic.Pointer[run]

// Stats returns a snapshot of the run in progress, or the last one's
// final figures (Stats.Done), with its Gauges; ok is false before the
// first run. It may be called at any time from any goroutine (a metrics
// scrape).
func (c *Crawler) Stats() (s Stats, g Gauges, ok bool) {
	r := c.cur.Load()
	if r == nil {
		return Stats{}, Gauges{}, false
	}
	s = r.stats.snapshot(r.sched)
	g.Hosts, g.HeldBack = r.sched.gauges()
	g.Robots = c.rob.cached()
	return s, g, true
}

// gauges counts the hosts with work and the origins set aside by reason.
func (s *scheduler) gauges() (hosts int64, held map[crawlstore.HoldReason]int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	held = make(map[crawlstore.HoldReason]int64)
	for k := range maps.Keys(s.aside) {
		held[k.reason]++
	}
	return int64(s.work), held
}

// cached is the number of robots.txt files in the cache.
func (r *robots) cached() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return int64(r.lru.Len())
}
