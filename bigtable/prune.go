package bigtable

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/dgraph-io/badger/v4"
)

// Pruning on write.
//
// Every write to a column of a family with a GC policy deletes, in the same
// transaction, the versions the policy collects, so that old versions
// never pile up between GC passes. The writer notes the columns it writes
// (notePrune) and prunes them all at the end of its transaction
// (flushPrune), with one iterator walking the noted columns in key order.
//
// NB: a Badger iterator made in a read-write transaction copies and sorts
// the transaction's pending writes, and merges them into every Seek and
// Next. A crawl's page writes some 50 cells in one transaction, so that
// cost more than the pruning itself. So the writer makes its iterator
// before the first write (startPrune), when there is nothing pending: it
// sees the versions committed before the transaction, and the writer knows
// the versions it wrote itself (the notes carry their timestamps). Those
// two together are the column's versions, unless a delete in the same
// transaction touched the row; the columns of such rows are pruned as
// before, with an iterator made after the writes.

// rowColumn is a column of one row noted for pruning, with the version the
// transaction wrote to it.
type rowColumn struct {
	row, family, qualifier string
	// ts is the timestamp of the version written, or -1 when the note
	// comes from a delete (DeleteTimestampRange), not a write.
	ts Timestamp
	// size is the bytes of the version written (key and value).
	size int64
}

// startPrune makes the iterator flushPrune reads committed versions with,
// when some op of ops writes a column of a family with a GC policy, and
// reports whether it did (or had). Call it before the transaction's first
// write, and closePrune when done.
func (w *writer) startPrune(ops []mutOp) bool {
	if w.pre != nil {
		return true
	}
	for i := range ops {
		if op := &ops[i]; op.kind == opSet && !op.unpruned {
			if f := w.ts.families[op.family]; f != nil && f.gc {
				w.pre = w.txn.NewIterator(badger.IteratorOptions{Prefix: appendTablePrefix(nil, w.ts.id)})
				return true
			}
		}
	}
	return false
}

// closePrune closes the iterator of startPrune, if any (Badger refuses to
// discard a transaction with an open iterator).
func (w *writer) closePrune() {
	if w.pre != nil {
		w.pre.Close()
		w.pre = nil
	}
}

// noteDelete records that the current row lost cells in this transaction:
// the versions committed before it are no longer its versions.
func (w *writer) noteDelete() {
	if w.pre != nil {
		w.delRows = append(w.delRows, w.row)
	}
}

// notePrune notes a column of the current row for flushPrune, with the
// version just written (ts -1: none).
func (w *writer) notePrune(family, qualifier string, ts Timestamp, size int64) {
	if f := w.ts.families[family]; f == nil || !f.gc {
		return
	}
	// NB: no search for duplicates here (quadratic in a big bulk write):
	// flushPrune sorts the columns and groups repeats.
	w.prune = append(w.prune, rowColumn{w.row, family, qualifier, ts, size})
}

