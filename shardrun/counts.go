package shardrun

import (
	"context"
	"sync"

	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/webtable"
)

// countingStore counts, for the shard's record, the frontier entries the
// crawler queued and the pages it finished. It keeps the optional powers
// of the store it wraps (the crawler asks for them).
type countingStore struct {
	*webtable.CrawlStore
	mu               sync.Mutex
	queued, finished int64
}

func (c *countingStore) take() (q, f int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	q, f = c.queued, c.finished
	c.queued, c.finished = 0, 0
	return q, f
}

func (c *countingStore) giveBack(q, f int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.queued += q
	c.finished += f
}

func (c *countingStore) add(states []crawlstore.State, finished int64) {
	var q int64
	for _, st := range states {
		if st == crawlstore.StateNone {
			q++
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.queued += q
	c.finished += finished
}

// Enqueue implements crawlstore.Store.
func (c *countingStore) Enqueue(ctx context.Context, entries []crawlstore.Entry, rq crawlstore.Requeue) ([]crawlstore.State, error) {
	states, err := c.CrawlStore.Enqueue(ctx, entries, rq)
	if err == nil {
		c.add(states, 0)
	}
	return states, err
}

// SavePage implements crawlstore.Store.
func (c *countingStore) SavePage(ctx context.Context, p *crawlstore.Page) (crawlstore.SaveResult, error) {
	res, err := c.CrawlStore.SavePage(ctx, p)
	if err == nil {
		c.add(res.States, 1)
	}
	return res, err
}
