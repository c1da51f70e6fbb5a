package bigtable

import (
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

	// pre, when not nil, is an iterator made before the transaction's
	// first write, and delRows the rows a delete touched since (see
	// startPrune and flushPrune).
	pre     *badger.Iterator
	delRows []string
}

type column struct{ family, qualifier string }

// rowBytes is a number of bytes of one row.
type rowBytes struct {
	row string
	n   int64
}

func (w *writer) apply(ops []mutOp) error {
	id := w.ts.id
	if !w.bulk {
		w.prune = w.prune[:0]
	}
	// NB: Badger keeps the key and value slices, and the entries, until
	// the transaction ends: the sets' keys are carved out of one buffer
	// and their entries out of one slice, never reused (two allocations
	// per mutation instead of two per cell).
	var keys []byte
	var ents []badger.Entry
	if sets, size := setsSize(ops, len(w.row)); sets > 0 {
		keys = make([]byte, 0, size)
		ents = make([]badger.Entry, sets)
	}
	for i := range ops {
		op := &ops[i]
		switch op.kind {
		case opSet:
			ts := op.ts
			if ts == ServerTime {
				ts = w.now
			}
			start := len(keys)
			keys = appendCellKey(keys, id, w.row, op.family, op.qualifier, ts)
			key := keys[start:len(keys):len(keys)]
			e := &ents[0]
			ents = ents[1:]
			e.Key, e.Value = key, op.value
			if err := w.txn.SetEntry(e); err != nil {
				return err
			}
			w.written += int64(len(key) + len(op.value))
			if !op.unpruned {
				w.notePrune(op.family, op.qualifier, ts, int64(len(key)+len(op.value)))
			}
		case opDeleteColumn:
			if err := w.deletePrefix(appendColumnKey(nil, id, w.row, op.family, op.qualifier), nil); err != nil {
				return err
			}
			w.noteDelete()
		case opDeleteRange:
			if op.unpruned {
				// DeleteOnlyVersion: one known cell, nothing read.
				key := appendCellKey(nil, id, w.row, op.family, op.qualifier, op.start)
				if err := w.txn.Delete(key); err != nil {
					return err
				}
				w.noteDelete()
				continue
			}
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
			w.noteDelete()
			w.notePrune(op.family, op.qualifier, -1, 0)
		case opDeleteFamily:
			p := appendEscaped(appendRowKey(nil, id, w.row), op.family)
			if err := w.deletePrefix(p, nil); err != nil {
				return err
			}
			w.noteDelete()
		case opDeleteRow:
			if err := w.deletePrefix(appendRowKey(nil, id, w.row), nil); err != nil {
				return err
			}
			w.noteDelete()
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

// setsSize returns how many operations of ops are sets, and about how
// many bytes their cell keys take in a row of rowLen bytes (escaping may
// take more: the buffer then grows).
func setsSize(ops []mutOp, rowLen int) (sets, size int) {
	for i := range ops {
		if op := &ops[i]; op.kind == opSet {
			sets++
			size += tablePrefixLen + rowLen + len(op.family) + len(op.qualifier) + 3*2 + tsLen + 8
		}
	}
	return sets, size
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
// applied in order; a row may appear more than once. Transactions that
// read nothing (sets into families without a GC policy, SetOnlyVersion) are
// built while Badger writes the one before; ApplyBulk returns once every
// one has been written.
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
			b.drain()
			return nil, err
		}
		n := b.chunkLen(valid)
		if err := b.applyChunk(valid[:n], n == len(valid)); err != nil {
			b.drain()
			return nil, fmt.Errorf("bigtable: apply bulk to table %q: %w", t.name, err)
		}
		valid = valid[n:]
	}
	if err := b.drain(); err != nil {
		return nil, fmt.Errorf("bigtable: apply bulk to table %q: %w", t.name, err)
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

	// pipelined commits (see pipeline.go)
	flying *inflight   // the chunk Badger is writing
	next   *badger.Txn // the transaction made for the next blind chunk
	synced uint64      // the last pipelined commit's sequence number, for the sync
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
// with other plain writers (see Apply); last says no chunk follows. A
// row that does not fit splits the chunk; a row that does not fit alone
// fails with ErrTooLarge.
func (b *bulk) applyChunk(idx []int, last bool) error {
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
	if b.blind(idx) {
		if err := b.pipelined(idx, locked, last); !errors.Is(err, errNotPipelined) {
			if err != nil {
				unlock(locked)
			}
			return err
		}
	}
	defer unlock(locked)
	// NB: the synchronous path's transaction must see the chunk in
	// flight (Badger would make it wait for it anyway), and a group sync
	// must not wait for it to end.
	if err := b.drain(); err != nil {
		return err
	}
	return b.write(idx)
}

func unlock(locked []*sync.RWMutex) {
	for _, mu := range locked {
		mu.RUnlock()
	}
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
			defer w.closePrune()
			for _, i := range idx {
				if b.db.opts.pruneAfterWrites || w.startPrune(b.muts[i].ops) {
					break
				}
			}
			if w.pre != nil {
				// NB: room for a note per write, made once (a page's
				// save notes ~50 columns).
				n := 0
				for _, i := range idx {
					n += len(b.muts[i].ops)
				}
				w.prune = make([]rowColumn, 0, n)
			}
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
