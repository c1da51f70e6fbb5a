package crawler

import (
	"fmt"
	"time"

	"github.com/webtable/webtable/crawlstore"
)

// requeueModified queues again, in a continuous crawl, the pages of
// entries (listed by a sitemap, already known to the store: states) whose
// sitemap lastmod is newer than their last fetch: they are due now,
// whatever their due entry says. It returns the entries it queued.
//
// NB: Requeue.Before is the lastmod itself (capped at the run's start),
// so that the store queues a page only when its last fetch started
// before the sitemap says it changed; pages of one lastmod go in one call.
func (r *run) requeueModified(entries []crawlstore.Entry, states []crawlstore.State) ([]crawlstore.Entry, error) {
	if !r.c.cfg.Continuous {
		return nil, nil
	}
	byTime := map[time.Time][]crawlstore.Entry{}
	for i, e := range entries {
		if st := states[i]; (st == crawlstore.StateDone || st == crawlstore.StateFailed) && !e.Sitemap.LastMod.IsZero() {
			t := e.Sitemap.LastMod
			if t.After(r.start) {
				t = r.start
			}
			byTime[t] = append(byTime[t], e)
		}
	}
	var queued []crawlstore.Entry
	for t, es := range byTime {
		if _, err := r.c.store.Enqueue(r.storeCtx, es, crawlstore.Requeue{Failed: true, Done: true, Before: t}); err != nil {
			return queued, fmt.Errorf("%w: queueing pages a sitemap says changed: %w", ErrStore, err)
		}
		for _, e := range es {
			if e.Frontier != "" {
				queued = append(queued, e)
			}
		}
	}
	return queued, nil
}
