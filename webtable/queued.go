package webtable

import (
	"sync"

	"github.com/webtable/webtable/crawlstore"
)

// queueSignal tells waiters that frontier entries were queued: each
// Queued channel is closed at the next fire.
type queueSignal struct {
	mu sync.Mutex
	ch chan struct{} // nil: nobody waits
}

// wait returns the channel the next fire closes.
func (q *queueSignal) wait() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ch == nil {
		q.ch = make(chan struct{})
	}
	return q.ch
}

// fire closes the channel of the waiters, if any.
func (q *queueSignal) fire() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ch != nil {
		close(q.ch)
		q.ch = nil
	}
}

// fireIfQueued fires q when an entry of es was queued (its Frontier set).
func (q *queueSignal) fireIfQueued(es []crawlstore.Entry) {
	for _, e := range es {
		if e.Frontier != "" {
			q.fire()
			return
		}
	}
}

// Queued implements crawlstore.QueueWatcher: the channel is closed once
// an Enqueue, SavePage or TakeDue of any CrawlStore of the same WebTable
// in this process queues entries. Writers in other processes are not
// seen (a sharded crawl looks for them, see crawler.RunContinuous).
func (s *CrawlStore) Queued() <-chan struct{} { return s.w.queued.wait() }
