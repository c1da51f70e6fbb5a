package bigtable

import (
	"log"
	"os"
	"time"
)

// An Option configures Open. Options are applied in order; a later option
// overrides an earlier one.
type Option interface{ apply(*options) }

type options struct {
	syncWrites       bool
	readOnly         bool
	valueThreshold   int64
	gcInterval       time.Duration
	memTableSize     int64
	numMemtables     int
	vlogFileSize     int64
	blockCacheSize   int64
	numCompactors    int
	baseTableSize    int64
	tableSizeMult    int
	logger           *log.Logger
	splitSize        int64
	readAhead        int
	readAheadReaders int
	readAheadGroup   int         // tests: rows dealt to each reader in turn (see readahead.go)
	afterGC          func(error) // tests: called after each background GC pass
	// tests: prune written columns only with an iterator made after the
	// writes (see prune.go), the reference the faster way is checked against
	pruneAfterWrites bool
	splitHook        func(string) // tests: called around each split's commit, and after each count
	// tests: durable group commit (see groupsync.go)
	afterDurable func(seq uint64)     // a write with this sequence number returns
	afterSync    func(synced uint64)  // a sync covered every write up to synced
	syncFile     func(*os.File) error // flushes one log file (default fdatasync)
}

// DefaultValueThreshold is the default of WithValueThreshold.
const DefaultValueThreshold = 256

// DefaultGCInterval is the default of WithGCInterval.
const DefaultGCInterval = 10 * time.Minute

func defaultOptions() options {
	return options{
		valueThreshold:   DefaultValueThreshold,
		gcInterval:       DefaultGCInterval,
		memTableSize:     64 << 20,
		numMemtables:     5,
		vlogFileSize:     1<<30 - 1,
		blockCacheSize:   0,
		numCompactors:    DefaultNumCompactors,
		baseTableSize:    DefaultBaseTableSize,
		tableSizeMult:    DefaultTableSizeMultiplier,
		splitSize:        DefaultTabletSplitSize,
		readAhead:        DefaultReadAhead,
		readAheadReaders: DefaultReadAheadGoroutines,
		readAheadGroup:   readAheadGroup,
	}
}

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// WithSyncWrites makes every write return only after its bytes are synced
// to disk, so an Apply that returned survives a power loss, not only the
// death of the process. Concurrent writes share one disk flush (group
// commit): 32 goroutines each applying one row at a time made 11,000-15,500
// durable writes/s on this project's 2-core test machine, where one writer
// alone waits a flush per write (500-850/s); ApplyBulk amortises the flush
// over many rows. A flush that fails makes every write it was to cover return
// an error wrapping [ErrSyncFailed] and the flush's error, although they may
// have been committed, and the store refuses every later write with it until
// it is closed and opened again (a retried fsync can succeed without the
// pages the failed one lost). The default value is false:
// writes reach the operating system before Apply returns and survive kill
// -9, but the last moments of writes can be lost if the machine itself stops.
func WithSyncWrites(sync bool) Option { return optionFunc(func(o *options) { o.syncWrites = sync }) }

// WithReadOnly opens the store without writing to it, for tools that only
// read. Badger refuses a read-only open while another process holds the store
// open for writing (ErrInUse) and when the store was not closed cleanly and
// its log needs replaying (ErrNeedsRecovery). Writes fail with ErrReadOnly and
// no garbage collection runs. The default value is false.
func WithReadOnly(readOnly bool) Option {
	return optionFunc(func(o *options) { o.readOnly = readOnly })
}

// WithValueThreshold sets the size in bytes from which a value is kept in
// Badger's value log instead of beside its key in the LSM tree. Values in the
// value log are not read when a scan asks only for keys or other families,
// and compactions do not rewrite them. The default value is
// DefaultValueThreshold (256 bytes).
func WithValueThreshold(n int64) Option {
	return optionFunc(func(o *options) { o.valueThreshold = n })
}

// WithGCInterval sets how often a background goroutine collects cells that
// the families' GC policies have expired by age and reclaims Badger's value
// log (see (*DB).GC). Zero or a negative duration disables the goroutine;
// call GC yourself then. The default value is DefaultGCInterval (10 minutes).
func WithGCInterval(d time.Duration) Option {
	return optionFunc(func(o *options) { o.gcInterval = d })
}

// WithMemTableSize sets the size in bytes of Badger's memtables; a single
// Apply or one row of ApplyBulk can write at most about 15% of it (values in
// the value log count only as pointers). The default value is 64 MiB.
func WithMemTableSize(n int64) Option {
	return optionFunc(func(o *options) { o.memTableSize = n })
}

// WithValueLogFileSize sets the size in bytes at which Badger starts a new
// value log file. Space in the value log is reclaimed a whole file at a
// time, and never from the file being written, so a store smaller than one
// file never gives back the space of its old versions. Badger accepts 1 MiB
// to 2 GiB. The default value is 1 GiB - 1 (Badger's).
func WithValueLogFileSize(n int64) Option {
	return optionFunc(func(o *options) { o.vlogFileSize = n })
}

