package bigtable

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/dgraph-io/badger/v4"
	"github.com/webtable/webtable/bigtable/internal/hooks"
)

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

// newRowReader returns a reader of ts with filter f compiled, outside the
// pool (a conditional mutation's check keeps it for its transaction).
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
