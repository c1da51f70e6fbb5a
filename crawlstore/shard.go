package crawlstore

import (
	"strings"

	"github.com/webtable/webtable/urlkey"
)

// ShardOf returns the shard, in [0, shards), that fetches the pages of host
// when a crawl is split into shards crawlers (crawler.Config.Shards). With shards
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

// HostOf returns the host (with its port) of a canonical URL, as
// url.URL.Host holds it, without parsing the rest.
func HostOf(canonical string) string {
	_, rest, ok := strings.Cut(canonical, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}
