package bigtable

import "github.com/dgraph-io/badger/v4"

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

// rowBytes is a number of bytes of one row.
type rowBytes struct {
	row string
	n   int64
}

// apply applies ops to the row: the sets, each into a key of one shared
// buffer, and the deletes in order; then, unless bulk, it prunes the
// columns written.
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
		default:
			if err := w.delete(op); err != nil {
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

// delete applies op, any operation but a set, to the row.
func (w *writer) delete(op *mutOp) error {
	id := w.ts.id
	switch op.kind {
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
			return nil
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
	return nil
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
