package bigtable

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/webtable/webtable/bigtable/internal/rowseq"
	"iter"
	"slices"
	"sync"

	"github.com/dgraph-io/badger/v4"
	"github.com/webtable/webtable/bigtable/internal/hooks"
)

// A Row is the result of a read: the cells of one row that passed the read's
// filter, keyed by column family. Within a family, items are ordered by
// qualifier, then newest first.
type Row map[string][]ReadItem

// Key returns the row's key, or "" if the row is empty.
func (r Row) Key() string {
	for _, items := range r {
		if len(items) > 0 {
			return items[0].Row
		}
	}
	return ""
}

// A ReadItem is one cell version of a Row. Column is "family:qualifier".
// Value is nil for an empty value and after StripValueFilter; it belongs to
// the caller.
type ReadItem struct {
	Row, Column string
	Timestamp   Timestamp
	Value       []byte
}

// A ReadOption is an optional argument to ReadRows and ReadRow: RowFilter or
// LimitRows. The interface is sealed.
type ReadOption interface{ set(*readSettings) }

type readSettings struct {
	filter   Filter
	limit    int64
	limitSet bool
}

// RowFilter returns a ReadOption that applies f to every row read. Several
// RowFilter options are chained in order.
func RowFilter(f Filter) ReadOption { return rowFilterOption{f} }

type rowFilterOption struct{ f Filter }

func (o rowFilterOption) set(s *readSettings) {
	if s.filter == nil {
		s.filter = o.f
	} else {
		s.filter = ChainFilters(s.filter, o.f)
	}
}

// LimitRows returns a ReadOption that stops a read after n rows. As with the
// Cloud Bigtable client, LimitRows(0) reads no row and a negative n is an
// error; the last LimitRows of a read counts.
func LimitRows(n int64) ReadOption { return limitRowsOption(n) }

type limitRowsOption int64

func (o limitRowsOption) set(s *readSettings) { s.limit, s.limitSet = int64(o), true }

// ReadRow reads one row. A row that does not exist, or of which the filter
// passes no cell, is a nil Row and no error.
func (t *Table) ReadRow(ctx context.Context, row string, opts ...ReadOption) (Row, error) {
	return t.read(ctx, nil, row, opts, nil, nil)
}

// ReadRows reads the rows of rs in key order and calls f with each, stopping
// early when f returns false (which is not an error). Rows of which the
// filter passes no cell are skipped. The read sees one consistent snapshot of
// the table; f may keep the Rows it gets.
//
// NB: f runs while the read holds its snapshot; calling Close from f
// deadlocks.
func (t *Table) ReadRows(ctx context.Context, rs RowSet, f func(Row) bool, opts ...ReadOption) error {
	if rs == nil {
		return fmt.Errorf("bigtable: read %q: nil RowSet", t.name)
	}
	_, err := t.read(ctx, rs, "", opts, f, nil)
	return err
}

// readSettings gathers the read options; none is true when they ask for no
// row at all (LimitRows(0)), and a negative limit is an error, as in the
// Cloud client.
func (t *Table) readSettings(ctx context.Context, opts []ReadOption) (s readSettings, none bool, err error) {
	if len(opts) > 0 {
		s = gatherOptions(opts)
	}
	if s.limitSet && s.limit < 0 {
		return s, false, fmt.Errorf("bigtable: read %q: row limit %d cannot be negative", t.name, s.limit)
	}
	if err := ctx.Err(); err != nil {
		return s, false, err
	}
	return s, s.limitSet && s.limit == 0, nil
}

// gatherOptions applies opts to fresh settings.
//
// NB: apart from readSettings, so that the settings of a read without
// options (most point reads) do not escape to the heap through the
// interface calls.
func gatherOptions(opts []ReadOption) (s readSettings) {
	for _, o := range opts {
		o.set(&s)
	}
	return s
}

