package bigtable

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

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
		db.startWrite()
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

// writer applies the operations of one row inside a transaction.
type writer struct {
	txn *badger.Txn
	ts  *tableSchema
	row string
	now Timestamp

	prune   []rowColumn // columns of GC'd families to prune after the writes
	freed   []rowBytes  // bytes flushPrune deleted, by row (bulk: see bulk.write)
	written int64       // bytes of keys and values set, less those deleted, for the tablet counters
	// bulk leaves pruning to the caller's flushPrune, so that ApplyBulk
	// prunes all the rows of a transaction with one iterator.
	bulk bool
}

type column struct{ family, qualifier string }

// rowBytes is a number of bytes of one row.
type rowBytes struct {
	row string
	n   int64
}

// rowColumn is a column of one row.
type rowColumn struct{ row, family, qualifier string }

func (w *writer) apply(ops []mutOp) error {
	id := w.ts.id
	if !w.bulk {
		w.prune = w.prune[:0]
	}
	for i := range ops {
		op := &ops[i]
		switch op.kind {
		case opSet:
			ts := op.ts
			if ts == ServerTime {
				ts = w.now
			}
			// NB: Badger keeps the key and value slices until commit, so
			// each key gets its own buffer.
			n := tablePrefixLen + len(w.row) + len(op.family) + len(op.qualifier) + 3*2 + tsLen
			key := appendCellKey(make([]byte, 0, n+8), id, w.row, op.family, op.qualifier, ts)
			if err := w.txn.SetEntry(badger.NewEntry(key, op.value)); err != nil {
				return err
			}
			w.written += int64(len(key) + len(op.value))
			w.notePrune(op.family, op.qualifier)
		case opDeleteColumn:
			if err := w.deletePrefix(appendColumnKey(nil, id, w.row, op.family, op.qualifier), nil); err != nil {
				return err
			}
		case opDeleteRange:
			// Prune first, so versions the policy already hides cannot move
			// up into view when newer ones go.
			if err := w.pruneColumn(op.family, op.qualifier); err != nil {
				return err
			}
			start, end := op.start, op.end
			if err := w.deletePrefix(appendColumnKey(nil, id, w.row, op.family, op.qualifier), func(ts Timestamp) bool {
				return ts >= start && (end == 0 || ts < end)
			}); err != nil {
				return err
			}
			w.notePrune(op.family, op.qualifier)
		case opDeleteFamily:
			p := appendEscaped(appendRowKey(nil, id, w.row), op.family)
			if err := w.deletePrefix(p, nil); err != nil {
				return err
			}
		case opDeleteRow:
			if err := w.deletePrefix(appendRowKey(nil, id, w.row), nil); err != nil {
				return err
			}
		}
	}
	if w.bulk {
		return nil
	}
	w.freed = w.freed[:0]
	err := w.flushPrune()
	for _, f := range w.freed {
		w.written -= f.n
	}
	return err
}

func (w *writer) notePrune(family, qualifier string) {
	if f := w.ts.families[family]; f == nil || !f.gc {
		return
	}
	// NB: no search for duplicates here (quadratic in a big bulk write):
	// flushPrune sorts the columns and skips repeats.
	w.prune = append(w.prune, rowColumn{w.row, family, qualifier})
}

