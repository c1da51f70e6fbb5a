package webtable

import (
	"github.com/webtable/webtable/crawlstore"
)

// fireIfQueued fires q when an entry of es was queued (its Frontier set).
func fireIfQueued(q *crawlstore.QueueSignal, es []crawlstore.Entry) {
	for _, e := range es {
		if e.Frontier != "" {
			q.Fire()
			return
		}
	}
}

// Queued implements crawlstore.QueueWatcher: the channel is closed once
// an Enqueue, SavePage or TakeDue of any CrawlStore of the same WebTable
// in this process queues entries. Writers in other processes are not
// seen (a sharded crawl looks for them, see crawler.RunContinuous).
func (s *CrawlStore) Queued() <-chan struct{} { return s.w.queued.Wait() }
