package bigtable

import (
	"context"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// GC removes from disk the cells that their families' GC policies collect,
// in every table, and then reclaims space in Badger's value log. Reads never
// return collected cells whether or not GC has run; writes prune the columns
// they touch; GC catches the rest (chiefly cells that aged out). Unless
// disabled with WithGCInterval, a background goroutine calls it
// periodically. It is safe to call concurrently with reads and writes.
func (db *DB) GC(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := db.beginWrite(); err != nil {
		return err
	}
	defer db.opMu.RUnlock()
	db.gcMu.Lock()
	defer db.gcMu.Unlock()
	// NB: writes prune the columns they touch, so a policy that only counts
	// versions collects nothing new until its column is written; only age
	// moves cells into collection by itself. Such families need a sweep
	// once after Open and after a policy change, age policies every time.
	epoch := db.policyEpoch.Load()
	full := db.sweptEpoch != epoch
	tables := *db.tables.Load()
	for _, ts := range tables {
		if err := db.sweepTable(ctx, ts, full); err != nil {
			return err
		}
	}
	db.sweptEpoch = epoch
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := db.runValueLogGC()
		if err == nil {
			continue
		}
		if errors.Is(err, badger.ErrNoRewrite) || errors.Is(err, badger.ErrRejected) {
			return nil
		}
		return fmt.Errorf("bigtable: value log gc: %w", err)
	}
}

// runValueLogGC rewrites at most one value log file of Badger's, with
// writes held off (db.writeMu).
//
// NB: Badger v4.9.6 starts a rewrite by reading the highest version of
// each memtable (DB.MaxVersion) without the lock its write goroutine holds
// while it sets it (memTable.Put), a data race. Reads do not touch it, so
// only writes wait: for one file's rewrite at a time, and GC lets them in
// between two files.
func (db *DB) runValueLogGC() error {
	db.writeMu.Lock()
	defer db.writeMu.Unlock()
	return db.bdb.RunValueLogGC(0.5)
}

// sweepFamily removes from disk the cells of one family that its current
// policy collects.
func (db *DB) sweepFamily(ctx context.Context, table, family string) error {
	if err := db.beginWrite(); err != nil {
		return err
	}
	defer db.opMu.RUnlock()
	ts, err := db.schema(table)
	if err != nil {
		return err
	}
	f, err := ts.family(family)
	if err != nil {
		return err
	}
	if !f.gc {
		return nil
	}
	db.gcMu.Lock()
	defer db.gcMu.Unlock()
	only := &tableSchema{name: ts.name, id: ts.id, families: map[string]*familySchema{family: f}, tablets: ts.tablets}
	return db.sweepTable(ctx, only, true)
}

// sweepTable prunes every row of a table that holds a collected cell.
func (db *DB) sweepTable(ctx context.Context, ts *tableSchema, full bool) error {
	gc := false
	for _, f := range ts.families {
		gc = gc || f.gc && (full || hasAge(f.policy))
	}
	if !gc {
		return nil
	}
	now := Now()
	var rows []string
	flush := func() error {
		for _, row := range rows {
			if err := db.pruneRow(ts, row); err != nil {
				return fmt.Errorf("bigtable: gc of row %q of table %q: %w", row, ts.name, err)
			}
		}
		rows = rows[:0]
		return nil
	}
	ranges := InfiniteRange("").keyRanges(nil, ts.id)
	err := db.bdb.View(func(txn *badger.Txn) error {
		it := newIterator(txn, ranges)
		defer it.Close()
		c := newCursor(it, ranges)
		last := ""
		for n := 0; c.next(); n++ {
			if n&1023 == 1023 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			f := ts.families[c.family]
			if f == nil || !f.gc || string(c.rowRaw) == last || !f.policy.collects(c.index, c.ts, now) {
				continue
			}
			last = c.rowKey()
			rows = append(rows, last)
			if len(rows) >= 1024 {
				// NB: pruning in a separate transaction while this one
				// iterates is fine; this snapshot just does not see it.
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return c.err
	})
	if err != nil {
		return err
	}
	return flush()
}

// pruneRow deletes the collected cells of one row under its row lock.
func (db *DB) pruneRow(ts *tableSchema, row string) error {
	mu := db.rowLock(ts.id, row)
	mu.Lock()
	defer mu.Unlock()
	now := Now()
	var freed int64
	// NB: the row's tablet shrinks by what GC deletes, and must be counted
	// again: GC may have emptied the row.
	defer func() { db.noteWrite(ts, row, -freed) }()
	return db.update(func(txn *badger.Txn) error {
		ranges := RowList{row}.keyRanges(nil, ts.id)
		it := newIterator(txn, ranges)
		c := newCursor(it, ranges)
		var keys [][]byte
		freed = 0
		for c.next() {
			f := ts.families[c.family]
			if f != nil && f.gc && f.policy.collects(c.index, c.ts, now) {
				keys = append(keys, c.item.KeyCopy(nil))
				freed += c.item.EstimatedSize()
			}
		}
		it.Close()
		if c.err != nil {
			return c.err
		}
		for _, k := range keys {
			if err := txn.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// deleteFamilyCells deletes every cell of a family in table id.
func (db *DB) deleteFamilyCells(ctx context.Context, id uint32, family string) error {
	defer db.wrote()
	wb := db.bdb.NewWriteBatch()
	defer wb.Cancel()
	ranges := InfiniteRange("").keyRanges(nil, id)
	err := db.bdb.View(func(txn *badger.Txn) error {
		it := newIterator(txn, ranges)
		defer it.Close()
		c := newCursor(it, ranges)
		for n := 0; c.next(); n++ {
			if n&1023 == 1023 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if c.family == family {
				if err := wb.Delete(c.item.KeyCopy(nil)); err != nil {
					return err
				}
			}
		}
		return c.err
	})
	if err != nil {
		return fmt.Errorf("bigtable: deleting cells of family %q: %w", family, err)
	}
	if err := db.startWrite(); err != nil {
		wb.Cancel()
		return fmt.Errorf("bigtable: deleting cells of family %q: %w", family, err)
	}
	if err := db.endWrite(wb.Flush()); err != nil {
		return fmt.Errorf("bigtable: deleting cells of family %q: %w", family, err)
	}
	return nil
}

// contextUntil returns a context cancelled when stop is closed.
func contextUntil(stop <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