// flushPrune deletes the versions that the noted columns' policies
// collect. NB: it walks every noted column with one iterator: a Badger
// iterator in a read-write transaction sorts the transaction's pending
// writes when it is made, so one per column (or per row of a bulk write)
// cost more than the writes themselves.
func (w *writer) flushPrune() error {
	if len(w.prune) == 0 {
		return nil
	}
	// NB: all the keys share one buffer, sliced once it stops growing:
	// one allocation instead of one per column.
	ends := make([]int, len(w.prune))
	size := 0
	for _, c := range w.prune {
		size += tablePrefixLen + len(c.row) + len(c.family) + len(c.qualifier) + 3*2 // NB: escaping may need more; append then grows buf
	}
	buf := make([]byte, 0, size)
	for i, c := range w.prune {
		buf = appendColumnKey(buf, w.ts.id, c.row, c.family, c.qualifier)
		ends[i] = len(buf)
	}
	keys := make([][]byte, len(w.prune))
	start := 0
	for i, end := range ends {
		keys[i] = buf[start:end:end]
		start = end
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return bytes.Compare(keys[a], keys[b]) })
	it := w.txn.NewIterator(badger.IteratorOptions{Prefix: appendTablePrefix(nil, w.ts.id)})
	var doomed [][]byte
	seeked := false
	var last []byte
	for _, i := range order {
		if last != nil && bytes.Equal(keys[i], last) {
			continue // a column written twice (or in two rows' mutations of one bulk) is pruned once
		}
		last = keys[i]
		policy := w.ts.families[w.prune[i].family].policy
		prefix := keys[i]
		// NB: a Seek costs as much as a dozen Nexts, and most columns
		// sit right after the one before (the pending writes of the same
		// row) or hold nothing (a new row's columns, before the next
		// existing key). So the iterator moves forward only: a column
		// whose prefix it has already passed has no stored version, and
		// a few Nexts reach a column close ahead.
		if !seeked || !closeAhead(it, prefix, pruneSteps) {
			it.Seek(prefix)
			seeked = true
		}
		index := 0
		for ; it.ValidForPrefix(prefix); it.Next() {
			k := it.Item().Key()
			_, ts, err := decodeTimestamp(k[len(k)-tsLen:])
			if len(k) != len(prefix)+tsLen || err != nil {
				continue // NB: a longer key is another column whose qualifier extends this one's
			}
			if policy.collects(index, ts, w.now) {
				doomed = append(doomed, it.Item().KeyCopy(nil))
				w.freed = append(w.freed, rowBytes{w.prune[i].row, it.Item().EstimatedSize()})
			}
			index++
		}
	}
	it.Close()
	w.prune = w.prune[:0]
	for _, k := range doomed {
		if err := w.txn.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// pruneSteps is how many Nexts flushPrune takes, at most, to reach the
// next column before it seeks instead.
const pruneSteps = 8

// closeAhead moves it forward to the first key >= prefix if that takes at
// most steps Nexts, and reports whether it got there (or the iterator is
// already there, or past it, or at the end).
func closeAhead(it *badger.Iterator, prefix []byte, steps int) bool {
	for range steps + 1 {
		if !it.Valid() || bytes.Compare(it.Item().Key(), prefix) >= 0 {
			return true
		}
		it.Next()
	}
	return !it.Valid() || bytes.Compare(it.Item().Key(), prefix) >= 0
}

// deletePrefix deletes the cells whose keys start with prefix and whose
// timestamp passes keep-filter del (nil: all).
func (w *writer) deletePrefix(prefix []byte, del func(Timestamp) bool) error {
	var keys [][]byte
	it := w.txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
	for it.Rewind(); it.Valid(); it.Next() {
		k := it.Item().Key()
		if del != nil {
			_, ts, err := decodeTimestamp(k[len(k)-tsLen:])
			if err != nil || !del(ts) {
				continue
			}
		}
		keys = append(keys, it.Item().KeyCopy(nil))
		w.written -= it.Item().EstimatedSize()
	}
	it.Close()
	for _, k := range keys {
		if err := w.txn.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// pruneColumn deletes the versions of a column its family's policy collects.
func (w *writer) pruneColumn(family, qualifier string) error {
	f := w.ts.families[family]
	if f == nil || !f.gc {
		return nil
	}
	index := 0
	return w.deletePrefix(appendColumnKey(nil, w.ts.id, w.row, family, qualifier), func(ts Timestamp) bool {
		i := index
		index++
		return f.policy.collects(i, ts, w.now)
	})
}

// OrderedBulk reports that ApplyBulk commits its rows in the order given,
// so that a crash leaves a prefix of them written, never a later row
// without an earlier one. Cloud Bigtable's MutateRows promises no order;
// callers that need it ask for this method (webtable does).
func (t *Table) OrderedBulk() bool { return true }

// Microseconds reports that the table keeps each timestamp to the
// microsecond, so that cells one microsecond apart are two versions.
// Cloud Bigtable truncates timestamps to milliseconds; callers that need
// more ask for this method (webtable's import does).
func (t *Table) Microseconds() bool { return true }

// ApplyBulk applies muts[i] to rows[i] for every i, each row atomically,
// batching many rows into each Badger transaction for ingest speed. Rows are
// applied in order; a row may appear more than once.
//
// If every row succeeds it returns (nil, nil). If some rows fail (invalid
// input, conditional mutations, which ApplyBulk does not take, or a row too
// large for one transaction) it returns a slice as long as rows with the
// error of each failed row and nil for the others; the other rows are
// written. The second result reports a failure of the whole call (mismatched
// lengths, a missing table, a closed store, a cancelled ctx); rows written
// before it stay written.
func (t *Table) ApplyBulk(ctx context.Context, rows []string, muts []*Mutation) ([]error, error) {
	if len(rows) != len(muts) {
		return nil, fmt.Errorf("bigtable: apply bulk to table %q: %d rows but %d mutations", t.name, len(rows), len(muts))
	}
	ts, err := t.db.enter(ctx, t.name, true)
	if err != nil {
		return nil, err
	}
	defer t.db.opMu.RUnlock()
	errs := make([]error, len(rows))
	failed := false
	valid := make([]int, 0, len(rows))
	for i, row := range rows {
		err := checkRowKey(row)
		if err == nil {
			switch m := muts[i]; {
			case m == nil:
				err = fmt.Errorf("%w: nil mutation", ErrInvalidMutation)
			case m.isCond:
				err = fmt.Errorf("%w: conditional mutations cannot be applied in bulk", ErrInvalidMutation)
			default:
				err = m.checkTop(ts)
			}
		}
		if err != nil {
			errs[i] = fmt.Errorf("%w (row %q)", err, row)
			failed = true
			continue
		}
		valid = append(valid, i)
	}
	b := bulk{db: t.db, ts: ts, rows: rows, muts: muts, errs: errs, now: Now(),
		maxSize: t.db.bdb.MaxBatchSize() / 2, maxCount: t.db.bdb.MaxBatchCount() / 2}
	for len(valid) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := b.chunkLen(valid)
		if err := b.applyChunk(valid[:n]); err != nil {
			return nil, fmt.Errorf("bigtable: apply bulk to table %q: %w", t.name, err)
		}
		valid = valid[n:]
	}
	if failed || b.failed {
		return errs, nil
	}
	return nil, nil
}

// bulk is one ApplyBulk call in progress.
type bulk struct {
	db       *DB
	ts       *tableSchema
	rows     []string
	muts     []*Mutation
	errs     []error
	failed   bool
	now      Timestamp
	maxSize  int64
	maxCount int64
	stripes  []int
	written  []int64 // bytes written per row of the current chunk
}

// maxBulkRows caps the rows of one ApplyBulk transaction, bounding how many
// row locks it holds.
const maxBulkRows = 512

// chunkLen returns how many of idx to put in the next transaction, judged by
// an estimate of Badger's batch size accounting (values in the value log
// count as pointers).
func (b *bulk) chunkLen(idx []int) int {
	var size, count int64
	threshold := b.db.opts.valueThreshold
	for n, i := range idx {
		if n == maxBulkRows {
			return n
		}
		for _, op := range b.muts[i].ops {
			k := int64(len(b.rows[i])*2 + len(op.family) + len(op.qualifier)*2 + 40)
			v := int64(len(op.value))
			if v >= threshold {
				v = 12
			}
			size += k + v
			count++
		}
		if n > 0 && (size > b.maxSize || count > b.maxCount) {
			return n
		}
	}
	return len(idx)
}

// applyChunk writes rows idx in one transaction, sharing their row locks
// with other plain writers (see Apply). A
// row that does not fit splits the chunk; a row that does not fit alone
// fails with ErrTooLarge.
func (b *bulk) applyChunk(idx []int) error {
	b.stripes = b.stripes[:0]
	for _, i := range idx {
		b.stripes = append(b.stripes, rowStripe(b.ts.id, b.rows[i]))
	}
	slices.Sort(b.stripes)
	b.stripes = slices.Compact(b.stripes)
	locked := make([]*sync.RWMutex, 0, len(b.stripes))
	for _, s := range b.stripes {
		mu := &b.db.rowLocks[s]
		mu.RLock()
		locked = append(locked, mu)
	}
	defer func() {
		for _, mu := range locked {
			mu.RUnlock()
		}
	}()
	return b.write(idx)
}

// subtractFreed takes the bytes that pruning deleted off the written
// bytes of their rows (of any one entry for a row that appears twice: the
// figure only finds the row's tablet).
func (b *bulk) subtractFreed(idx []int, freed []rowBytes) {
	if len(freed) == 0 {
		return
	}
	pos := make(map[string]int, len(idx))
	for n, i := range idx {
		pos[b.rows[i]] = n
	}
	for _, f := range freed {
		b.written[pos[f.row]] -= f.n
	}
}

// noteWrites adds the bytes of the rows just committed to their tablets.
func (b *bulk) noteWrites(idx []int) {
	for n, i := range idx {
		b.db.noteWrite(b.ts, b.rows[i], b.written[n])
	}
}

func (b *bulk) write(idx []int) error {
	for len(idx) > 0 {
		tooBig := -1
		err := b.db.update(func(txn *badger.Txn) error {
			tooBig = -1
			b.written = b.written[:0]
			w := writer{txn: txn, ts: b.ts, now: b.now, bulk: true}
			for n, i := range idx {
				w.row = b.rows[i]
				before := w.written
				if err := w.apply(b.muts[i].ops); err != nil {
					if errors.Is(err, badger.ErrTxnTooBig) {
						tooBig = n
					}
					return err
				}
				b.written = append(b.written, w.written-before)
			}
			if err := w.flushPrune(); err != nil {
				if errors.Is(err, badger.ErrTxnTooBig) {
					tooBig = len(idx) / 2 // the chunk's pruning did not fit: halve it
				}
				return err
			}
			b.subtractFreed(idx, w.freed)
			return nil
		})
		switch {
		case err == nil:
			b.noteWrites(idx)
			return nil
		case tooBig == 0:
			i := idx[0]
			b.errs[i] = fmt.Errorf("%w (row %q of table %q)", ErrTooLarge, b.rows[i], b.ts.name)
			b.failed = true
			idx = idx[1:]
		case tooBig > 0:
			if err := b.write(idx[:tooBig]); err != nil {
				return err
			}
			idx = idx[tooBig:]
		default:
			return err
		}
	}
	return nil
}
