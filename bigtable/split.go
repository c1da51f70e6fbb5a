package bigtable

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/dgraph-io/badger/v4"
)

// marksPerSplit is how many row boundaries a count marks per split size: the
// split point is within about 1/marksPerSplit of a tablet's middle.
const marksPerSplit = 256

// wakeSplitter asks the splitter goroutine for a pass, without waiting.
func (db *DB) wakeSplitter() {
	select {
	case db.splitC <- struct{}{}:
	default: // a pass is pending already
	}
}

// splitLoop runs a split pass whenever a write asks, until Close.
func (db *DB) splitLoop() {
	defer db.bgDone.Done()
	for {
		select {
		case <-db.stop:
			return
		case <-db.splitC:
			ctx, cancel := contextUntil(db.stop)
			err := db.splitTablets(ctx)
			cancel()
			if err != nil && db.opts.logger != nil && !errors.Is(err, ErrClosed) && !errors.Is(err, context.Canceled) {
				db.opts.logger.Printf("bigtable: tablet split: %v", err)
			}
		}
	}
}

// splitTablets splits every tablet that has grown past its split level,
// and the halves again if they are still too big. Writers are never held:
// a split reads in its own snapshot and commits two metadata records.
func (db *DB) splitTablets(ctx context.Context) error {
	if err := db.beginWrite(); err != nil {
		return err
	}
	defer db.opMu.RUnlock()
	db.splitMu.Lock()
	defer db.splitMu.Unlock()
	tables := *db.tables.Load()
	for _, name := range slices.Sorted(maps.Keys(tables)) {
		ts := tables[name]
		for again := true; again; {
			again = false
			for _, t := range ts.tablets.load() {
				if err := ctx.Err(); err != nil {
					return err
				}
				if !t.recount.Load() && t.bytes.Load() < t.splitAt.Load() {
					continue
				}
				split, err := db.splitTablet(ctx, ts, t)
				if err != nil {
					return fmt.Errorf("bigtable: split tablet [%q, %q) of table %q: %w", t.start, t.end, name, err)
				}
				if split {
					again = true
					break // the list changed
				}
			}
		}
		for again := true; again; {
			var err error
			if again, err = db.mergeTablets(ctx, ts); err != nil {
				return fmt.Errorf("bigtable: merge tablets of table %q: %w", name, err)
			}
		}
	}
	return nil
}

// mergeLevel is the size under which two neighbouring tablets merge: a
// quarter of the split size.
func (db *DB) mergeLevel() int64 { return db.opts.splitSize / 4 }

// mergeTablets merges the first two neighbouring tablets of ts whose
// counters hold together less than the merge level and whose exact counts
// (taken now, when a tablet was written since its last count) agree. It
// reports whether it merged. Counting only the candidates keeps a pass
// cheap: a tablet under the merge level is small by construction.
func (db *DB) mergeTablets(ctx context.Context, ts *tableSchema) (bool, error) {
	level := db.mergeLevel()
	list := ts.tablets.load()
	for i := 0; i+1 < len(list); i++ {
		a, b := list[i], list[i+1]
		if max(0, a.bytes.Load())+max(0, b.bytes.Load()) >= level {
			continue
		}
		for _, t := range []*tablet{a, b} {
			if !t.counted.Load() || t.recount.Load() {
				if err := db.refreshTablet(ctx, ts, t); err != nil {
					return false, err
				}
			}
		}
		if a.bytes.Load()+b.bytes.Load() >= level {
			continue // the counters erred low (a crash forgets writes)
		}
		return db.commitMerge(ts, a, b)
	}
	return false, nil
}

// commitMerge replaces the neighbours a and b by one tablet, in the
// metadata in one Badger transaction (a's record gets b's end, b's record
// goes), and then in memory. It does nothing if the table or either tablet
// is gone meanwhile.
func (db *DB) commitMerge(ts *tableSchema, a, b *tablet) (bool, error) {
	// NB: countMu before schemaMu, as in splitTablet and commitSplit.
	a.countMu.Lock() // see tablet.countMu
	defer a.countMu.Unlock()
	b.countMu.Lock()
	defer b.countMu.Unlock()
	db.schemaMu.Lock()
	defer db.schemaMu.Unlock()
	cur, list, i := db.findTablet(ts, a)
	if i < 0 || i+1 >= len(list) || list[i+1] != b {
		return false, nil
	}
	ba, bb := a.bytes.Load(), b.bytes.Load()
	m := newTablet(a.start, b.end, ba+bb, a.rows.Load()+b.rows.Load(), db.opts.splitSize)
	m.counted.Store(true)
	db.splitHook("before merge")
	err := db.update(func(txn *badger.Txn) error {
		if err := txn.Delete(metaTabletKey(ts.id, b.start)); err != nil {
			return err
		}
		return putTablets(txn, ts.id, m)
	})
	if err != nil {
		return false, err
	}
	next := slices.Concat(list[:i], []*tablet{m}, list[i+2:])
	cur.tablets.list.Store(&next)
	// NB: as in commitSplit, a writer that found a or b before the new
	// list was published sees retired and counts its write again in m.
	a.retired.Store(true)
	b.retired.Store(true)
	if !a.counted.Load() || !b.counted.Load() {
		m.counted.Store(false)
	}
	if extra := a.bytes.Load() - ba + b.bytes.Load() - bb; extra != 0 {
		m.bytes.Add(extra)
	}
	db.splitHook("after merge")
	return true, nil
}