// read reads the rows of rs, or the single row when rs is nil, handing
// each to f, or, when cells is not nil, to cells as a hooks.Row instead
// (see export_hooks.go; f is then unused). A single row's read (rs nil)
// returns the row instead, f unused (ReadRow, without a closure to
// allocate).
func (t *Table) read(ctx context.Context, rs RowSet, single string, opts []ReadOption, f func(Row) bool, cells func(*hooks.Row) bool) (Row, error) {
	s, none, err := t.readSettings(ctx, opts)
	if err != nil || none {
		return nil, err
	}
	ts, err := t.db.enter(ctx, t.name, false)
	if err != nil {
		return nil, err
	}
	defer t.db.opMu.RUnlock()
	rr, err := getRowReader(ts, s.filter)
	if err != nil {
		return nil, err
	}
	defer rr.release()
	if rs != nil && cells == nil && (!s.limitSet || s.limit > int64(t.db.readAheadAfter())) {
		rr.readAheadAt = t.db.readAheadAfter()
		rr.readers, rr.group = t.db.readAheadReaders(), t.db.opts.readAheadGroup
	}
	rr.slabbed = rs != nil && cells == nil
	var ranges []keyRange
	if rs == nil {
		if single == "" {
			return nil, nil
		}
		rr.keyBuf = appendRowKey(rr.keyBuf[:0], ts.id, single)
		n := len(rr.keyBuf)
		rr.keyBuf = append(rr.keyBuf, rr.keyBuf...)
		rr.keyBuf[len(rr.keyBuf)-1]++ // rowSuccessor, in place
		rr.ranges[0] = keyRange{rr.keyBuf[:n:n], rr.keyBuf[n:]}
		ranges = rr.ranges[:1]
		rr.cur.hint = single
		rr.single = true
	} else {
		ranges = normalizeRanges(rs.keyRanges(nil, ts.id))
	}
	if len(ranges) == 0 {
		return nil, nil
	}
	snap := t.db.getSnap()
	defer t.db.putSnap(snap)
	if rs == nil {
		it := snap.iterator(ts.id)
		rr.positioned = snap.atOK && bytes.Compare(snap.at, ranges[0].lo) <= 0
		err := rr.scanIter(ctx, it, ranges, f)
		// The cursor went through the row to the first key past it (or
		// the end), unless it stopped on an error.
		snap.atOK = err == nil && rr.cur.done()
		if snap.atOK {
			snap.at = append(snap.at[:0], ranges[0].hi...)
		}
		return rr.result, err
	}
	it := newIterator(snap.txn, ranges)
	defer it.Close()
	rr.txn = snap.txn
	n := int64(0)
	more := func() bool {
		n++
		return !s.limitSet || n < s.limit
	}
	if cells != nil {
		rr.cells = func(r *hooks.Row) bool { return cells(r) && more() }
	}
	return nil, rr.scanIter(ctx, it, ranges, func(r Row) bool { return f(r) && more() })
}

// Rows returns an iterator over the rows ReadRows would pass to its
// callback. An error ends the sequence as its last element, with a nil Row.
func (t *Table) Rows(ctx context.Context, rs RowSet, opts ...ReadOption) iter.Seq2[Row, error] {
	return rowseq.Of(func(fn func(Row) bool) error { return t.ReadRows(ctx, rs, fn, opts...) })
}

// rowReader turns the cells a cursor finds into filtered Rows.
type rowReader struct {
	ts    *tableSchema
	stage stage
	whole bool      // the filter needs whole rows (values read eagerly)
	now   Timestamp // GC policies judge age against this

	noValues bool     // collect leaves values nil (existence checks)
	families []string // the only families the filter can pass, or nil (see readFamilies)
	fast     bool     // every cell passes with its value: addCell's short path

	// the scan in progress
	emit        func(Row) bool
	single      bool // a point read: the row goes to result, not emit
	result      Row
	started     bool       // a row is open
	delivered   int        // rows emitted in the calling goroutine
	readAheadAt int        // rows after which the rest is read ahead; 0: never
	ra          *readAhead // set in the read-ahead goroutine
	readers     int        // goroutines that read ahead (see readahead.go)
	group       int        // rows dealt to one read-ahead goroutine in turn
	deal        dealer     // this goroutine's share of the rows read ahead
	txn         *badger.Txn
	filter      Filter // the read's filter, compiled again by a second reader

	fam *familySchema // schema of the current family (nil: not declared)

	// cells, when set, receives each row as a hooks.Row instead of emit
	// a Row: the row's values are copied into arena (voff[i] is where
	// item i's value ends there), its key into keyBytes, and hrow is
	// reused from row to row.
	cells    func(*hooks.Row) bool
	arena    []byte
	voff     []int
	keyBytes []byte
	hrow     hooks.Row

	cur cursor
	// positioned: the iterator scanIter gets is on the first key at or
	// after a bound at or before the start of the first range (see snap.at).
	positioned bool
	keyBuf     []byte
	ranges     [1]keyRange

	// slabbed: keys, values and items come from sl (a multi-row read),
	// not from an allocation each (see slab.go).
	slabbed bool
	sl      slab

	// per row
	key   string
	in    []cell
	out   []cell
	items []ReadItem // the row's items so far, in key order (see buildRow)
	fams  []string   // the family of each of items
	lv    lazyValue
	one   [1]cell
}

