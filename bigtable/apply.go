package bigtable

import (
	"context"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// maxConflictRetries bounds how often a write retries on badger.ErrConflict
// (rare: it takes two plain writers of one row touching the same cell at
// once, or the sweeper or a schema change beside a writer).
const maxConflictRetries = 100

// Apply applies m to row atomically: a reader sees all of it or none of it,
// also after a crash. Each write is one Badger transaction. A conditional
// mutation (and a read-modify-write, and GC's pruning) has its row to
// itself, so its check and its writes are atomic; plain writes of one row
// run concurrently. Invalid input (see MaxRowKeySize, MaxQualifierSize,
// MaxValueSize, undeclared families) fails before anything is written.
func (t *Table) Apply(ctx context.Context, row string, m *Mutation, opts ...ApplyOption) error {
	ts, err := t.db.enter(ctx, t.name, true)
	if err != nil {
		return err
	}
	defer t.db.opMu.RUnlock()
	if err := checkRowKey(row); err != nil {
		return err
	}
	if err := m.checkTop(ts); err != nil {
		return fmt.Errorf("%w (row %q)", err, row)
	}
	var cond *rowReader
	if m.isCond {
		if cond, err = newRowReader(ts, m.cond); err != nil {
			return err
		}
		cond.noValues = true // the check needs no values, unless its filter asks
	}
	// NB: a conditional mutation holds its row alone, so that no write
	// lands between its check and its writes (Badger's conflict detection
	// sees changed cells, not new ones). Plain writes of a row share it:
	// each is one Badger transaction, and pruning judges only versions it
	// has seen, which another writer's new version can only make older.
	mu := t.db.rowLock(ts.id, row)
	if m.isCond {
		mu.Lock()
		defer mu.Unlock()
	} else {
		mu.RLock()
		defer mu.RUnlock()
	}
	now := Now()
	matched := false
	written := int64(0)
	err = t.db.update(func(txn *badger.Txn) error {
		w := writer{txn: txn, ts: ts, row: row, now: now}
		defer func() { written = w.written }()
		defer w.closePrune()
		ops := m.ops
		if m.isCond {
			cond.now = now
			var err error
			if matched, err = cond.matches(ctx, txn, ts.id, row); err != nil {
				return err
			}
			ops = nil
			if matched && m.mtrue != nil {
				ops = m.mtrue.ops
			} else if !matched && m.mfalse != nil {
				ops = m.mfalse.ops
			}
		}
		if !t.db.opts.pruneAfterWrites {
			w.startPrune(ops)
		}
		return w.apply(ops)
	})
	if err != nil {
		return fmt.Errorf("bigtable: apply to row %q of table %q: %w", row, t.name, err)
	}
	t.db.noteWrite(ts, row, written) // also a delete: the tablet's row count is stale
	if m.isCond {
		for _, o := range opts {
			o.after(matched)
		}
	}
	return nil
}

// update runs fn in a read-write transaction and commits it, retrying on
// conflicts. ErrTxnTooBig becomes ErrTooLarge.
func (db *DB) update(fn func(txn *badger.Txn) error) error {
	defer db.wrote()
	for try := 0; ; try++ {
		if err := db.startWrite(); err != nil {
			return err
		}
		txn := db.bdb.NewTransaction(true)
		err := fn(txn)
		if err == nil {
			err = txn.Commit()
		}
		txn.Discard()
		// NB: endWrite waits for a sync only on success; a conflict retries.
		switch err = db.endWrite(err); {
		case err == nil:
			return nil
		case errors.Is(err, badger.ErrConflict) && try < maxConflictRetries:
			continue
		case errors.Is(err, badger.ErrTxnTooBig):
			return fmt.Errorf("%w: %v", ErrTooLarge, err)
		}
		return err
	}
}

// matches reports whether the reader's filter passes at least one cell of row.
func (rr *rowReader) matches(ctx context.Context, txn *badger.Txn, table uint32, row string) (bool, error) {
	ranges := RowList{row}.keyRanges(nil, table)
	found := false
	err := rr.scan(ctx, txn, ranges, func(Row) bool { found = true; return false })
	return found, err
}
