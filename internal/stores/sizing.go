package stores

import "github.com/webtable/webtable/bigtable"

// CrawlStoreOptions are the options [Open] gives the embedded store opened
// [ForCrawl], before the caller's own (opts.Store), which override them.
//
// A crawl writes without pause for hours, and its store grows with it
// (every link queued is a frontier row), so the store is sized for memory
// that does not depend on how large the store grows (see
// bigtable.Sizing.WriteMemory), rather than for the bigtable package's
// defaults, which absorb longer bursts of writes with more memory:
//
//   - 8 MiB memtables, 2 of them waiting at most: each memtable flush
//     builds its table in buffers of about twice the memtable, and Badger
//     keeps 8 such buffers for reuse, so the memtable size bounds that
//     memory too (64 MiB memtables peaked at 580 MiB of live heap in a
//     crawl of 20,000 pages, 8 MiB ones at 200 MiB; see README);
//   - 2 compactors, each building at most 13 tables at once;
//   - every table file of the same size (2 MiB): with Badger's default of
//     doubling the size at each deeper level, a compaction into the
//     deepest level builds larger tables as the store grows.
//
// NB: one row's mutation may then hold at most about 1.2 MiB of keys and
// of values under 256 bytes (larger values go to the value log and count
// as pointers); a larger one fails with bigtable.ErrTooLarge naming the
// row. A crawl writes a few cells per row at a time, and "query export"
// (webtable.Copy) writes a large row in parts of at most 256 KiB.
func CrawlStoreOptions() []bigtable.Option {
	return []bigtable.Option{
		bigtable.WithMemTableSize(8 << 20),
		bigtable.WithNumMemtables(2),
		bigtable.WithNumCompactors(2),
		bigtable.WithBaseTableSize(2 << 20),
		bigtable.WithTableSizeMultiplier(1),
	}
}