func newRowReader(ts *tableSchema, f Filter) (*rowReader, error) {
	st, err := compileFilter(f)
	if err != nil {
		return nil, err
	}
	rr := &rowReader{ts: ts, stage: st, whole: f != nil && needsWholeRow(f), now: Now(), families: readFamilies(f)}
	return rr, nil
}

// rowReaders recycles readers, and with them their buffers.
var rowReaders = sync.Pool{New: func() any { return new(rowReader) }}

// getRowReader is newRowReader from the pool; release it after use.
func getRowReader(ts *tableSchema, f Filter) (*rowReader, error) {
	st, err := compileFilter(f)
	if err != nil {
		return nil, err
	}
	rr := rowReaders.Get().(*rowReader)
	rr.ts, rr.stage, rr.whole, rr.now = ts, st, f != nil && needsWholeRow(f), 0 // now: set on first use
	rr.filter = f
	rr.families = readFamilies(f)
	return rr, nil
}

// release returns rr to the pool, dropping every reference it holds to
// data handed out.
func (rr *rowReader) release() {
	if cap(rr.keyBuf) > 64<<10 || cap(rr.in) > 1024 || cap(rr.out) > 1024 || cap(rr.items) > 1024 ||
		cap(rr.arena) > 4<<20 || cap(rr.hrow.Cells) > 1024 {
		return // do not pool outsized buffers
	}
	clear(rr.in[:cap(rr.in)])
	clear(rr.out[:cap(rr.out)])
	clear(rr.items[:cap(rr.items)])
	clear(rr.fams[:cap(rr.fams)])
	clear(rr.hrow.Cells[:cap(rr.hrow.Cells)])
	*rr = rowReader{in: rr.in[:0], out: rr.out[:0], keyBuf: rr.keyBuf[:0], items: rr.items[:0], fams: rr.fams[:0],
		arena: rr.arena[:0], voff: rr.voff[:0], keyBytes: rr.keyBytes[:0], hrow: hooks.Row{Cells: rr.hrow.Cells[:0]},
		cur: cursor{rowEnc: rr.cur.rowEnc[:0], qualEnc: rr.cur.qualEnc, last: rr.cur.lastColumn()}}
	rowReaders.Put(rr)
}

// scan reads the rows of ranges and calls emit for each non-empty one until
// emit returns false.
func (rr *rowReader) scan(ctx context.Context, txn *badger.Txn, ranges []keyRange, emit func(Row) bool) error {
	it := newIterator(txn, ranges)
	defer it.Close()
	return rr.scanIter(ctx, it, ranges, emit)
}

// scanIter is scan with an iterator of the caller's, which it leaves open.
//
// It reads in the calling goroutine, and hands the rest of a long scan to
// a read-ahead goroutine once rr.readAheadAt rows have gone out (see
// readahead.go); either way it returns only when nothing else uses it or rr.
func (rr *rowReader) scanIter(ctx context.Context, it *badger.Iterator, ranges []keyRange, emit func(Row) bool) error {
	c := &rr.cur
	c.reset(it, ranges, rr.ts)
	c.positioned, c.steps = rr.positioned, cursorSteps
	c.families = rr.families
	if rr.positioned {
		// NB: a reused iterator is where the last point read left it,
		// on the first key past that row. Either that key is in the row
		// asked for (point reads in key order), or a Seek is needed: a
		// Next would only step into the row between.
		c.steps = -1
	}
	_, pass := rr.stage.(passStage)
	rr.fast = pass && !rr.whole && !rr.noValues
	rr.emit, rr.started, rr.delivered = emit, false, 0
	err := rr.run(ctx, false)
	if cellsVisitedHook != nil {
		cellsVisitedHook(c.visited)
	}
	if err == errReadAhead {
		return rr.readAhead(ctx)
	}
	return err
}

// cellsVisitedHook, set by tests, gets the number of cells a read decoded
// in the calling goroutine (cells read ahead are not counted).
var cellsVisitedHook func(n int)

// errReadAhead is run's signal to hand the scan to a read-ahead goroutine.
var errReadAhead = errors.New("bigtable: read ahead (internal)")

