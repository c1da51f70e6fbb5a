package bigtable

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/dgraph-io/badger/v4"
)

// OrderedBulk reports that ApplyBulk commits its rows in the order given,
// so that a crash leaves a prefix of them written, never a later row
// without an earlier one. Cloud Bigtable's MutateRows promises no order;
// callers that need it ask for this method (webtable does).
func (t *Table) OrderedBulk() bool { return true }

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
	locked, err := b.lockStripes()
	if err != nil {
		return err
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

// lockStripes takes the row locks of b.stripes for reading, in order.
//
// NB: the chunk in flight holds its rows' locks, which share stripes with
// this chunk's, and db.writeMu, until it lands. Waiting for a lock while
// holding those would deadlock: a writer that holds a row alone (a
// conditional mutation, a read-modify-write) may be waiting for one of
// them, and Go's RWMutex makes a reader wait behind a waiting writer, also
// a reader that holds the lock already; and a writer that holds a row may
// wait for db.writeMu behind GC. So a lock not free at once lands the
// chunk in flight first.
func (b *bulk) lockStripes() ([]*sync.RWMutex, error) {
	locked := make([]*sync.RWMutex, 0, len(b.stripes))
	for _, s := range b.stripes {
		mu := &b.db.rowLocks[s]
		if !mu.TryRLock() {
			if err := b.land(); err != nil {
				unlock(locked)
				return nil, err
			}
			mu.RLock()
		}
		locked = append(locked, mu)
	}
	return locked, nil
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
