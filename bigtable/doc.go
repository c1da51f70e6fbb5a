// Package bigtable is a persistent, sparse, sorted, multidimensional map,
// (row, family:qualifier, timestamp) -> value, stored in Badger
// (github.com/dgraph-io/badger/v4) and spoken in the vocabulary of Google's
// Cloud Bigtable client, cloud.google.com/go/bigtable: data-plane code
// written for that client (mutations, reads, filters, row sets) ports by
// changing the import and the open call.
//
// # Main types
//
//   - DB is a store in one directory: Open(dir, opts...) it, Close it. Schema
//     calls live on it: CreateTable, DeleteTable, Tables, CreateColumnFamily,
//     DeleteColumnFamily, SetGCPolicy, Families. The schema is kept in the
//     store. GC and Tablets are on it too.
//   - Table is a handle from (*DB).Open(name). It writes with Apply (one
//     row, atomic), ApplyBulk (many rows, each atomic, for ingest) and
//     ApplyReadModifyWrite (AppendValue, Increment), and reads with ReadRow,
//     ReadRows, Rows and ReadRowsParallel; SampleRowKeys gives its tablets'
//     end keys.
//   - Mutation holds the changes to one row: Set, DeleteCellsInColumn,
//     DeleteTimestampRange, DeleteCellsInFamily, DeleteRow; NewCondMutation
//     makes a check-and-mutate. SetOnlyVersion, DeleteOnlyVersion and Grow
//     are this package's own (see Caveats).
//   - RowSet says which rows to read: SingleRow, RowList, NewRange,
//     PrefixRange, InfiniteRange, RowRangeList. ReadOption adds a RowFilter
//     or a LimitRows.
//   - Filter selects and transforms cells (ChainFilters, InterleaveFilters,
//     FamilyFilter, ColumnFilter, LatestNFilter, TimestampRangeFilterMicros,
//     ...), with Cloud Bigtable's semantics.
//   - GCPolicy says which versions a family keeps (MaxVersionsPolicy,
//     MaxAgePolicy, UnionPolicy, IntersectionPolicy, NoGcPolicy).
//   - Row is what a read returns: ReadItems keyed by family, ordered by
//     qualifier and then newest first.
//
// # Tablets
//
// As in the BigTable paper, a table is cut into tablets, row ranges that
// split in two at a row boundary near their middle when they grow past
// WithTabletSplitSize (128 MiB by default). The tablet list lives in the
// store's metadata; a split rewrites two metadata records in one Badger
// transaction, so after a crash the store has the tablets from before the
// split or from after it. A split moves no data (cell keys carry no tablet)
// and holds no writer: a background goroutine counts the tablet by a
// key-only scan in a snapshot and commits. Writers only add the bytes they
// write, less those they delete, to an in-memory counter of the row's
// tablet, which Close saves (after a crash, the writes since the last
// clean Close or split are forgotten, and the tablet splits that much
// later). Writes over cells a tablet holds already make the counter run
// ahead of the tablet's size, so a count that finds the tablet under the
// split size waits for more writes before the next: as many bytes as the
// tablet needs to reach the split size, at the rate its size grew with the
// writes between its last two counts (every byte written counts as growth
// when there was no count before, or when all of them stayed), but at
// least a quarter split size and at most one. A tablet only written over
// is so counted once per split size of writes. Tablets also merge as they
// shrink: two neighbours holding together less than a quarter of the split
// size become one, again in one transaction. (*DB).Tablets lists the
// tablets with their bytes and rows, SampleRowKeys their end keys, and
// ReadRowsParallel reads each tablet of a range on a goroutine of its own,
// at most GOMAXPROCS at once. See tablet.go.
//
// A table's cells are Badger keys in one contiguous range; see keys.go for
// the order-preserving encoding. Values of at least WithValueThreshold bytes
// (256 by default) live in Badger's value log, and reads fetch a value only
// for cells that pass the filter, so a scan of a small family over rows that
// also hold large pages does not read the pages.
//
// # Reads, snapshots and parallel scans
//
// Every read sees one consistent snapshot of the store. ReadRows streams in
// key order and holds one row at a time (its memory does not grow with the
// range). After DefaultReadAhead rows it reads the rest of a long range
// ahead on more goroutines (DefaultReadAheadGoroutines, two), which deal
// the rows out between them in groups of 8 and each read the values of
// their own, in batches of at most 256 rows or 1 MiB (the first of
// 16 rows, each one at most twice the one before), three batches at most
// each, while the caller's goroutine builds the Row maps and runs the
// callback; the rows still arrive in key order from the caller's
// goroutine (WithReadAhead, WithReadAheadGoroutines; see readahead.go).
// ReadRowsParallel reads each tablet of a range on its own goroutine, for
// callers that do not need order. Reads reuse a Badger snapshot while no
// write has committed since it was made (a background goroutine closes
// the idle ones made more than a quarter of a second ago); ReadRow reuses
// the snapshot's iterator over the whole table too, while a multi-row read
// makes an iterator restricted to its ranges' common prefix, so that
// Badger leaves out the tables that cannot hold them; see snap.go.
//
// # Memory and sizing
//
// Badger's write path keeps in memory up to NumMemtables + 2 memtables
// (the one being written, those waiting to be flushed and the one being
// flushed; each an arena of about 1.3 x MemTableSize: the table and room
// for one more transaction) and the table builders of memtable flushes
// and compactions, which build a whole table file in memory; it keeps 8
// builders' buffers for reuse, each as large as it ever grew (a flush's:
// about twice a memtable). The indexes and Bloom filters of its tables
// are not on the heap: without encryption and with no index cache (this
// package sets none) Badger reads them in place from the memory-mapped
// table files. Sizing.WriteMemory (see SizingOf) adds Badger's part up
// into a worst-case estimate, or reports that it grows with the store (see
// the NB below). Above that, a ReadRows holds one row (and up to three
// read-ahead batches per read-ahead goroutine, about 3 MiB each), an
// ApplyBulk one transaction's worth of rows (at most about 15% of
// MemTableSize of keys and small values).
//
// NB: one thing grows with the store: a compaction builds up to 13 tables
// at once, and by default each level's tables are twice the size of the
// level above (WithTableSizeMultiplier), so the more levels the store
// fills, the larger the tables compactions into the deepest build, in
// buffers of twice their size. WithTableSizeMultiplier(1) keeps every
// table at WithBaseTableSize, so that nothing in Badger's memory depends
// on the size of the store; a store that is written for hours (a crawl)
// should use it, with small memtables.
//
// Garbage comes on top: Go's collector lets the heap grow to twice what
// is live (GOGC=100) unless a memory limit (GOMEMLIMIT, or
// runtime/debug.SetMemoryLimit) makes it collect sooner. The value log
// and the tables are memory-mapped: the pages an ingest or a scan touches
// count in the process's resident size (about the size of the data
// touched), but they are file pages that the kernel drops under memory
// pressure, not heap, and not in RssAnon.
//
// Sizing, with the options of this package:
//
//   - The defaults are for the project's machine, 2 cores and 24 GiB:
//     WithMemTableSize(64 MiB), WithNumMemtables(5), WithBlockCacheSize(0),
//     WithValueThreshold(256), no compression, leaving most of the memory
//     to the operating system's page cache, which holds the tables and the
//     value log (the pages a crawler re-reads). A block cache does not
//     help: the tables are not compressed, so Badger reads blocks straight
//     from the mapped files. Five memtables absorb ingest bursts while
//     compactions catch up on two cores. Their tables grow with the store
//     (see the NB above), so Sizing.WriteMemory gives no bound for them.
//   - A laptop (8 GiB, other programs running): WithMemTableSize(32 MiB),
//     WithNumMemtables(2), WithBlockCacheSize(32 MiB): less heap than the
//     defaults; bursts stall sooner (two memtables), and one row's mutation
//     may hold at most about 5 MiB of keys and of values below the value
//     threshold.
//   - A store written without pause for hours, whose tables grow to many
//     GiB (a crawl): WithMemTableSize(8 MiB), WithNumMemtables(2),
//     WithNumCompactors(2), WithTableSizeMultiplier(1): memory that does
//     not grow with the store (Sizing.WriteMemory bounds it). A row's
//     mutation may then hold at most about 1.2 MiB of keys and small
//     values.
//   - Keep WithValueThreshold small (the default 256 bytes) for web pages:
//     values in the value log are not rewritten by compactions and are not
//     read by scans of other families; the store reclaims the value log
//     itself ((*DB).GC). While GC rewrites one value log file, writes
//     wait (Badger reads a memtable's state unlocked when a rewrite
//     starts); reads do not.
//
// # Durability
//
// Every Apply, ApplyBulk row and ApplyReadModifyWrite is one Badger
// transaction (or part of one), so a row's mutation is all there or not
// there after any crash. By default (WithSyncWrites(false)) a write is in the
// operating system's page cache when the call returns: it survives the
// process being killed (kill -9) but not a power loss or kernel crash. This
// is the default because syncing every write costs a disk flush per call and
// a crawler can refetch the last seconds of pages. WithSyncWrites(true) makes
// every returned write survive power loss too: a write returns after the
// disk flush that covers it, and writes committed meanwhile by other
// goroutines share that flush (group commit), so concurrent writers pay
// far less than a flush each; ApplyBulk amortises the flush over many rows
// (one per call when it pipelines its transactions, see pipeline.go).
//
// Only one process can open a directory for writing; a second Open fails
// with ErrInUse. WithReadOnly(true) opens a store for reading without
// writing to it (Badger refuses while a writer has it open, and after an
// unclean shutdown until a read-write open has replayed the log).
//
// # Caveats
//
// Deliberate differences from Cloud Bigtable:
//
//   - Open(dir) replaces a client and an admin client; schema calls are on
//     *DB. There are no instances, app profiles, authorized views, labels
//     (LabelFilter), reverse scans, aggregate families or change streams.
//   - With WithSyncWrites(true), a failed flush of the log is final: every
//     write it was to cover, and every later one, fails with ErrSyncFailed
//     until the store is reopened (a retried fsync can succeed without the
//     pages the failed one lost). Cloud Bigtable has no such state.
//   - Timestamps keep microsecond granularity. Cloud Bigtable truncates to
//     milliseconds (Set, DeleteTimestampRange and TimestampRangeFilterMicros
//     truncate there); here nothing is truncated. Use
//     Timestamp.TruncateToMilliseconds for data that must round-trip.
//   - GC is stricter: a read never returns a cell its family's policy has
//     collected (Cloud Bigtable may, until its background GC runs). Cells
//     leave the disk when their column is next written (in the same
//     transaction) or when (*DB).GC runs, which a background goroutine does
//     every WithGCInterval; SetGCPolicy sweeps the family before changing
//     its policy, so a collected cell never comes back. UnionPolicy and
//     IntersectionPolicy with no members collect nothing.
//   - A family deleted and re-created before its cells are reclaimed starts
//     empty only once DeleteColumnFamily returns; DeleteColumnFamily removes
//     the cells itself.
//   - Copies of one cell from an InterleaveFilters come out in sub-filter
//     order.
//   - Families come out of CellsPerRowLimitFilter and CellsPerRowOffsetFilter
//     in name order (Cloud Bigtable's order is its own).
//   - Empty values read back as nil.
//   - The rows of one ReadRows call share allocations: keys, values of up
//     to 8 KiB and items are carved out of blocks of up to 64 KiB (or 128
//     items), so a row kept after the read keeps its block alive, as a
//     value of Cloud Bigtable's Go client keeps its response message alive.
//     Each row's bytes are still its own to change; copy a small value out
//     to keep it alone.
//   - Tablets are row ranges kept in the store's metadata, split in two by a
//     background goroutine when they pass WithTabletSplitSize and merged
//     with a neighbour when the two shrink under a quarter of it; a tablet
//     of one row never splits. They are units of bookkeeping and of
//     parallel reads (ReadRowsParallel), not of storage or of serving: one
//     process serves every tablet.
//   - Limits: row keys 1 byte to 4 KiB (MaxRowKeySize), qualifiers up to
//     16 KiB (MaxQualifierSize), values up to 100 MiB (MaxValueSize), table
//     and family names [_a-zA-Z0-9][-_.a-zA-Z0-9]* up to 64 bytes. One row's
//     mutation must fit in one Badger transaction (about 15% of
//     WithMemTableSize, values in the value log counting as pointers).
//   - A filter containing ConditionFilter reads each whole row, values
//     included, into memory before filtering it; other filters stream cell
//     by cell and read only the values of cells they pass.
//   - Mutation.SetOnlyVersion and Mutation.DeleteOnlyVersion take the
//     caller's word that a column holds one version, and so skip reading
//     its stored versions; Grow sizes a Mutation ahead. Table.OrderedBulk
//     and Table.Microseconds report powers Cloud Bigtable lacks (ApplyBulk
//     commits rows in order; timestamps keep microseconds).
//   - Every ServerTime cell of one Apply (or one ApplyBulk call) gets the
//     same timestamp; two writes in the same microsecond to the same column
//     with ServerTime replace each other, as same-millisecond writes do in
//     Cloud Bigtable.
//   - ReadRows calls its callback while holding a read snapshot; a very long
//     callback keeps Badger from discarding old versions, and calling Close
//     from it deadlocks.
package bigtable
