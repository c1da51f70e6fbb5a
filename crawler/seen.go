package crawler

import "sync"

// DefaultSeenCache is the default of Config.SeenCache.
const DefaultSeenCache = 200_000

// seenCache remembers row keys the store has answered for in this run, so
// that a link met again (the home page every page links to) is not sent to
// the store again. It is only an optimisation: every key in it is one the
// store knows and that needs nothing more in this run (queued, or done and
// not to be fetched again; a state never goes back), and a key it forgot
// costs one store read in SavePage's batch, never a lost or doubled URL.
//
// A nil cache remembers nothing. It holds at most size keys in two generations: when the newer fills
// half the size, the older is dropped (an approximate LRU without a list).
type seenCache struct {
	mu       sync.Mutex
	size     int
	cur, old map[string]struct{}
}

func newSeenCache(size int) *seenCache {
	return &seenCache{size: size, cur: map[string]struct{}{}}
}

// has reports whether key is remembered.
func (c *seenCache) has(key string) bool {
	if c == nil || c.size <= 0 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.cur[key]; ok {
		return true
	}
	if _, ok := c.old[key]; ok {
		c.cur[key] = struct{}{}
		c.rotate()
		return true
	}
	return false
}

// add remembers keys.
func (c *seenCache) add(keys ...string) {
	if c == nil || c.size <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		c.cur[k] = struct{}{}
		c.rotate()
	}
}

// rotate drops the older generation when the newer is full. Callers hold
// c.mu.
func (c *seenCache) rotate() {
	if len(c.cur) >= max(c.size/2, 1) {
		c.old, c.cur = c.cur, make(map[string]struct{}, len(c.cur))
	}
}
