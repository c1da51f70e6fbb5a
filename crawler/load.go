package crawler

import (
	"context"
	"fmt"
	"net/url"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// refill reads the next frontier entries of host for the scheduler. An
// entry that cannot be read is named in one line and counted; a store
// failure stops the run.
func (r *run) refill(ctx context.Context, host, from string, n int) (crawlstore.FrontierBatch, error) {
	b, err := r.c.store.Next(r.storeCtx, host, r.startAt(host, from), n)
	if err != nil {
		r.fail(fmt.Errorf("%w: reading the frontier of %s: %w", ErrStore, host, err))
		return b, err
	}
	for _, bad := range b.Bad {
		r.stats.badEntry(r.c.cfg.Log, bad)
	}
	return b, nil
}

// load fills the frontier: first the hosts the store's frontier holds
// (resume; their entries are read as they are needed), then the seeds not
// yet done (all of them with Recrawl). A run without seeds or allowed
// domains resumes every host queued and allows their domains.
func (r *run) load(ctx context.Context, seeds []*url.URL) error {
	anyDomain := len(r.domains) == 0
	err := r.c.store.Hosts(ctx, r.c.cfg.Shard, r.c.cfg.Shards, func(host string) bool {
		name := (&url.URL{Host: host}).Hostname()
		outside := false
		if anyDomain {
			r.domains = append(r.domains, RegistrableDomain(name))
		} else if !domainAllowed(name, r.domains) {
			outside = true // counted and left queued for a run that allows it
		}
		r.sched.addHost(host, outside)
		return true
	})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("crawler: run stopped: %w", ctx.Err())
		}
		return fmt.Errorf("%w: reading queued hosts: %w", ErrStore, err)
	}
	r.domains = normDomains(r.domains)
	if len(seeds) == 0 {
		return nil
	}
	// NB: seeds of other shards' hosts are queued for their shard if new,
	// never queued again once fetched: that is their own shard's call (it
	// gets the same seeds). Requeued here, a failed seed that its shard
	// had just fetched again in this round was left queued at the end.
	var mine, others []crawlstore.Entry
	var hosts []string // of mine
	for _, u := range seeds {
		e := crawlstore.Entry{URL: u.String(), Key: urlkey.KeyOf(u), Depth: 0}
		if r.c.mine(u.Host) {
			mine = append(mine, e)
			hosts = append(hosts, u.Host)
		} else {
			others = append(others, e)
		}
	}
	if _, err := r.enqueueSeeds(others, crawlstore.Requeue{}); err != nil {
		return err
	}
	states, err := r.enqueueSeeds(mine, r.requeue)
	if err != nil {
		return err
	}
	for i, e := range mine {
		switch {
		case e.Frontier != "":
			r.sched.enqueued(hosts[i], e)
		case states[i] == crawlstore.StateQueued:
			r.sched.addHost(hosts[i], false) // queued by an earlier run
		}
	}
	return nil
}

// enqueueSeeds queues seed entries (setting their Frontier when queued)
// with requeue, and returns each one's prior state.
func (r *run) enqueueSeeds(entries []crawlstore.Entry, requeue crawlstore.Requeue) ([]crawlstore.State, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	states, err := r.c.store.Enqueue(r.storeCtx, entries, requeue)
	if err != nil {
		return nil, fmt.Errorf("%w: queueing seeds: %w", ErrStore, err)
	}
	if len(states) != len(entries) {
		return nil, fmt.Errorf("%w: Enqueue returned %d states for %d entries", ErrStore, len(states), len(entries))
	}
	return states, nil
}
