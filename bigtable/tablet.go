package bigtable

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"
)

// Tablets.
//
// A table is cut into tablets, row ranges [start, end) that cover the table
// without gaps or overlaps, as in the BigTable paper. A tablet is a unit of
// bookkeeping and of parallel work, not of storage: cell keys carry no
// tablet, so a split moves no data. The list lives in the store's metadata,
// one record per tablet (see metaTabletKey), and the list in memory is
// copy-on-write: readers and writers load it without a lock.
//
// Sizes are tracked in two ways, each where it is cheap:
//
//   - The write path adds the bytes it writes (keys and values) to an
//     in-memory counter of the row's tablet after the commit, less the
//     bytes it deletes as its iterator finds them (pruned versions, deleted
//     columns and rows, GC): a binary search of the tablet list and an
//     atomic add per row, no extra I/O. When a counter passes its tablet's
//     split level, or a delete takes it under the merge level, the write
//     wakes the splitter goroutine, and returns.
//   - A count is a key-only scan of one tablet in a read snapshot: it gives
//     exact bytes (keys and values as stored, values in the value log taken
//     from their pointers, not read) and rows, and row boundaries with their
//     running byte totals. The splitter counts a tablet before it splits it;
//     Tablets counts the tablets written since their last count.
//
// NB: counters in the write transaction itself (a metadata key per tablet)
// would make every writer of a tablet read and write one hot key, so
// concurrent writers would conflict and retry, and each Apply would pay a
// Get; and a row count there needs a read per write to know if the row is
// new. A tablet is at most about the split size, so a count is bounded.
//
// Tablets also merge, as in the paper: when two neighbours hold together
// less than a quarter of the split size (by their counters, then by an
// exact count of both), the splitter replaces them by one tablet, in one
// Badger transaction like a split (see mergeTablets). A quarter leaves room
// to grow before the merged tablet splits again. A schema change that
// deletes cells (a family, a table) is seen at the next count.
//
// The counters live in memory; Close writes them to the tablet records, so
// after a restart a tablet still knows how close it is to splitting. After a
// crash, the bytes written since the last clean Close or split are
// forgotten, and the tablet splits that much later.

// DefaultTabletSplitSize is the default of WithTabletSplitSize: 128 MiB, in
// the BigTable paper's range of 100-200 MB per tablet.
const DefaultTabletSplitSize = 128 << 20

// TabletInfo describes one tablet: the rows in [Start, End) ("" End: to the
// end of the table), with approximate size in bytes (keys and values as
// stored) and number of rows. Both count what is on disk: cells that a GC
// policy hides count until (*DB).GC removes them.
type TabletInfo struct {
	Start, End string
	Bytes      int64
	Rows       int64
}

// tablet is one row range of a table and its size figures.
type tablet struct {
	start, end string // end "" is the end of the table

	bytes   atomic.Int64 // bytes at the last count, plus bytes written since
	rows    atomic.Int64 // rows at the last count
	counted atomic.Bool  // no write since the last count: bytes and rows are exact
	// splitAt is the byte level from which a write wakes the splitter.
	splitAt atomic.Int64
	// lastCount is the size the splitter's last count found, -1 before
	// its first (see recountWait).
	lastCount atomic.Int64
	// recount: the figures are unknown (a store written before tablets
	// existed); the splitter counts the tablet first.
	recount atomic.Bool
	// retired: split or merged, replaced in the published list.
	retired atomic.Bool
	// countMu is held while the tablet is counted and while a split or a
	// merge builds new tablets from its figures. NB: a count sets counted
	// before its snapshot (so that a write during the count clears it
	// again); without the lock, a split or merge could take counted as
	// true with the rows of the count before.
	countMu sync.Mutex
}

func newTablet(start, end string, bytes, rows, splitSize int64) *tablet {
	t := &tablet{start: start, end: end}
	t.bytes.Store(bytes)
	t.rows.Store(rows)
	t.splitAt.Store(splitSize)
	t.lastCount.Store(-1)
	return t
}

