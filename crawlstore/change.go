package crawlstore

import (
	"context"
	"sync"
	"time"
)

// Change is what a page's fetches said of how often it changes, and when
// it is due again in a continuous crawl (crawl --continuous). The crawler
// computes it with each fetch (Page.Change) and the store keeps it with
// the fetch record (Fetch.Change) for the next one.
type Change struct {
	// Visits counts the fetches compared with the one before them;
	// Changes those that found the content changed.
	Visits, Changes int
	// Span is the time those visits covered; Shortest the shortest
	// interval between two of them.
	Span, Shortest time.Duration
	// Dated counts the fetches, the first included, whose Last-Modified
	// date agreed with the content (a date since the fetch before exactly
	// when the content changed); DatedChanges the changes they dated;
	// Quiet the time they saw the page go without changing. They are the
	// state of the estimate from Last-Modified dates (Cho and
	// Garcia-Molina), 0 for a page that sends none.
	Dated, DatedChanges int
	Quiet               time.Duration
	// Modified is the Last-Modified date of the fetch as the estimate
	// used it (parsed; a 304 without one keeps the date of the fetch
	// before); zero when the server sent none, or one the estimate could
	// not use (in the future, before 1995).
	Modified time.Time
	// Rate is the estimated rate of change in changes per second; -1 when
	// unknown (too few visits, an odd history).
	Rate float64
	// Due is when the page is to be fetched again; zero when the crawl is
	// not continuous. A store that is a [DueKeeper] keeps a due entry for
	// the page at this time.
	Due time.Time
}

// DueKeeper is a [Store] that keeps, for a continuous crawl, when each
// fetched page is due again (Page.Change.Due): one due entry per page,
// ordered by due time per host, written by SavePage with the page's mark.
type DueKeeper interface {
	// TakeDue queues again (as Enqueue does, into the frontier) up to n
	// pages of shard (of shards; all when shards <= 1) due at or before
	// now, and deletes their due entries once they are queued, so that a
	// crash in between loses none (a page queued twice is fetched once).
	// It returns how many it queued and the earliest due time of the
	// entries left (zero when none is left).
	TakeDue(ctx context.Context, shard, shards int, now time.Time, n int) (taken int, next time.Time, err error)
}

// QueueWatcher is a [Store] that tells, within one process, when entries
// are queued through it: a continuous crawl waiting for its next page due
// ([DueKeeper]) fetches a link queued meanwhile at once (another
// crawler's in the same process, a caller's Enqueue).
type QueueWatcher interface {
	// Queued returns a channel that is closed once entries are next
	// queued in the frontier (by Enqueue, SavePage or TakeDue) after the
	// call.
	Queued() <-chan struct{}
}

// QueueSignal is the channel of a [QueueWatcher], for its implementations:
// Wait returns the channel that the next Fire closes. The zero value is
// ready to use, by any number of goroutines.
type QueueSignal struct {
	mu sync.Mutex
	ch chan struct{} // nil: nobody waits
}

// Wait returns the channel that the next Fire closes.
func (q *QueueSignal) Wait() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ch == nil {
		q.ch = make(chan struct{})
	}
	return q.ch
}

// Fire closes the channel of the waiters, if any.
func (q *QueueSignal) Fire() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ch != nil {
		close(q.ch)
		q.ch = nil
	}
}
