package crawler

import (
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// startAt returns where the run's first read of host's frontier starts:
// the store's hint, when it has one for this host and the read would start
// at the host's first entry (from == ""); then the entries before the hint
// are read in the background. Otherwise it returns from.
func (r *run) startAt(host, from string) string {
	hs, ok := has[crawlstore.FrontierHinter](r.c.store)
	if !ok || from != "" {
		return from
	}
	r.mu.Lock()
	if r.hinted == nil {
		r.hinted = make(map[string]bool)
	}
	seen := r.hinted[host]
	r.hinted[host] = true
	r.mu.Unlock()
	if seen {
		return from
	}
	hint, err := hs.FrontierHint(r.storeCtx, host)
	if err != nil || hint == "" {
		// NB: without a hint the read starts at the first entry, which is
		// always right; a store that fails says so on that read.
		return from
	}
	if !r.sched.checking() {
		return from // the run is over
	}
	r.bg.Add(1)
	go func() {
		defer r.bg.Done()
		defer r.sched.checked()
		r.readBehind(host, hint)
	}()
	return hint
}

// readBehind reads host's frontier entries before hint, where the run's
// reads of the host started, and hands the live ones to the scheduler as
// newly queued (it reads them again from the earliest one). It stops when
// it reaches the hint, when the run is over, or on a store failure, which
// stops the run.
func (r *run) readBehind(host, hint string) {
	from := ""
	for !r.sched.isClosed() {
		b, err := r.c.store.Next(r.storeCtx, host, from, r.sched.window)
		if err != nil {
			r.fail(fmt.Errorf("%w: reading the frontier of %s: %w", ErrStore, host, err))
			return
		}
		// NB: a bad entry of this batch may lie after the hint, and then
		// the run's own read names it too; named twice beats never.
		for _, bad := range b.Bad {
			r.stats.badEntry(r.c.cfg.Log, bad)
		}
		for _, e := range b.Entries {
			if e.Frontier >= hint {
				return
			}
			r.sched.enqueued(host, e)
		}
		if !b.More || b.Next >= hint {
			return
		}
		from = b.Next
	}
}

// Taking up the work of other shards.
//
// In a sharded run (Config.Shards > 1) the other shards queue links to
// this shard's hosts in the store while the run goes on. The run learns
// of its own entries as it queues them (scheduler.enqueued) and of the
// hosts it resumed (load), not of those: without a look at the store it
// ended once its own work was done, and the shard started a new run to
// take up what had come meanwhile, a run per hop of links that cross
// shards (issue 30: 3 shards of a 200-host web, in runs of 20-180 pages,
// crawled 3.4 times slower than one shard). So the run looks at the store
// while it goes on, and hands each host that got entries to the
// scheduler, which reads them from where it stopped; and once its own
// work is done it goes on looking for feedLinger before it ends.
//
// A look asks a [crawlstore.HostFeed] store for the hosts other shards queued
// entries for since the last look (one short read), every feedMin; any
// other store lists the shard's hosts again (Store.Hosts: a read per host
// with entries), waiting feedCost times as long as the last look took
// before the next one (between feedMin and feedMax), so that looking costs
// the store a bounded share of its time whatever the number of hosts.
//
// NB: a run ends only after two looks in a row found it with nothing in
// hand, feedLinger apart at least; an entry queued after that is the next
// run's (the shard starts one when its part holds entries), never lost.
// So is an entry written behind a host's cursor (by a process whose clock
// is behind), or one a HostFeed missed.
const (
	feedCost   = 3
	feedMin    = 10 * time.Millisecond
	feedMax    = time.Second
	feedLinger = 500 * time.Millisecond
)

// feed starts taking up the hosts that other shards queue entries for,
// in a sharded run, and returns the function that stops it (and waits for
// it); it does nothing in a run that is not sharded. Until it is stopped
// or has found the run idle (see above), the run is not over.
func (r *run) feed() (stop func()) {
	if r.c.cfg.Shards <= 1 || !r.sched.checking() {
		return func() {}
	}
	shard, shards := r.c.cfg.Shard, r.c.cfg.Shards
	take := func(host string) {
		if domainAllowed((&url.URL{Host: host}).Hostname(), r.domains) {
			r.sched.addHost(host, false)
		}
	}
	done := make(chan struct{})
	look := func() error {
		if hf, ok := has[crawlstore.HostFeed](r.c.store); ok {
			return hf.FedHosts(r.storeCtx, shard, shards, take)
		}
		return r.c.store.Hosts(r.storeCtx, shard, shards, func(host string) bool {
			take(host)
			select {
			case <-done:
				return false
			default:
				return true
			}
		})
	}
	_, cheap := has[crawlstore.HostFeed](r.c.store)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer r.sched.checked()
		wait := feedMin
		var idleSince time.Time
		idleLooks := 0
		for {
			select {
			case <-done:
				return
			case <-time.After(wait):
			}
			if inWindow, held := r.sched.queued(); inWindow == 0 && held == 0 {
				if idleLooks == 0 {
					idleSince = time.Now()
				}
				if idleLooks++; idleLooks >= 2 && time.Since(idleSince) >= feedLinger {
					return // the run ends once the scheduler has nothing
				}
			} else {
				idleLooks = 0
			}
			began := time.Now()
			switch err := look(); {
			case err != nil:
				// NB: the run's own reads of the store say so, and the
				// next run takes up what this look missed.
				wait = feedMax
			case cheap:
				wait = feedMin
			default:
				wait = min(max(feedCost*time.Since(began), feedMin), feedMax)
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