// keyRange returns the Badger keys of the tablet's cells in table id.
func (t *tablet) keyRange(id uint32) keyRange {
	lo := appendTablePrefix(nil, id)
	if t.start != "" {
		lo = appendRowKey(nil, id, t.start)
	}
	hi := appendTablePrefix(nil, id+1)
	if t.end != "" {
		hi = appendRowKey(nil, id, t.end)
	}
	return keyRange{lo, hi}
}

func (t *tablet) info() TabletInfo {
	return TabletInfo{Start: t.start, End: t.end, Bytes: t.bytes.Load(), Rows: t.rows.Load()}
}

// tabletSet is the tablet list of one table, shared by every version of the
// table's schema. The list is sorted by start, the first starting at "" and
// the last ending at "", each ending where the next starts. A published list
// is never modified; the splitter stores a new one (holding schemaMu).
type tabletSet struct {
	list atomic.Pointer[[]*tablet]
}

func newTabletSet(list []*tablet) *tabletSet {
	s := &tabletSet{}
	s.list.Store(&list)
	return s
}

func (s *tabletSet) load() []*tablet { return *s.list.Load() }

// find returns the tablet that holds row.
func (s *tabletSet) find(row string) *tablet {
	list := s.load()
	if len(list) == 1 {
		return list[0]
	}
	// The last tablet whose start is <= row.
	i := sort.Search(len(list), func(i int) bool { return list[i].start > row })
	return list[i-1]
}

// checkCover reports a list that does not cover the key space exactly.
func checkCover(list []*tablet) error {
	if len(list) == 0 {
		return fmt.Errorf("no tablets")
	}
	if list[0].start != "" {
		return fmt.Errorf("first tablet starts at %q, not at the start of the table", list[0].start)
	}
	for i, t := range list {
		last := i == len(list)-1
		switch {
		case last && t.end != "":
			return fmt.Errorf("last tablet ends at %q, not at the end of the table", t.end)
		case !last && t.end != list[i+1].start:
			return fmt.Errorf("tablet [%q, %q) is followed by one starting at %q", t.start, t.end, list[i+1].start)
		case !last && t.end <= t.start:
			return fmt.Errorf("tablet [%q, %q) is empty", t.start, t.end)
		}
	}
	return nil
}

// Tablet records.
//
//	key:   0x00 'b' | table id (uint32, big-endian) | start row (raw bytes)
//	value: uvarint len(end) | end | uvarint bytes | uvarint rows
//
// The start row is the last part of the key, so it needs no escaping, and
// records of one table sort by start. A split rewrites the record of the
// left half (same start, new end) and adds one for the right half, in one
// Badger transaction: after a crash the store holds the tablets from before
// the split or from after it.

func metaTabletPrefix(id uint32) []byte {
	return binary.BigEndian.AppendUint32(append([]byte(nil), metaTabletPfx...), id)
}

func metaTabletKey(id uint32, start string) []byte {
	return append(metaTabletPrefix(id), start...)
}

func encodeTablet(t *tablet) []byte {
	b := binary.AppendUvarint(nil, uint64(len(t.end)))
	b = append(b, t.end...)
	b = binary.AppendUvarint(b, uint64(max(0, t.bytes.Load())))
	return binary.AppendUvarint(b, uint64(max(0, t.rows.Load())))
}

func decodeTablet(start string, v []byte, splitSize int64) (*tablet, error) {
	n, k := binary.Uvarint(v)
	if k <= 0 || uint64(len(v)-k) < n {
		return nil, errBadTablet
	}
	end := string(v[k : k+int(n)])
	v = v[k+int(n):]
	bytes, k := binary.Uvarint(v)
	if k <= 0 {
		return nil, errBadTablet
	}
	v = v[k:]
	rows, k := binary.Uvarint(v)
	if k <= 0 || k != len(v) {
		return nil, errBadTablet
	}
	return newTablet(start, end, int64(bytes), int64(rows), splitSize), nil
}