// run moves the cursor to the end of its ranges, delivering each row, and
// stops early when a delivery says so. With resume, it first takes the
// cell the cursor is on, the first of a row, where an earlier run stopped
// with errReadAhead.
func (rr *rowReader) run(ctx context.Context, resume bool) error {
	c := &rr.cur
	family := ""
	skipping := false // the current row is another read-ahead goroutine's
	for n := 0; resume || c.next(); n++ {
		resume = false
		if n&255 == 255 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if c.newRow {
			if rr.started {
				if stop, err := rr.deliver(); stop || err != nil {
					return err
				}
				if rr.readAheadAt > 0 && rr.delivered >= rr.readAheadAt && rr.ra == nil {
					rr.started = false
					return errReadAhead
				}
			}
			if rr.ra != nil {
				mine := rr.deal.next()
				if rr.ra.passed(rr.deal.ord) {
					return nil // the caller's goroutine stopped reading
				}
				if skipping = !mine; skipping {
					rr.started = false
					continue
				}
			}
			rr.started = true
			if rr.cells != nil {
				rr.keyBytes = append(rr.keyBytes[:0], c.rowRaw...)
				rr.arena, rr.voff = rr.arena[:0], rr.voff[:0]
			}
			if rr.cells != nil && rr.fast {
				rr.startRow("") // NB: no filter looks at the key: no string for it
			} else {
				rr.startRow(rr.rowKey(c))
			}
			family = ""
		} else if skipping {
			continue
		}
		if c.family != family {
			family = c.family
			rr.fam = c.fam
		}
		if rr.fam == nil {
			continue // a deleted family whose cells are not yet reclaimed
		}
		if rr.fam.gc {
			if rr.now == 0 {
				rr.now = Now()
			}
			if rr.fam.policy.collects(c.index, c.ts, rr.now) {
				continue
			}
		}
		if err := rr.addCell(c); err != nil {
			return err
		}
	}
	if c.err != nil {
		return fmt.Errorf("bigtable: reading table %q: %w", rr.ts.name, c.err)
	}
	if rr.started {
		rr.started = false
		_, err := rr.deliver()
		return err
	}
	return nil
}

// deliver finishes the current row and passes it on: to the caller's
// emit, or to the read-ahead batch. It reports whether the scan should
// stop.
func (rr *rowReader) deliver() (stop bool, err error) {
	if err := rr.finishRow(); err != nil {
		return true, err
	}
	if len(rr.items) == 0 {
		return false, nil // the filter passed nothing
	}
	if rr.ra != nil {
		return rr.ra.queue(rr), nil
	}
	if rr.cells != nil {
		return !rr.deliverCells(), nil
	}
	var sl *slab
	if rr.slabbed {
		sl = &rr.sl
	}
	row := buildRow(rr.items, rr.fams, sl)
	clear(rr.items) // drop the references to values handed out
	rr.items, rr.fams = rr.items[:0], rr.fams[:0]
	rr.delivered++
	if rr.single {
		rr.result = row
		return true, nil
	}
	return !rr.emit(row), nil
}

// rowKey returns the key of the cursor's row, from the slab in a
// multi-row read.
func (rr *rowReader) rowKey(c *cursor) string {
	if !rr.slabbed || c.row != "" || c.hint != "" {
		return c.rowKey()
	}
	c.row = rr.sl.str(c.rowRaw)
	return c.row
}

// valueCopy returns a copy of the item's value (nil when empty), from the
// slab in a multi-row read.
func (rr *rowReader) valueCopy(item *badger.Item) ([]byte, error) {
	if !rr.slabbed {
		v, err := item.ValueCopy(nil)
		if len(v) == 0 {
			v = nil
		}
		return v, err
	}
	var v []byte
	err := item.Value(func(b []byte) error {
		v = rr.sl.copy(b)
		return nil
	})
	return v, err
}

func (rr *rowReader) startRow(key string) {
	rr.key = key
	rr.in = rr.in[:0]
	rr.items = rr.items[:0]
	rr.fams = rr.fams[:0]
	rr.stage.startRow(key)
}

