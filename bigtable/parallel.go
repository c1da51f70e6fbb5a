package bigtable

import (
	"bytes"
	"context"
	"fmt"
	"runtime"

	"github.com/webtable/webtable/bigtable/internal/fanout"
)

// ReadRowsParallel reads the rows of rs as ReadRows does (same filter, same
// snapshot of the table, rows of which the filter passes nothing skipped),
// but scans each tablet of the range on its own goroutine, at most
// GOMAXPROCS at a time, for callers that do not need the rows in order:
// statistics, a recrawl pass.
//
// Order: rows of one tablet arrive in key order; rows of different tablets
// interleave in no particular order. A table of one tablet is read by one
// goroutine, in key order.
//
// Concurrency: f is called concurrently from several goroutines and must be
// safe for that. Each Row is handed to one call only and belongs to it.
//
// Stopping: when a call of f returns false, every goroutine stops before
// its next row and ReadRowsParallel returns nil once the calls under way
// have returned; a call that began before the false was returned can still
// be running then, so f may be called a few times after it returned
// false, but never after ReadRowsParallel returns. An error in one tablet
// (or ctx being cancelled) stops the others the same way and is returned.
//
// LimitRows(n) passes at most n rows to f in all, not the first n in key
// order.
//
// NB: as with ReadRows, f runs while the read holds its snapshot; calling
// Close from f deadlocks.
func (t *Table) ReadRowsParallel(ctx context.Context, rs RowSet, f func(Row) bool, opts ...ReadOption) error {
	if rs == nil {
		return fmt.Errorf("bigtable: read %q: nil RowSet", t.name)
	}
	s, none, err := t.readSettings(ctx, opts)
	if err != nil || none {
		return err
	}
	if _, err := compileFilter(s.filter); err != nil {
		return err // before any goroutine starts
	}
	ts, err := t.db.enter(ctx, t.name, false)
	if err != nil {
		return err
	}
	defer t.db.opMu.RUnlock()
	ranges := normalizeRanges(rs.keyRanges(nil, ts.id))
	if len(ranges) == 0 {
		return nil
	}
	// Cut the ranges at tablet boundaries: one piece of work per tablet.
	var work [][]keyRange
	for _, tb := range ts.tablets.load() {
		if w := intersectRanges(ranges, tb.keyRange(ts.id)); len(w) > 0 {
			work = append(work, w)
		}
	}
	// NB: one read-only Badger transaction is one snapshot, and its
	// iterators may be used from several goroutines at once.
	txn := t.db.bdb.NewTransaction(false)
	defer txn.Discard()

	limit := int64(-1)
	if s.limitSet {
		limit = s.limit
	}
	return fanout.Run(ctx, len(work), runtime.GOMAXPROCS(0), limit, f,
		func(ctx context.Context, i int, emit func(Row) bool) error {
			rr, err := getRowReader(ts, s.filter)
			if err != nil {
				return err
			}
			defer rr.release()
			return rr.scan(ctx, txn, work[i], emit)
		})
}

// intersectRanges returns the parts of sorted, disjoint ranges inside r.
func intersectRanges(ranges []keyRange, r keyRange) []keyRange {
	var out []keyRange
	for _, x := range ranges {
		lo, hi := x.lo, x.hi
		if bytes.Compare(lo, r.lo) < 0 {
			lo = r.lo
		}
		if bytes.Compare(hi, r.hi) > 0 {
			hi = r.hi
		}
		if bytes.Compare(lo, hi) < 0 {
			out = append(out, keyRange{lo, hi})
		}
	}
	return out
}
