package urlkey

import (
	"hash/fnv"
	"net"
	"strings"
)

// Buckets is the number of host buckets ([HostBucket]): 720720, the least
// common multiple of 1..16, so that a crawl split into any number of shards
// up to 16 (and many more: 18, 20, 24, ...) gives each shard one contiguous
// range of buckets of the same size.
const Buckets = 720720

// HostBucket returns the bucket of a host, in [0, Buckets): the WebTable's
// frontier is keyed by it first, and a shard owns a contiguous range of
// buckets. The rule, so that every tool computes the same answer: take the
// host as url.URL.Host or url.URL.Hostname of a canonical URL holds it;
// drop a port (":8080") and the brackets of an IPv6 literal, drop one
// trailing dot, lower-case it; hash those bytes with 64-bit FNV-1a
// (hash/fnv.New64a); the bucket is the hash modulo Buckets. So
// "WWW.CNN.com:8080" and "www.cnn.com." fall in the bucket of
// "www.cnn.com", and http and https of a host always do.
func HostBucket(host string) int {
	h := fnv.New64a()
	h.Write([]byte(bucketHost(host)))
	return int(h.Sum64() % Buckets)
}

// bucketHost normalises host as HostBucket documents.
func bucketHost(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	host = strings.TrimSuffix(host, ".")
	return strings.ToLower(host)
}

// BucketRange returns the buckets shard (in [0, shards)) owns when a crawl
// is split into shards: [lo, hi). With shards <= 1 it is every bucket.
// When shards divides Buckets the ranges have equal sizes.
func BucketRange(shard, shards int) (lo, hi int) {
	if shards <= 1 {
		return 0, Buckets
	}
	return shard * Buckets / shards, (shard + 1) * Buckets / shards
}

// ShardOfBucket returns the shard that owns bucket b, the inverse of
// [BucketRange].
func ShardOfBucket(b, shards int) int {
	if shards <= 1 {
		return 0
	}
	// The least s with b < (s+1)*Buckets/shards.
	s := b * shards / Buckets
	for s > 0 && b < s*Buckets/shards {
		s--
	}
	for b >= (s+1)*Buckets/shards {
		s++
	}
	return s
}
