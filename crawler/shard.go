package crawler

import "github.com/webtable/webtable/urlkey"

// ShardOf returns the shard, in [0, shards), that fetches the pages of host
// when a crawl is split into shards crawlers ([Config.Shards]). With shards
// 0 or 1 it returns 0.
//
// The rule, so that every tool computes the same answer: the host's
// bucket ([urlkey.HostBucket]: FNV-1a 64 of the host without port, lower
// case, modulo [urlkey.Buckets]) falls in one contiguous range of buckets
// per shard ([urlkey.BucketRange]), which is how the store's frontier is
// keyed. So "WWW.CNN.com:8080" and "www.cnn.com." fall in the same shard
// as "www.cnn.com", and http and https of a host always do.
func ShardOf(host string, shards int) int {
	if shards <= 1 {
		return 0
	}
	return urlkey.ShardOfBucket(urlkey.HostBucket(host), shards)
}

// mine reports whether this crawler fetches the pages of host (URL.Host,
// port allowed): always without sharding.
func (c *Crawler) mine(host string) bool {
	return c.cfg.Shards <= 1 || ShardOf(host, c.cfg.Shards) == c.cfg.Shard
}