// splitTablet counts t and, if it holds more than the split size and more
// than one row, splits it at the row boundary nearest its middle. It
// reports whether it split.
func (db *DB) splitTablet(ctx context.Context, ts *tableSchema, t *tablet) (bool, error) {
	t.countMu.Lock() // through commitSplit: see tablet.countMu
	defer t.countMu.Unlock()
	size := db.opts.splitSize
	t.counted.Store(true) // before the snapshot: see refreshTablet
	b0 := t.bytes.Load()  // writes after this are not in the snapshot (nearly)
	txn := db.bdb.NewTransaction(false)
	c, err := countTablet(ctx, txn, ts.id, t, max(1, size/marksPerSplit))
	txn.Discard()
	if err != nil {
		t.counted.Store(false)
		return false, err
	}
	t.rows.Store(c.rows)
	t.recount.Store(false)
	db.splitHook("counted")
	mid, ok := c.middle()
	last := t.lastCount.Swap(c.bytes)
	if c.bytes < size || !ok {
		t.bytes.Add(c.bytes - b0) // keep what was written during the count
		if c.bytes < size {
			// Deletes or writes over cells the tablet already held made
			// the counter run ahead (it adds what is written, not what
			// is kept): see recountWait.
			t.splitAt.Store(c.bytes + recountWait(size, last, b0, c.bytes))
		} else {
			// One row: wait for another split size of writes.
			t.splitAt.Store(c.bytes + size)
		}
		return false, nil
	}
	left := newTablet(t.start, mid.row, mid.bytes, mid.rows, size)
	right := newTablet(mid.row, t.end, c.bytes-mid.bytes, c.rows-mid.rows, size)
	left.counted.Store(true)
	right.counted.Store(true)
	return db.commitSplit(ts, t, b0, left, right)
}

// recountWait is how many more bytes of writes a tablet that a count found
// smaller than the split size waits for before its next count. The counter
// adds every write, the tablet keeps only what is new, so a tablet written
// over runs its counter ahead of its size; a count walks every key it
// holds, and counting one just under the split size at every write would
// cost a walk per write.
//
// last is the tablet's size at the count before (-1: none), counter its
// counter when this count began and now its size now. The writes between
// the two counts (counter-last) grew the tablet by now-last: at that rate,
// it reaches the split size after (size-now) x (counter-last)/(now-last)
// bytes of writes. The wait is that, but at least a quarter split size (so
// that a tablet near the split size is not walked every few writes) and at
// most a split size: a tablet that is only written over is counted once
// per split size of writes, and one that starts growing again splits by
// two split sizes at the latest. Without a count before, or when every
// byte written stayed, the wait is what the tablet lacks to reach the
// split size, at least a quarter split size.
func recountWait(size, last, counter, now int64) int64 {
	lo, hi := max(1, size/4), max(1, size)
	wrote, grew := counter-last, now-last
	if last < 0 || wrote <= 0 || grew >= wrote {
		return max(lo, size-now)
	}
	if grew <= 0 {
		return hi
	}
	w := float64(size-now) * float64(wrote) / float64(grew)
	return int64(min(float64(hi), max(float64(lo), w)))
}

// commitSplit replaces old by left and right in the metadata, in one Badger
// transaction, and then in memory. It does nothing if the table or the
// tablet is gone meanwhile.
//
// b0 is old's byte counter when its count began: what it gained since was
// written during the split, to rows on either side of the cut, so each half
// gets all of it. A half that did not take those writes counts too much,
// which only brings its next count sooner; sharing the bytes out would
// count too little in a half that did, and leave it past the split size
// with no count due.
func (db *DB) commitSplit(ts *tableSchema, old *tablet, b0 int64, left, right *tablet) (bool, error) {
	db.schemaMu.Lock()
	defer db.schemaMu.Unlock()
	cur, list, i := db.findTablet(ts, old)
	if i < 0 {
		return false, nil
	}
	db.splitHook("before commit")
	err := db.update(func(txn *badger.Txn) error {
		return putTablets(txn, ts.id, left, right)
	})
	if err != nil {
		return false, err
	}
	next := slices.Concat(list[:i], []*tablet{left, right}, list[i+1:])
	cur.tablets.list.Store(&next)
	// NB: a writer that found old before the new list was published adds
	// to old and marks it written, then sees retired and does the same to
	// the new tablet of its row (see noteWrite). A writer that misses
	// retired wrote before the loads below, which see its marks. So no
	// write is lost from the figures; one racing this line may be counted
	// twice, which only brings a count sooner.
	old.retired.Store(true)
	if !old.counted.Load() {
		left.counted.Store(false)
		right.counted.Store(false)
	}
	if extra := old.bytes.Load() - b0; extra > 0 {
		left.bytes.Add(extra)
		right.bytes.Add(extra)
	}
	db.splitHook("after commit")
	return true, nil
}

// findTablet returns the current schema of ts's table, its tablet list and
// t's index in it, or -1 if the table or the tablet is gone. The caller
// holds schemaMu.
func (db *DB) findTablet(ts *tableSchema, t *tablet) (*tableSchema, []*tablet, int) {
	cur := (*db.tables.Load())[ts.name]
	if cur == nil || cur.id != ts.id {
		return nil, nil, -1 // deleted
	}
	list := cur.tablets.load()
	return cur, list, slices.Index(list, t)
}

func (db *DB) splitHook(stage string) {
	if db.opts.splitHook != nil {
		db.opts.splitHook(stage)
	}
}

// saveTablets writes every tablet's current figures to its record, so a
// restart keeps how close each tablet is to splitting. Close calls it.
func (db *DB) saveTablets() error {
	return db.update(func(txn *badger.Txn) error {
		for _, ts := range *db.tables.Load() {
			if err := putTablets(txn, ts.id, ts.tablets.load()...); err != nil {
				return err
			}
		}
		return nil
	})
}
