package crawler

import (
	"hash/fnv"
	"net"
	"strings"
)

// ShardOf returns the shard, in [0, shards), that fetches the pages of host
// when a crawl is split into shards crawlers ([Config.Shards]). With shards
// 0 or 1 it returns 0.
//
// The rule, so that every tool computes the same answer: take host as
// url.URL.Host or url.URL.Hostname of a canonical URL holds it
// ([urlkey.Canonical]: internationalised names in their ASCII "xn--"
// form), drop a port (":8080") and the brackets of an IPv6 literal, drop
// one trailing dot, lower-case it;
// hash those bytes with 64-bit FNV-1a (hash/fnv.New64a); the shard is the
// hash modulo shards. So "WWW.CNN.com:8080" and "www.cnn.com." fall in the
// same shard as "www.cnn.com", and http and https of a host always do.
func ShardOf(host string, shards int) int {
	if shards <= 1 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(shardHost(host)))
	return int(h.Sum64() % uint64(shards))
}

// shardHost normalises host as ShardOf documents.
func shardHost(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	host = strings.TrimSuffix(host, ".")
	return strings.ToLower(host)
}

// mine reports whether this crawler fetches the pages of host (URL.Host,
// port allowed): always without sharding.
func (c *Crawler) mine(host string) bool {
	return c.cfg.Shards <= 1 || ShardOf(host, c.cfg.Shards) == c.cfg.Shard
}
