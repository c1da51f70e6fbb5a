package crawler

import (
	"github.com/webtable/webtable/crawlstore"
)

// mine reports whether this crawler fetches the pages of host (URL.Host,
// port allowed): always without sharding.
func (c *Crawler) mine(host string) bool {
	return c.cfg.Shards <= 1 || crawlstore.ShardOf(host, c.cfg.Shards) == c.cfg.Shard
}