// flushPrune deletes the versions that the noted columns' policies
// collect, and closes the iterator of startPrune.
func (w *writer) flushPrune() error {
	defer w.closePrune()
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
	// The notes in key order, the versions of one column newest first.
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := bytes.Compare(keys[a], keys[b]); c != 0 {
			return c
		}
		return cmp.Compare(w.prune[b].ts, w.prune[a].ts)
	})
	slices.Sort(w.delRows)
	var doomed [][]byte
	var late []int // first notes of the columns pruned after the writes
	seeked := false
	for g := 0; g < len(order); {
		i := order[g]
		end := g + 1
		for end < len(order) && bytes.Equal(keys[order[end]], keys[i]) {
			end++ // a column written twice (or in two rows' mutations of one bulk) is pruned once
		}
		group := order[g:end]
		g = end
		if _, deleted := slices.BinarySearch(w.delRows, w.prune[i].row); w.pre == nil || deleted {
			late = append(late, i)
			continue
		}
		if !seeked || !closeAhead(w.pre, keys[i], pruneSteps) {
			w.pre.Seek(keys[i])
			seeked = true
		}
		doomed = w.pruneMerged(doomed, keys[i], group)
	}
	w.closePrune()
	if len(late) > 0 {
		doomed = w.pruneLate(doomed, keys, late)
	}
	w.prune = w.prune[:0]
	w.delRows = w.delRows[:0]
	for _, k := range doomed {
		if err := w.txn.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// pruneMerged judges the versions of one column: those committed before
// the transaction, which w.pre (at or before the column) walks, and those
// the notes of group (newest first) wrote. It appends the keys of the
// versions the policy collects to doomed.
func (w *writer) pruneMerged(doomed [][]byte, prefix []byte, group []int) [][]byte {
	first := &w.prune[group[0]]
	policy := w.ts.families[first.family].policy
	index := 0
	collects := func(ts Timestamp) bool {
		c := policy.collects(index, ts, w.now)
		index++
		return c
	}
	// pending returns the key of a version this transaction wrote, doomed.
	pending := func(n *rowColumn) []byte {
		w.freed = append(w.freed, rowBytes{n.row, n.size})
		return appendTimestamp(append(make([]byte, 0, len(prefix)+tsLen), prefix...), n.ts)
	}
	p := 0
	// next skips notes without a version and repeats of one timestamp
	// (the last write of a timestamp replaced the others).
	next := func() *rowColumn {
		for ; p < len(group); p++ {
			n := &w.prune[group[p]]
			if n.ts >= 0 && (p == 0 || w.prune[group[p-1]].ts != n.ts) {
				return n
			}
		}
		return nil
	}
	it := w.pre
	for ; it.ValidForPrefix(prefix); it.Next() {
		k := it.Item().Key()
		if len(k) != len(prefix)+tsLen {
			continue // NB: a longer key is another column whose qualifier extends this one's
		}
		_, ts, err := decodeTimestamp(k[len(prefix):])
		if err != nil {
			continue
		}
		n := next()
		for ; n != nil && n.ts > ts; n = next() {
			if collects(n.ts) {
				doomed = append(doomed, pending(n))
			}
			p++
		}
		if n != nil && n.ts == ts {
			// The transaction rewrote this version: one version, its own.
			if collects(ts) {
				doomed = append(doomed, pending(n))
			}
			p++
			continue
		}
		if collects(ts) {
			doomed = append(doomed, it.Item().KeyCopy(nil))
			w.freed = append(w.freed, rowBytes{first.row, it.Item().EstimatedSize()})
		}
	}
	for n := next(); n != nil; n = next() {
		if collects(n.ts) {
			doomed = append(doomed, pending(n))
		}
		p++
	}
	return doomed
}

// pruneLate judges the columns whose first notes are late (in key order)
// with an iterator made now, which sees the transaction's writes and
// deletes, and appends the keys of the versions their policies collect to
// doomed.
func (w *writer) pruneLate(doomed [][]byte, keys [][]byte, late []int) [][]byte {
	it := w.txn.NewIterator(badger.IteratorOptions{Prefix: appendTablePrefix(nil, w.ts.id)})
	defer it.Close()
	seeked := false
	for _, i := range late {
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
	return doomed
}

// pruneSteps is how many Nexts flushPrune takes, at most, to reach the
// next column before it seeks instead.
const pruneSteps = 8

// closeAhead moves it forward to the first key >= prefix if that takes at
// most steps Nexts, and reports whether it got there (or the iterator is
// already there, or past it, or at the end).
func closeAhead(it *badger.Iterator, prefix []byte, steps int) bool {
	for i := 0; ; i++ {
		if !it.Valid() || bytes.Compare(it.Item().Key(), prefix) >= 0 {
			return true
		}
		if i == steps {
			return false
		}
		it.Next()
	}
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
