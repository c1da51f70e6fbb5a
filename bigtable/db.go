package bigtable

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
	boptions "github.com/dgraph-io/badger/v4/options"
	"github.com/webtable/webtable/bigtable/internal/spec"
)

// formatMarker is stored under metaFormatKey; a store without it (and with
// other keys) is not ours.
const formatMarker = "webtable-bigtable/1"

// rowLockStripes is the number of mutexes that serialise writers of the same
// row in this process (Badger's lock admits one process per directory).
const rowLockStripes = 1024

// DB is a store of tables in one directory, backed by one Badger database.
// Open it with Open, get tables with (*DB).Open, and Close it when done. A DB
// is safe for concurrent use; only one process may have a directory open for
// writing at a time.
type DB struct {
	bdb  *badger.DB
	dir  string
	opts options

	// opMu is held for reading by every call that touches Badger and for
	// writing by Close, so Close waits for calls in flight.
	opMu   sync.RWMutex
	closed bool

	// writeMu is held for reading by every write from before it commits
	// to Badger until its commit has completed (startWrite to endWrite),
	// and for writing by GC while Badger rewrites a value log file (see
	// runValueLogGC). Reads never take it.
	writeMu sync.RWMutex

	schemaMu sync.Mutex // serialises schema changes
	// tables maps names to schemas. It is copy-on-write: writers hold
	// schemaMu and store a new map; neither a map nor a *tableSchema in it
	// is modified once stored.
	tables atomic.Pointer[map[string]*tableSchema]

	rowLocks [rowLockStripes]sync.RWMutex

	// policyEpoch counts SetGCPolicy calls; sweptEpoch is the epoch of the
	// last full GC pass (-1: none since Open). Guarded by gcMu.
	policyEpoch atomic.Int64
	sweptEpoch  int64

	// stop is closed by Close to end the background goroutines (snapshot
	// janitor; GC and splitter unless read-only), which bgDone counts.
	stop     chan struct{}
	stopOnce sync.Once
	bgDone   sync.WaitGroup
	gcMu     sync.Mutex // one GC pass at a time

	splitC  chan struct{} // wakes the splitter; buffered, 1
	splitMu sync.Mutex    // one split pass at a time

	// epoch counts committed write calls; snaps keeps read snapshots for
	// reuse while it does not move (see snap.go).
	epoch atomic.Uint64
	snaps snapCache

	// group syncs the log files for writes with WithSyncWrites(true), one
	// flush for every write that committed meanwhile; nil otherwise.
	group *groupSync
	logs  *logSyncer
}

// tableSchema is the stored schema of one table. Once published in
// DB.tables it is immutable.
type tableSchema struct {
	name     string
	id       uint32
	families map[string]*familySchema
	tablets  *tabletSet // shared by every version of the table's schema
}

type familySchema struct {
	name   string
	colon  string   // name + ":", the column of the empty qualifier
	policy GCPolicy // never nil
	gc     bool     // policy can collect something
}

func newFamilySchema(name string, p GCPolicy) *familySchema {
	return &familySchema{name: name, colon: name + ":", policy: p, gc: !isNoGC(p)}
}

// storedTable is the JSON form of a tableSchema.
type storedTable struct {
	ID       uint32                     `json:"id"`
	Families map[string]json.RawMessage `json:"families"` // family -> GC policy spec
}

