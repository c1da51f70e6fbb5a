package bigtable

import (
	"log"
	"time"
)

// An Option configures Open. Options are applied in order; a later option
// overrides an earlier one.
type Option interface{ apply(*options) }

type options struct {
	syncWrites     bool
	readOnly       bool
	valueThreshold int64
	gcInterval     time.Duration
	memTableSize   int64
	numMemtables   int
	vlogFileSize   int64
	blockCacheSize int64
	logger         *log.Logger
	splitSize      int64
	readAhead      int
	afterGC        func(error)  // tests: called after each background GC pass
	splitHook      func(string) // tests: called around each split's commit
}

// DefaultValueThreshold is the default of WithValueThreshold.
const DefaultValueThreshold = 256

// DefaultGCInterval is the default of WithGCInterval.
const DefaultGCInterval = 10 * time.Minute

func defaultOptions() options {
	return options{
		valueThreshold: DefaultValueThreshold,
		gcInterval:     DefaultGCInterval,
		memTableSize:   64 << 20,
		numMemtables:   5,
		vlogFileSize:   1<<30 - 1,
		blockCacheSize: 64 << 20,
		splitSize:      DefaultTabletSplitSize,
		readAhead:      DefaultReadAhead,
	}
}

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// WithSyncWrites makes every write wait until Badger has synced its log to
// disk, so an Apply that returned survives a power loss, not only the death
// of the process. It costs a disk flush per write; ApplyBulk amortises it over
// many rows. The default value is false: writes reach the operating system
// before Apply returns and survive kill -9, but the last moments of writes can
// be lost if the machine itself stops.
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

// WithNumMemtables sets how many memtables Badger keeps in memory: the one
// being written and those waiting to be flushed to disk. Writes stall when
// all are full, so more absorb longer bursts; each costs WithMemTableSize of
// memory. Values below 1 are taken as 1. The default value is 5 (Badger's).
func WithNumMemtables(n int) Option {
	return optionFunc(func(o *options) { o.numMemtables = max(1, n) })
}

// WithBlockCacheSize sets the size in bytes of Badger's block cache. The
// default value is 64 MiB.
func WithBlockCacheSize(n int64) Option {
	return optionFunc(func(o *options) { o.blockCacheSize = n })
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
// its range ahead on a second goroutine, in batches, while the caller's
// goroutine builds rows and runs the callback; rows still arrive in key
// order. It makes long scans use two cores. The default value is
// DefaultReadAhead; n <= 0 turns read-ahead off (it is also off when
// GOMAXPROCS is 1). ReadRowsParallel never reads ahead: it already runs a
// goroutine per tablet.
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