var errBadTablet = errors.New("malformed tablet record")

// putTablets writes the records of tablets inside txn.
func putTablets(txn *badger.Txn, id uint32, tablets ...*tablet) error {
	for _, t := range tablets {
		if err := txn.Set(metaTabletKey(id, t.start), encodeTablet(t)); err != nil {
			return err
		}
	}
	return nil
}

// deleteTablets deletes every tablet record of table id inside txn.
func deleteTablets(txn *badger.Txn, id uint32) error {
	it := txn.NewIterator(badger.IteratorOptions{Prefix: metaTabletPrefix(id)})
	var keys [][]byte
	for it.Rewind(); it.Valid(); it.Next() {
		keys = append(keys, it.Item().KeyCopy(nil))
	}
	it.Close()
	for _, k := range keys {
		if err := txn.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// loadTablets reads the tablet records inside txn and gives each table its
// tablet set. A table without records (a store written before tablets
// existed) gets one tablet, to be counted by the splitter.
func (db *DB) loadTablets(txn *badger.Txn, tables map[string]*tableSchema) error {
	byID := map[uint32][]*tablet{}
	it := txn.NewIterator(badger.IteratorOptions{Prefix: metaTabletPfx})
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		k := item.Key()[len(metaTabletPfx):]
		if len(k) < 4 {
			return fmt.Errorf("%w: %s: %v: key %q", ErrNotStore, db.dir, errBadTablet, item.Key())
		}
		id := binary.BigEndian.Uint32(k)
		v, err := item.ValueCopy(nil)
		if err != nil {
			return fmt.Errorf("bigtable: open %s: %w", db.dir, err)
		}
		t, err := decodeTablet(string(k[4:]), v, db.opts.splitSize)
		if err != nil {
			return fmt.Errorf("%w: %s: %v: key %q", ErrNotStore, db.dir, err, item.Key())
		}
		byID[id] = append(byID[id], t)
	}
	for _, ts := range tables {
		list := byID[ts.id]
		if len(list) == 0 {
			t := newTablet("", "", 0, 0, db.opts.splitSize)
			t.recount.Store(true)
			list = []*tablet{t}
		}
		if err := checkCover(list); err != nil {
			return fmt.Errorf("%w: %s: table %q: %v", ErrNotStore, db.dir, ts.name, err)
		}
		ts.tablets = newTabletSet(list)
	}
	return nil
}

// noteWrite adds n bytes written to row to its tablet's counter, marks the
// tablet written, and wakes the splitter when the tablet has grown past its
// split level. It costs a binary search of the tablet list and a few atomic
// operations.
func (db *DB) noteWrite(ts *tableSchema, row string, n int64) {
	t := ts.tablets.find(row)
	for {
		t.bytes.Add(n)
		if t.counted.Load() {
			t.counted.Store(false)
		}
		if !t.retired.Load() {
			break
		}
		// Split under our feet, perhaps after the split took its figures:
		// count the write in the half that holds the row (see commitSplit).
		t = ts.tablets.find(row)
	}
	// NB: a shrinking tablet wakes the splitter only if it has a
	// neighbour to merge with: deletes in a one-tablet table are common
	// and would wake it for nothing.
	if b := t.bytes.Load(); b >= t.splitAt.Load() || n < 0 && b < db.mergeLevel() && len(ts.tablets.load()) > 1 {
		db.wakeSplitter()
	}
}

// staleTablets marks every tablet of a table as needing a count, after a
// change the counters do not see (cells deleted outside Apply).
func staleTablets(ts *tableSchema) {
	for _, t := range ts.tablets.load() {
		t.counted.Store(false)
	}
}

// Tablets returns the tablets of a table in key order, with their
// approximate sizes. A tablet written since it was last counted is counted
// again first, by a key-only scan of that tablet (values are not read), so
// the figures are exact for a table at rest; a concurrent write can make
// them slightly stale.
func (db *DB) Tablets(ctx context.Context, table string) ([]TabletInfo, error) {
	ts, err := db.enter(ctx, table, false)
	if err != nil {
		return nil, err
	}
	defer db.opMu.RUnlock()
	list := ts.tablets.load()
	out := make([]TabletInfo, 0, len(list))
	for _, t := range list {
		if !t.counted.Load() {
			if err := db.refreshTablet(ctx, ts, t); err != nil {
				return nil, fmt.Errorf("bigtable: tablets of table %q: %w", table, err)
			}
		}
		out = append(out, t.info())
	}
	return out, nil
}

// refreshTablet counts a tablet and stores the figures in it.
func (db *DB) refreshTablet(ctx context.Context, ts *tableSchema, t *tablet) error {
	t.countMu.Lock()
	defer t.countMu.Unlock()
	// NB: counted is set before the snapshot is taken, so a write the
	// snapshot misses clears it again and the next call counts anew.
	t.counted.Store(true)
	b0 := t.bytes.Load()
	txn := db.bdb.NewTransaction(false)
	defer txn.Discard()
	c, err := countTablet(ctx, txn, ts.id, t, 0)
	if err != nil {
		t.counted.Store(false)
		return err
	}
	db.splitHook("refresh counted")
	t.bytes.Add(c.bytes - b0) // keep what was written during the count
	t.rows.Store(c.rows)
	t.lastCount.Store(c.bytes)
	t.recount.Store(false)
	return nil
}

// SampleRowKeys returns the row keys that end the table's tablets, in key
// order, the last being "" (the end of the table), as Cloud Bigtable's
// SampleRowKeys does. Each tablet holds about WithTabletSplitSize bytes or
// less, so the keys cut the table into pieces of roughly that size.
func (t *Table) SampleRowKeys(ctx context.Context) ([]string, error) {
	ts, err := t.db.enter(ctx, t.name, false)
	if err != nil {
		return nil, err
	}
	defer t.db.opMu.RUnlock()
	list := ts.tablets.load()
	keys := make([]string, len(list))
	for i, tb := range list {
		keys[i] = tb.end
	}
	return keys, nil
}

// tabletCount is the result of counting one tablet.
type tabletCount struct {
	bytes, rows int64
	marks       []rowMark // row boundaries about every step bytes
}

// rowMark is the start of a row, with the bytes and rows of the tablet
// before it.
type rowMark struct {
	row         string
	bytes, rows int64
}

// countTablet counts a tablet's bytes and rows in txn by a key-only scan.
// With step > 0 it also marks a row boundary about every step bytes
// (never the first row).
func countTablet(ctx context.Context, txn *badger.Txn, id uint32, t *tablet, step int64) (tabletCount, error) {
	var out tabletCount
	ranges := []keyRange{t.keyRange(id)}
	it := newIterator(txn, ranges)
	defer it.Close()
	c := newCursor(it, ranges)
	next := step
	for n := 0; c.next(); n++ {
		if n&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return out, err
			}
		}
		if c.newRow {
			if step > 0 && out.rows > 0 && out.bytes >= next {
				out.marks = append(out.marks, rowMark{c.rowKey(), out.bytes, out.rows})
				next = out.bytes + step
			}
			out.rows++
		}
		out.bytes += c.item.EstimatedSize()
	}
	return out, c.err
}

// middle returns the mark nearest the middle of the tablet by bytes.
func (c *tabletCount) middle() (rowMark, bool) {
	if len(c.marks) == 0 {
		return rowMark{}, false
	}
	half := c.bytes / 2
	i, _ := slices.BinarySearchFunc(c.marks, half, func(m rowMark, b int64) int {
		return cmp.Compare(m.bytes, b)
	})
	switch {
	case i == len(c.marks):
		i--
	case i > 0 && half-c.marks[i-1].bytes < c.marks[i].bytes-half:
		i--
	}
	return c.marks[i], true
}