// WithNumMemtables sets how many full memtables may wait to be flushed to
// disk; with the one being written and the one being flushed, Badger keeps
// up to n + 2 in memory. Writes stall when all are full, so more absorb
// longer bursts; each costs WithMemTableSize of memory. Values below 1 are
// taken as 1. The default value is 5 (Badger's).
func WithNumMemtables(n int) Option {
	return optionFunc(func(o *options) { o.numMemtables = max(1, n) })
}

// WithBlockCacheSize sets the size in bytes of Badger's block cache. The
// default value is 0, no block cache: the store does not compress its
// tables, so Badger reads their blocks straight from the memory-mapped
// files, whose pages the operating system caches; a block cache only adds
// a lookup and its admission work to every block read (a point read made
// 1.1-1.6x more reads/s without one, measured side by side). Give it a size
// for tables on a slow disk with little page cache to spare.
func WithBlockCacheSize(n int64) Option {
	return optionFunc(func(o *options) { o.blockCacheSize = n })
}

// DefaultNumCompactors is the default of WithNumCompactors (Badger's).
const DefaultNumCompactors = 4

// DefaultBaseTableSize is the default of WithBaseTableSize (Badger's).
const DefaultBaseTableSize = 2 << 20

// DefaultTableSizeMultiplier is the default of WithTableSizeMultiplier
// (Badger's).
const DefaultTableSizeMultiplier = 2

// WithNumCompactors sets how many compactions Badger runs at once. Each
// holds table builders in memory while it writes (see "Memory and sizing"
// in the package documentation), so fewer compactors bound memory; too few
// let level 0 fill up under a heavy write load, and writes then wait.
// Values below 2 are taken as 2 (Badger needs one for level 0 and one for
// the others). The default value is DefaultNumCompactors (4).
func WithNumCompactors(n int) Option {
	return optionFunc(func(o *options) { o.numCompactors = max(2, n) })
}

// WithBaseTableSize sets the size in bytes of the table files Badger
// writes at the first level below level 0; each deeper level multiplies it
// by WithTableSizeMultiplier. A compaction builds its output tables in
// memory, several at a time, so the table size bounds the memory of a
// compaction. The default value is DefaultBaseTableSize (2 MiB).
func WithBaseTableSize(n int64) Option {
	return optionFunc(func(o *options) { o.baseTableSize = max(1<<10, n) })
}

// WithTableSizeMultiplier sets by how much the size of Badger's table files
// grows from one level to the next deeper one. With the default, the tables
// of the deepest levels of a large store, and so the buffers a compaction
// into them builds in memory, grow with the store (2 MiB, 4 MiB, ... 64
// MiB); 1 keeps every table at WithBaseTableSize, so that a compaction's
// memory does not depend on the store's size, at the cost of more files.
// Values below 1 are taken as 1. The default value is
// DefaultTableSizeMultiplier (2).
func WithTableSizeMultiplier(n int) Option {
	return optionFunc(func(o *options) { o.tableSizeMult = max(1, n) })
}

// WithTabletSplitSize sets the size in bytes (keys and values as stored)
// past which a tablet splits in two at a row boundary near its middle. A
// background goroutine does the split; writers do not wait for it. A tablet
// of one row does not split, however large. Values below 1 are taken as 1.
// The default value is DefaultTabletSplitSize (128 MiB).
func WithTabletSplitSize(n int64) Option {
	return optionFunc(func(o *options) { o.splitSize = max(1, n) })
}

// WithReadAhead sets after how many rows a ReadRows call reads the rest of
// its range ahead on other goroutines (see WithReadAheadGoroutines), in
// batches, while the caller's goroutine builds rows and runs the callback;
// rows still arrive in key order. It makes long scans use more than one
// core. The default value is DefaultReadAhead; n <= 0 turns read-ahead off
// (it is also off when GOMAXPROCS is 1). ReadRowsParallel never reads
// ahead: it already runs a goroutine per tablet.
func WithReadAhead(n int) Option { return optionFunc(func(o *options) { o.readAhead = n }) }

// WithLogger sends Badger's warnings and errors to l. The default value is
// nil: Badger's log is discarded.
func WithLogger(l *log.Logger) Option { return optionFunc(func(o *options) { o.logger = l }) }

// badgerLogger adapts a *log.Logger to badger.Logger, keeping warnings and errors.
type badgerLogger struct{ l *log.Logger }

func (b badgerLogger) Errorf(f string, a ...any)   { b.l.Printf("badger error: "+f, a...) }
func (b badgerLogger) Warningf(f string, a ...any) { b.l.Printf("badger warning: "+f, a...) }
func (b badgerLogger) Infof(string, ...any)        {}
func (b badgerLogger) Debugf(string, ...any)       {}

// WithReadAheadGoroutines sets how many goroutines read a long ReadRows
// ahead (see WithReadAhead). Each walks every key of the range and reads
// the values of its share of the rows, so two of them, with the caller's
// goroutine building rows, keep two cores busy on a scan; one reads with
// less CPU in all, for a server running many scans at once. The default
// value is DefaultReadAheadGoroutines; values below 1 are taken as 1.
func WithReadAheadGoroutines(n int) Option {
	return optionFunc(func(o *options) { o.readAheadReaders = max(1, n) })
}
