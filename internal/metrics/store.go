package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// StoreFigures are the figures only the store knows: its whole frontier,
// and the pages of a continuous crawl due to be fetched again.
type StoreFigures struct {
	// Frontier counts the frontier entries stored (the queue, all of it).
	Frontier int64
	// Due counts the pages waiting to be fetched again (crawl
	// --continuous); DueNow those due now, DueDay those due within a day
	// (DueNow included).
	Due, DueNow, DueDay int64
}

// StoreSource counts the store's figures at now (a scan of keys).
type StoreSource func(ctx context.Context, now time.Time) (StoreFigures, error)

// storeEvery is how often at most the store is counted: scrapes in
// between get the last count, so that a scrape every 15 s does not scan
// a big frontier every 15 s.
const storeEvery = 30 * time.Second

// storeCounter counts the store's figures at most every storeEvery, and
// at most once in ten times the last count took.
type storeCounter struct {
	mu     sync.Mutex
	source StoreSource
	now    func() time.Time
	last   StoreFigures
	at     time.Time // of the last count (zero: none yet)
	took   time.Duration
	ok     bool
}

// SetStore names what counts the store's figures (nil: none; the
// webtable_crawl_stored_* and due metrics are then not served).
func (c *Crawl) SetStore(s StoreSource) {
	c.stored.mu.Lock()
	c.stored.source, c.stored.at, c.stored.ok = s, time.Time{}, false
	c.stored.mu.Unlock()
}

// figures returns the last count, counting again when it is old; ok is
// false when there is no source or no count ever succeeded.
func (sc *storeCounter) figures() (StoreFigures, bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.source == nil {
		return StoreFigures{}, false
	}
	now := sc.now()
	if sc.at.IsZero() || now.Sub(sc.at) >= max(storeEvery, 10*sc.took) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		began := time.Now() // NB: the real clock: now may be a test's
		f, err := sc.source(ctx, now)
		cancel()
		sc.at, sc.took = now, time.Since(began)
		if err == nil {
			sc.last, sc.ok = f, true
		}
	}
	return sc.last, sc.ok
}

var (
	descStored  = desc("stored_frontier_entries", "Frontier entries in the store: the whole queue (frontier_entries is the part in memory). Counted at most every 30 s.")
	descDue     = desc("due_entries", "Pages of a continuous crawl waiting to be fetched again. Counted at most every 30 s.")
	descDueWhen = desc("due_pages", "Pages of a continuous crawl due to be fetched again, by when: now (due time passed), day (within 24 hours, now included).", "when")
)

// collect sends the store's figures, when there is a source.
func (sc *storeCounter) collect(ch chan<- prometheus.Metric) {
	f, ok := sc.figures()
	if !ok {
		return
	}
	gauge := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), labels...)
	}
	gauge(descStored, f.Frontier)
	gauge(descDue, f.Due)
	gauge(descDueWhen, f.DueNow, "now")
	gauge(descDueWhen, f.DueDay, "day")
}
