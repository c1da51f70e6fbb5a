package crawler

import (
	"context"
	"fmt"
)

// FrontierHinter is a [Store] that knows where each host's live frontier
// entries probably start. A store that deletes an entry when its page is
// done may keep a trace of it that every later read walks over (Badger
// keeps tombstones until compactions drop them); a run that resumes after
// many pages of a host would read all of those before its first fetch.
//
// A hint is only a hint: live entries may sit before it (pages in flight
// when the hint was written, entries committed out of the order of their
// positions). The crawler starts a host's first read of a run at its hint
// and reads the entries before it in the background (readBehind), queueing
// the live ones it finds, so a wrong hint costs reads, never an entry. The
// run is not over before that read is.
type FrontierHinter interface {
	// FrontierHint returns a position of host's frontier (for Next's from)
	// at or near its first live entry, or "" when the store has none.
	FrontierHint(ctx context.Context, host string) (string, error)
}

// startAt returns where the run's first read of host's frontier starts:
// the store's hint, when it has one for this host and the read would start
// at the host's first entry (from == ""); then the entries before the hint
// are read in the background. Otherwise it returns from.
func (r *run) startAt(host, from string) string {
	hs, ok := r.c.store.(FrontierHinter)
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