// Open opens the store in dir, creating it if it does not exist (unless
// WithReadOnly). A directory that holds other files, or a Badger database
// not written by this package, gives ErrNotStore; a damaged store (its
// MANIFEST or a table file) gives ErrCorrupt and is left as it is; a
// directory another process has open gives ErrInUse.
func Open(dir string, opts ...Option) (db *DB, err error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt.apply(&o)
	}
	tableFile, err := checkDir(dir, o.readOnly)
	if err != nil {
		return nil, err
	}
	o.memTableSize = max(o.memTableSize, replayMemTableSize(dir))
	// NB: Badger's own SyncWrites flushes once per transaction; the store
	// syncs itself instead, once per group of commits (groupsync.go).
	bo := badger.DefaultOptions(dir).
		WithSyncWrites(false).
		WithReadOnly(o.readOnly).
		WithValueThreshold(o.valueThreshold).
		WithMemTableSize(o.memTableSize).
		WithNumMemtables(o.numMemtables).
		WithValueLogFileSize(o.vlogFileSize).
		WithNumCompactors(o.numCompactors).
		WithBaseTableSize(o.baseTableSize).
		// NB: compacting level 0 on Close turns the deletes of pruned
		// versions into discard statistics, without which value log GC
		// never finds a file worth rewriting when a crawl runs in short
		// processes (TestRecrawlDiskStaysFlat: 2.5x the disk after 20
		// passes without it). It costs Close one compaction of level 0
		// (about 90 ms after a crawl of 10,000 pages), and spares the next
		// process's scans the merge of level 0's tables: skipping it in a
		// store's first process made compare.sh's prefix scans after a
		// reopen 0.74-0.75 of raw Badger instead of 0.81-0.84
		// (TestCloseLeavesNoLevel0Tables).
		WithCompactL0OnClose(true).
		WithBlockCacheSize(o.blockCacheSize).
		// NB: values are mostly HTML and already-compressed bytes; snappy
		// costs CPU on every compaction and saves little. Keys compress
		// well but are small beside the values.
		WithCompression(boptions.None).
		WithLogger(nil)
	bo.TableSizeMultiplier = o.tableSizeMult // NB: Badger has no setter for it
	if o.logger != nil {
		bo = bo.WithLogger(badgerLogger{o.logger})
	}
	bdb, err := openBadgerRepaired(bo)
	if err != nil {
		return nil, openError(dir, err)
	}
	db = &DB{bdb: bdb, dir: dir, opts: o, sweptEpoch: -1}
	if o.syncWrites && !o.readOnly {
		db.logs = newLogSyncer(dir, o.syncFile)
		db.group = newGroupSync(db.logs.sync, o.afterSync)
	}
	if err := db.init(tableFile); err != nil {
		bdb.Close()
		return nil, err
	}
	db.stop = make(chan struct{})
	db.bgDone.Add(1)
	go db.snapJanitor(db.stop)
	if !o.readOnly {
		db.splitC = make(chan struct{}, 1)
		db.bgDone.Add(1)
		go db.splitLoop()
		if o.gcInterval > 0 {
			db.bgDone.Add(1)
			go db.gcLoop(o.gcInterval)
		}
		for _, ts := range *db.tables.Load() {
			if ts.tablets.load()[0].recount.Load() {
				db.wakeSplitter() // a store from before tablets: count them
				break
			}
		}
	}
	return db, nil
}

// openBadger opens Badger, turning a panic on a corrupt directory into an error.
func openBadger(bo badger.Options) (bdb *badger.DB, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("badger panicked: %v", r)
		}
	}()
	return badger.Open(bo)
}

// init checks the format marker (writing it into a fresh store) and loads
// the schema. tableFile names a table file the directory held before Open
// (see checkDir), or is empty.
func (db *DB) init(tableFile string) error {
	tables := map[string]*tableSchema{}
	db.tables.Store(&tables)
	if err := db.startWrite(); err != nil {
		return err // NB: unreachable: a new store has had no sync to fail
	}
	err := db.bdb.Update(func(txn *badger.Txn) (err error) {
		item, err := txn.Get(metaFormatKey)
		switch {
		case err == nil:
			v, err := item.ValueCopy(nil)
			if err != nil {
				return fmt.Errorf("bigtable: open %s: %w", db.dir, err)
			}
			if string(v) != formatMarker {
				return fmt.Errorf("%w: %s has format %q, want %q", ErrNotStore, db.dir, v, formatMarker)
			}
		case errors.Is(err, badger.ErrKeyNotFound):
			it := txn.NewIterator(badger.IteratorOptions{})
			it.Rewind()
			foreign := it.Valid()
			it.Close()
			if foreign {
				return fmt.Errorf("%w: %s is a Badger database without the bigtable format marker", ErrNotStore, db.dir)
			}
			if tableFile != "" {
				// NB: the marker is the first key ever written, so a store
				// whose data reached a table file has it, unless Badger's
				// MANIFEST (the list of table files) lost its entries.
				return fmt.Errorf("%w: %s holds the table file %s, yet Badger finds no data: its MANIFEST is damaged or truncated", ErrCorrupt, db.dir, tableFile)
			}
			if db.opts.readOnly {
				return nil // an empty store: nothing to load
			}
			if err := txn.Set(metaFormatKey, []byte(formatMarker)); err != nil {
				return fmt.Errorf("bigtable: open %s: %w", db.dir, err)
			}
			return nil
		default:
			return fmt.Errorf("bigtable: open %s: %w", db.dir, err)
		}
		it := txn.NewIterator(badger.IteratorOptions{Prefix: metaTablePfx, PrefetchValues: false})
		defer it.Close()
		defer func() {
			if err == nil {
				err = db.loadTablets(txn, tables)
			}
		}()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			name := string(item.Key()[len(metaTablePfx):])
			v, err := item.ValueCopy(nil)
			if err != nil {
				return fmt.Errorf("bigtable: open %s: table %q: %w", db.dir, name, err)
			}
			ts, err := decodeSchema(name, v)
			if err != nil {
				return fmt.Errorf("%w: %s: table %q: bad schema record: %v", ErrNotStore, db.dir, name, err)
			}
			tables[name] = ts
		}
		return nil
	})
	if err != nil {
		db.endWrite(err)
		return err
	}
	if err := db.endWrite(nil); err != nil { // the format marker of a new store
		return fmt.Errorf("bigtable: open %s: %w", db.dir, err)
	}
	return nil
}