func (rr *rowReader) addCell(c *cursor) error {
	if rr.fast && rr.cells != nil {
		err := c.item.Value(func(v []byte) error {
			rr.arena = append(rr.arena, v...)
			return nil
		})
		if err != nil {
			return fmt.Errorf("bigtable: reading value: %w", err)
		}
		rr.items = append(rr.items, ReadItem{Column: c.column, Timestamp: c.ts})
		rr.fams = append(rr.fams, c.family)
		rr.voff = append(rr.voff, len(rr.arena))
		return nil
	}
	if rr.fast {
		// NB: the common read, every cell with its value, skips the
		// filter machinery: a full scan is this loop and Badger's.
		v, err := rr.valueCopy(c.item)
		if err != nil {
			return fmt.Errorf("bigtable: reading value: %w", err)
		}
		rr.items = append(rr.items, ReadItem{Row: rr.key, Column: c.column, Timestamp: c.ts, Value: v})
		rr.fams = append(rr.fams, c.family)
		return nil
	}
	cl := cell{family: c.family, qualifier: c.qualifier, column: c.column, ts: c.ts}
	if rr.whole {
		v, err := c.item.ValueCopy(nil)
		if err != nil {
			return fmt.Errorf("bigtable: reading value: %w", err)
		}
		if len(v) == 0 {
			v = nil
		}
		cl.val = &lazyValue{v: v, loaded: true}
		rr.in = append(rr.in, cl)
		return nil
	}
	rr.lv = lazyValue{item: c.item}
	cl.val = &rr.lv
	rr.one[0] = cl
	var err error
	rr.out, err = rr.stage.apply(rr.one[:], rr.out[:0])
	if err != nil {
		return err
	}
	return rr.collect(rr.out)
}

// collect appends passed cells to the current Row, reading their values.
func (rr *rowReader) collect(cells []cell) error {
	for i := range cells {
		c := &cells[i]
		var v []byte
		if !rr.noValues && c.val != nil {
			var err error
			if v, err = c.val.get(); err != nil {
				return err
			}
			if c.val.handed && v != nil {
				v = bytes.Clone(v) // a second copy of one cell (InterleaveFilters)
			}
			c.val.handed = true
		}
		if rr.cells != nil {
			rr.arena = append(rr.arena, v...)
			rr.voff = append(rr.voff, len(rr.arena))
			v = nil
		}
		rr.items = append(rr.items, ReadItem{Row: rr.key, Column: c.column, Timestamp: c.ts, Value: v})
		rr.fams = append(rr.fams, c.family)
	}
	return nil
}

// deliverCells hands the current row to rr.cells as a hooks.Row whose
// values are slices of rr.arena, and reports whether the read goes on.
func (rr *rowReader) deliverCells() bool {
	h := &rr.hrow
	h.Key, h.Cells = rr.keyBytes, h.Cells[:0]
	start := 0
	for i := range rr.items {
		it, fam, end := &rr.items[i], rr.fams[i], rr.voff[i]
		var v []byte
		if end > start {
			v = rr.arena[start:end:end]
		}
		h.Cells = append(h.Cells, hooks.Cell{Family: fam, Qualifier: it.Column[len(fam)+1:], Timestamp: int64(it.Timestamp), Value: v})
		start = end
	}
	rr.items, rr.fams = rr.items[:0], rr.fams[:0]
	rr.delivered++
	return rr.cells(h)
}

// buildRow turns a row's items, and the family of each, into a Row: one
// allocation for every item of the row (a slice of sl's, when not nil),
// and one map entry per family.
//
// NB: cells reach collect in key order, so a family's items are
// contiguous; each family gets a slice of the one allocation, capped so
// that a caller's append copies instead of overwriting the next family.
func buildRow(items []ReadItem, fams []string, sl *slab) Row {
	var all []ReadItem
	if sl != nil {
		all = sl.cloneItems(items)
	} else {
		all = slices.Clone(items)
	}
	if n := len(all); fams[0] == fams[n-1] {
		return Row{fams[0]: all} // one family, the common case
	}
	row := make(Row, 2)
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && fams[j] == fams[i] {
			j++
		}
		f := fams[i]
		if prev, ok := row[f]; ok {
			row[f] = append(prev, all[i:j]...) // not expected: see NB
		} else {
			row[f] = all[i:j:j]
		}
		i = j
	}
	return row
}

// finishRow completes the current row's items: a filter that needs the
// whole row runs now.
func (rr *rowReader) finishRow() error {
	if rr.whole {
		var err error
		rr.out, err = rr.stage.apply(rr.in, rr.out[:0])
		if err != nil {
			return err
		}
		if err := rr.collect(rr.out); err != nil {
			return err
		}
		clear(rr.in)
	}
	return nil
}
