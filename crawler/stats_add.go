package crawler

import (
	"maps"

	"github.com/webtable/webtable/crawlstore"
)

// Add returns the figures of two runs in turn, s then b (the rounds of a
// continuous crawl, or of a shard): their counts (Fetched, NewVersions,
// Unchanged, Redirects, Errors and ErrorsByKind, ByStatusClass, Traps,
// Retries, BadEntries, Bytes, Idle, IdleReady, Elapsed) added, and b's
// state at its end (Queued, InFlight, Done). RetriesBy, Failures,
// HeldBack, MaxPagesReached and Sitemaps are s's. Neither s nor b is
// changed: the result has a map of its own.
func (s Stats) Add(b Stats) Stats {
	s.Fetched += b.Fetched
	s.NewVersions += b.NewVersions
	s.Unchanged += b.Unchanged
	s.Redirects += b.Redirects
	s.Errors += b.Errors
	s.Traps += b.Traps
	s.Retries += b.Retries
	s.Bytes += b.Bytes
	s.BadEntries += b.BadEntries
	s.Elapsed += b.Elapsed
	s.Idle += b.Idle
	s.IdleReady += b.IdleReady
	for i := range s.ByStatusClass {
		s.ByStatusClass[i] += b.ByStatusClass[i]
	}
	if len(b.ErrorsByKind) > 0 {
		m := maps.Clone(s.ErrorsByKind)
		if m == nil {
			m = map[crawlstore.ErrorKind]int64{}
		}
		for k, v := range b.ErrorsByKind {
			m[k] += v
		}
		s.ErrorsByKind = m
	}
	s.Queued, s.InFlight, s.Done = b.Queued, b.InFlight, b.Done
	return s
}