func decodeSchema(name string, v []byte) (*tableSchema, error) {
	var st storedTable
	if err := json.Unmarshal(v, &st); err != nil {
		return nil, err
	}
	ts := &tableSchema{name: name, id: st.ID, families: map[string]*familySchema{}}
	for fam, raw := range st.Families {
		var gc spec.GCPolicy // the zero value, for an empty or null policy, is NoGC
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &gc); err != nil {
				return nil, err
			}
		}
		ts.families[fam] = newFamilySchema(fam, policyOf(gc))
	}
	return ts, nil
}

func encodeSchema(ts *tableSchema) []byte {
	st := storedTable{ID: ts.id, Families: map[string]json.RawMessage{}}
	for name, f := range ts.families {
		st.Families[name] = marshalPolicy(f.policy)
	}
	b, _ := json.Marshal(st)
	return b
}

// Close stops background garbage collection, waits for calls in flight and
// closes the store. Calls after Close return ErrClosed. Closing twice is a no-op.
func (db *DB) Close() error {
	if db.stop != nil {
		db.stopOnce.Do(func() { close(db.stop) })
		db.bgDone.Wait()
	}
	db.opMu.Lock()
	defer db.opMu.Unlock()
	if db.closed {
		return nil
	}
	db.closed = true
	db.closeSnaps()
	var saveErr error
	// NB: after a failed sync the store takes no write, and the figures
	// count writes that may be lost: the old record is the better guess.
	if !db.opts.readOnly && (db.group == nil || db.group.err() == nil) {
		saveErr = db.saveTablets()
	}
	if db.logs != nil {
		db.logs.close()
	}
	if err := db.bdb.Close(); err != nil {
		return fmt.Errorf("bigtable: close %s: %w", db.dir, err)
	}
	if saveErr != nil {
		return fmt.Errorf("bigtable: close %s: saving tablet sizes: %w", db.dir, saveErr)
	}
	return nil
}

// begin marks the start of a call that uses Badger; end it with db.opMu.RUnlock.
func (db *DB) begin() error {
	db.opMu.RLock()
	if db.closed {
		db.opMu.RUnlock()
		return ErrClosed
	}
	return nil
}

// beginWrite is begin for calls that write.
func (db *DB) beginWrite() error {
	if err := db.begin(); err != nil {
		return err
	}
	if db.opts.readOnly {
		db.opMu.RUnlock()
		return ErrReadOnly
	}
	return nil
}

// enter starts a call on table: it checks ctx, holds the store open
// (begin, or beginWrite when write) and returns the table's schema. On
// success the caller releases the store with db.opMu.RUnlock.
func (db *DB) enter(ctx context.Context, table string, write bool) (*tableSchema, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	begin := db.begin
	if write {
		begin = db.beginWrite
	}
	if err := begin(); err != nil {
		return nil, err
	}
	ts, err := db.schema(table)
	if err != nil {
		db.opMu.RUnlock()
		return nil, err
	}
	return ts, nil
}

// schema returns the current schema of a table.
func (db *DB) schema(table string) (*tableSchema, error) {
	ts := (*db.tables.Load())[table]
	if ts == nil {
		return nil, fmt.Errorf("%w %q", ErrNotFound, table)
	}
	return ts, nil
}

// rowLock returns the lock of one row (a stripe of rows).
func (db *DB) rowLock(table uint32, row string) *sync.RWMutex {
	return &db.rowLocks[rowStripe(table, row)]
}

func rowStripe(table uint32, row string) int {
	// FNV-1a.
	h := uint32(2166136261) ^ table
	h *= 16777619
	for i := 0; i < len(row); i++ {
		h ^= uint32(row[i])
		h *= 16777619
	}
	return int(h % rowLockStripes)
}

// gcLoop runs GC every interval until Close.
func (db *DB) gcLoop(interval time.Duration) {
	defer db.bgDone.Done()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-db.stop:
			return
		case <-t.C:
			ctx, cancel := contextUntil(db.stop)
			err := db.GC(ctx)
			cancel()
			if db.opts.afterGC != nil {
				db.opts.afterGC(err)
			}
			if err != nil && db.opts.logger != nil && !errors.Is(err, ErrClosed) {
				db.opts.logger.Printf("bigtable: background gc: %v", err)
			}
		}
	}
}

// nextTableID reads and advances the table id counter inside txn.
func nextTableID(txn *badger.Txn) (uint32, error) {
	id := uint32(1)
	item, err := txn.Get(metaNextIDKey)
	switch {
	case err == nil:
		v, err := item.ValueCopy(nil)
		if err != nil {
			return 0, err
		}
		if len(v) != 4 {
			return 0, fmt.Errorf("%w: bad table id counter", ErrNotStore)
		}
		id = binary.BigEndian.Uint32(v)
	case !errors.Is(err, badger.ErrKeyNotFound):
		return 0, err
	}
	if err := txn.Set(metaNextIDKey, binary.BigEndian.AppendUint32(nil, id+1)); err != nil {
		return 0, err
	}
	return id, nil
}
