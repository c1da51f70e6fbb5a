package bigtable

import (
	"os"
	"path/filepath"
	"strings"
)

// Sizing is how a set of options sizes Badger's memory; see "Memory and
// sizing" in the package documentation. Get it with SizingOf.
type Sizing struct {
	MemTableSize        int64 // WithMemTableSize, bytes
	NumMemtables        int   // WithNumMemtables
	NumCompactors       int   // WithNumCompactors
	BaseTableSize       int64 // WithBaseTableSize, bytes
	TableSizeMultiplier int   // WithTableSizeMultiplier
	BlockCacheSize      int64 // WithBlockCacheSize, bytes
}

// SizingOf returns the sizing that opts (applied in order over the
// defaults, as Open applies them) give.
func SizingOf(opts ...Option) Sizing {
	o := defaultOptions()
	for _, opt := range opts {
		opt.apply(&o)
	}
	return Sizing{
		MemTableSize:        o.memTableSize,
		NumMemtables:        o.numMemtables,
		NumCompactors:       o.numCompactors,
		BaseTableSize:       o.baseTableSize,
		TableSizeMultiplier: o.tableSizeMult,
		BlockCacheSize:      o.blockCacheSize,
	}
}

// Badger's internals that bound its write path (badger v4; see
// WriteMemory).
const (
	// badgerPooledBuilders is how many table builders' buffers Badger
	// keeps for reuse (its allocator pool); each keeps what it grew to.
	badgerPooledBuilders = 8
	// badgerBuildersPerCompaction bounds the tables one compaction builds
	// at once (8 plus at most 5 key ranges compacted side by side).
	badgerBuildersPerCompaction = 13
	// badgerIndexBuilder is what Badger allocates to build the index of
	// each table it finishes.
	badgerIndexBuilder = 3 << 20
)

// WriteMemory returns an upper estimate of the Go heap, in bytes, that
// Badger's write path holds with this sizing, however large the store
// grows; -1 when that grows with the store (TableSizeMultiplier above 1).
// It is a sum from Badger's design, not a measurement (crawls measured
// about half of it live), made of:
//
//   - NumMemtables + 2 memtables: the one being written, those waiting to
//     be flushed to level 0 and the one being flushed, each an arena of
//     1.3 x MemTableSize (the table and room for one more transaction);
//   - 8 table builders kept for reuse, each grown by a flush to the buffers
//     of one memtable's table: buffers that start at 2 x BaseTableSize and
//     double, so at most twice a memtable's arena plus twice the first;
//   - NumCompactors compactions, each building up to 13 tables at once in
//     buffers of 2 x the table size (plus 3 MiB for the index of each
//     table it finishes), the table size being BaseTableSize when
//     TableSizeMultiplier is 1 and doubles with each deeper level
//     otherwise: that is what grows with the store;
//   - the block cache.
//
// Add the largest row read or written (see the package documentation).
func (s Sizing) WriteMemory() int64 {
	if s.TableSizeMultiplier > 1 {
		return -1
	}
	arena := s.MemTableSize * 13 / 10
	memtables := int64(s.NumMemtables+2) * arena
	pooled := int64(badgerPooledBuilders) * (2*arena + 4*s.BaseTableSize)
	compacting := int64(s.NumCompactors*badgerBuildersPerCompaction) * (2*s.BaseTableSize + badgerIndexBuilder)
	return memtables + pooled + compacting + s.BlockCacheSize
}

// replayMemTableSize returns the memtable size that the memtable logs
// (.mem files) a killed process left in dir need to be replayed, or 0.
//
// NB: Badger replays such a log into a memtable of the size it is opened
// with, and a log written with larger memtables overflows it, which makes
// Badger end the process (log.Fatal, not an error). A log file is
// created at twice its writer's memtable size and keeps that size, so
// half the largest is enough. Opening with the configured size again
// after a clean Close (which leaves no log) shrinks the memtables back.
func replayMemTableSize(dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var need int64
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".mem") {
			continue
		}
		fi, err := os.Stat(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		need = max(need, fi.Size()/2)
	}
	return need
}
