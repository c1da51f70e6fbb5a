package stores

// CrawlMemoryLimit is the Go soft memory limit a crawl runs under unless
// the GOMEMLIMIT environment variable sets one (memlimit.Set), in bytes.
//
// NB: the store a crawl opens in a directory keeps its own memory within
// what its sizing allows (CrawlStoreOptions; see
// TestMemoryLimitCoversStore in cmd/crawl), and the crawler's state is
// bounded by its flags; what is left to grow is garbage awaiting
// collection, which by Go's default (GOGC=100) may reach the live heap
// again. The limit makes the collector run sooner as the heap nears it
// instead of letting garbage double the heap. The value is measured: with
// 512 MiB the 100,000-fetch crawl of BenchmarkFlatMemory sat at the limit,
// 150-185 MiB above the 10,000-fetch one; with 448 MiB, 48-65 MiB above
// it, no slower (docs/design/web-scale.md). It is soft: a crawl that truly
// needs more (millions of hosts, a --seen-cache far above its default)
// gets it, at the cost of more frequent collections.
const CrawlMemoryLimit = 448 << 20
