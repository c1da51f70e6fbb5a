package bigtable

import (
	"bytes"
	"context"
	"fmt"
	"iter"

	"github.com/webtable/webtable/bigtable/internal/hooks"
	"github.com/webtable/webtable/bigtable/internal/rowseq"
)

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
