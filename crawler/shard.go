package crawler

import "github.com/webtable/webtable/urlkey"

// ShardOf returns the shard, in [0, shards), that fetches the pages of host
// when a crawl is split into shards crawlers ([Config.Shards]). With shards
// 0 or 1 it returns 0.
//
// The rule, so that every tool computes the same answer: the host's bucket
// ([urlkey.HostBucket]: 64-bit FNV-1a of the lower-cased host without port,
// brackets or trailing dot, modulo [urlkey.Buckets]) falls in one shard's
// contiguous range of buckets ([urlkey.BucketRange]). So
// "WWW.CNN.com:8080" and "www.cnn.com." fall in the same shard as
// "www.cnn.com", http and https of a host always do, and a shard finds its
// hosts' frontier entries in one range of the store's keys.
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
