package crawler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// Continuous crawls (crawl --continuous).
//
// A continuous crawl never ends by itself. It runs as rounds: each round
// is one run (Run), which fetches what the frontier holds, new links
// first by discovery as always; with every fetch the crawler estimates the
// page's change rate from its history (the Change kept with its fetch
// record, see recrawl.go) and tells the store when the page is due again
// (Page.Change.Due), which the store keeps as a due entry, ordered by due
// time per host ([crawlstore.DueKeeper]). Between rounds the crawl moves
// the pages due by now into the frontier (TakeDue) and, when none is due,
// waits on one timer for the earliest due time; Ctrl-C (ctx) ends the
// wait at once. A restart, or another shard, carries on from the store.
//
// New links wake the wait early: a link queued meanwhile starts a round
// at once, without waiting for the next page due. Within the process a
// [crawlstore.QueueWatcher] store says so (another crawler's links on
// the same store, a caller's Enqueue); a sharded crawl, whose other
// shards queue links for this one's hosts from other processes, also
// looks at the frontier every dueFeedWait (on the clock) for hosts that
// had no entries when the wait began (Store.Hosts: the hosts, not their
// entries). Otherwise the wait is one timer, reading nothing.

// Clock is the crawler's source of time for fetch times, due times and
// the budget, so that tests can run hours of a continuous crawl at once.
// Politeness delays and timeouts stay on the real clock.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// After returns a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

// realClock is the system's clock.
type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// dueFeedWait is how long a sharded continuous crawl waits, at most,
// before it looks for entries other shards queued.
const dueFeedWait = time.Second

// takeDueMax bounds the pages one round moves from due to the frontier.
const takeDueMax = 10_000

// ErrNotDueKeeper is returned by RunContinuous for a store that keeps no
// due times.
var ErrNotDueKeeper = errors.New("crawler: the store cannot keep due times (continuous crawls need a WebTable)")

// RunContinuous crawls from seeds, then fetches every page again when it
// is due, until ctx ends (Config.Continuous must be set). It returns the
// sums of its rounds' statistics and ctx's error wrapped as Run does, or
// the first error of a round.
func (c *Crawler) RunContinuous(ctx context.Context, seeds []string) (Stats, error) {
	if !c.cfg.Continuous {
		return Stats{}, fmt.Errorf("%w: RunContinuous without Config.Continuous", ErrConfig)
	}
	// NB: the store itself, not bounded by a run's cut-off (see cutoff.go):
	// the wait between rounds is no run's.
	dk, ok := c.store.s.(crawlstore.DueKeeper)
	if !ok {
		return Stats{}, ErrNotDueKeeper
	}
	var total Stats
	var woke time.Time // the sitemap due time that last started a round
	for {
		st, err := c.Run(ctx, seeds)
		total = total.Add(st)
		total.HeldBack, total.Sitemaps = st.HeldBack, st.Sitemaps
		if err != nil {
			return total, err
		}
		// NB: every round gets the seeds again: they are done (not queued
		// again) but name the allowed domains of the round.
		if err := c.waitDue(ctx, dk, &woke); err != nil {
			return total, err
		}
	}
}

// waitDue moves the pages due into the frontier, waiting until some are,
// until a sitemap is due, or until a look at the frontier finds entries
// queued meanwhile; it returns ctx's error, wrapped, when ctx ends first,
// or the store's. woke is the sitemap due time that last ended a wait.
func (c *Crawler) waitDue(ctx context.Context, dk crawlstore.DueKeeper, woke *time.Time) error {
	storeCtx := context.WithoutCancel(ctx)
	var held map[string]bool // hosts with entries when the wait began, sharded
	if c.cfg.Shards > 1 {
		var err error
		if held, err = c.queuedHosts(storeCtx, nil); err != nil {
			return err
		}
	}
	qw, _ := c.store.s.(crawlstore.QueueWatcher)
	for {
		var queued <-chan struct{} // nil: never
		if qw != nil {
			queued = qw.Queued()
		}
		now := c.clock.Now()
		taken, next, err := dk.TakeDue(storeCtx, c.cfg.Shard, c.cfg.Shards, now, takeDueMax)
		if err != nil {
			return fmt.Errorf("%w: taking the pages due: %w", ErrStore, err)
		}
		if taken > 0 {
			return nil
		}
		// A sitemap due starts a round, which reads it (continuous_sitemap_due.go).
		sdue, err := c.nextSitemapDue(storeCtx)
		if err != nil {
			return err
		}
		switch {
		case !sdue.IsZero() && !sdue.After(now) && !sdue.Equal(*woke):
			*woke = sdue
			return nil
		case !sdue.IsZero() && !sdue.After(now):
			// NB: the round it started did not read it (its host's
			// robots.txt failed, say, before the read was scheduled):
			// looked at again a --min-interval later, not in a spin.
			sdue = now.Add(c.cfg.MinInterval)
		}
		if !sdue.IsZero() && (next.IsZero() || sdue.Before(next)) {
			next = sdue
		}
		wait := dueFeedWait
		if c.cfg.Shards <= 1 {
			wait = time.Duration(1<<63 - 1)
		}
		if !next.IsZero() {
			wait = min(wait, max(next.Sub(now), time.Millisecond))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("crawler: run stopped: %w", ctx.Err())
		case <-queued:
			return nil // links queued meanwhile go first
		case <-c.clock.After(wait):
		}
		if c.cfg.Shards <= 1 {
			continue
		}
		fresh, err := c.queuedHosts(storeCtx, held)
		if err != nil {
			return err
		}
		if len(fresh) > 0 {
			return nil // links queued meanwhile go first
		}
	}
}

// queuedHosts returns the hosts of the shard that have frontier entries,
// leaving out those of held (nil: none): entries that the last round left
// queued on purpose (held back, over --max-pages-per-host) wake no wait.
//
// NB: so a link queued for a host that already had entries left waits
// for the next round; a new host's wakes the wait.
func (c *Crawler) queuedHosts(ctx context.Context, held map[string]bool) (map[string]bool, error) {
	hosts := map[string]bool{}
	err := c.store.s.Hosts(ctx, c.cfg.Shard, c.cfg.Shards, func(h string) bool {
		if !held[h] {
			hosts[h] = true
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("%w: listing frontier hosts: %w", ErrStore, err)
	}
	return hosts, nil
}
