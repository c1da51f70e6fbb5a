package main

import (
	"runtime/debug"
)

// defaultMemoryLimit is the Go soft memory limit a crawl runs under unless
// the GOMEMLIMIT environment variable sets one (see setMemoryLimit).
//
// NB: the store a crawl opens in a directory keeps its own memory within
// what its sizing allows (stores.CrawlStoreOptions; see
// TestMemoryLimitCoversStore), and the crawler's state is bounded by its
// flags; what is left to grow is garbage awaiting collection, which by
// Go's default (GOGC=100) may reach the live heap again. The limit makes
// the collector run sooner as the heap nears it instead of letting garbage
// double the heap. The value is measured: with 512 MiB the 100,000-fetch
// crawl of BenchmarkFlatMemory sat at the limit, 150-185 MiB above the
// 10,000-fetch one; with 448 MiB, 48-65 MiB above it, no slower (docs/design/web-scale.md). It is soft: a crawl that
// truly needs more (millions of hosts, a --seen-cache far above its
// default) gets it, at the cost of more frequent collections.
const defaultMemoryLimit = 448 << 20

// setMemoryLimit sets the Go runtime's soft memory limit to limit, unless
// getenv("GOMEMLIMIT") is set, in which case the runtime has already
// applied that. It returns a function that restores the previous limit.
func setMemoryLimit(getenv func(string) string, limit int64) (restore func()) {
	if getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(old) }
}
