package bigtable

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"
)

// Pipelined bulk commits.
//
// ApplyBulk writes its rows in transactions of a few hundred rows. Most of
// a commit's work is Badger's: its write goroutine copies the values into
// the value log and the keys into the memtable. Waiting for each commit
// before building the next transaction leaves that work and ApplyBulk's
// own (keys, mutations, locks) one after the other on one core. So a chunk
// that only sets cells of families without a GC policy, or cells that skip
// pruning (a blind write: it reads nothing), is sent with CommitWith, and ApplyBulk builds the next
// chunk while Badger writes it, as Badger's own WriteBatch does.
//
// NB: Badger gives a new transaction a read timestamp, and makes it wait
// until every commit before that timestamp is written. So the transaction
// of the next chunk is made before this chunk is sent: it would otherwise
// wait for the very commit it is meant to overlap. A blind transaction
// reads nothing, so its older read timestamp changes nothing: it cannot
// conflict, and it has nothing to prune.
//
// Contract:
//   - At most one chunk is in flight; its rows' locks are held until its
//     commit has completed.
//   - Commits go to Badger in the order of the rows, so a crash leaves a
//     prefix of them written (OrderedBulk).
//   - With WithSyncWrites(true), the call waits for one sync after its
//     last pipelined commit instead of one per chunk.
//   - ApplyBulk returns only after every commit has completed; a failed
//     commit fails the call, as a failed synchronous one does.

// inflight is a chunk whose commit Badger is writing.
type inflight struct {
	done    chan error
	idx     []int
	written []int64
	locked  []*sync.RWMutex
}

// blind reports whether the rows idx only set cells of families without a
// GC policy, or cells that skip pruning (SetOnlyVersion), or delete cells
// unread (DeleteOnlyVersion), so that their transaction needs to read
// nothing.
func (b *bulk) blind(idx []int) bool {
	if b.db.opts.pruneAfterWrites {
		return false
	}
	for _, i := range idx {
		for _, op := range b.muts[i].ops {
			if op.kind == opDeleteRange && op.unpruned {
				continue // DeleteOnlyVersion reads nothing
			}
			if op.kind != opSet {
				return false
			}
			if f := b.ts.families[op.family]; f == nil || (f.gc && !op.unpruned) {
				return false
			}
		}
	}
	return true
}

// errNotPipelined sends a chunk down the synchronous path.
var errNotPipelined = errors.New("bigtable: chunk not pipelined (internal)")

// pipelined writes the blind rows idx in a transaction that it sends to
// Badger without waiting for its commit, having made the next chunk's
// transaction unless this chunk is the last; it takes over locked, the
// rows' locks. errNotPipelined means the rows do not fit one transaction:
// nothing was sent, and the caller still holds the locks.
func (b *bulk) pipelined(idx []int, locked []*sync.RWMutex, last bool) error {
	txn := b.next
	b.next = nil
	if txn == nil {
		txn = b.db.bdb.NewTransaction(true)
	}
	w := writer{txn: txn, ts: b.ts, now: b.now, bulk: true}
	written := make([]int64, 0, len(idx))
	for _, i := range idx {
		w.row = b.rows[i]
		before := w.written
		if err := w.apply(b.muts[i].ops); err != nil {
			txn.Discard()
			if errors.Is(err, badger.ErrTxnTooBig) {
				return errNotPipelined
			}
			return err
		}
		written = append(written, w.written-before)
	}
	// The previous chunk is written by now, or nearly: wait for it, then
	// make the next chunk's transaction before this one is sent (see NB).
	if err := b.land(); err != nil {
		txn.Discard()
		return err
	}
	if err := b.db.startWrite(); err != nil {
		txn.Discard()
		return err
	}
	if !last {
		b.next = b.db.bdb.NewTransaction(true)
	}
	f := &inflight{done: make(chan error, 1), idx: idx, written: written, locked: locked}
	txn.CommitWith(func(err error) { f.done <- err })
	txn.Discard() // NB: CommitWith leaves it open when its precheck fails
	b.flying = f
	pipelinedChunks.Add(1)
	return nil
}

// pipelinedChunks counts the chunks sent by pipelined, for tests.
var pipelinedChunks atomic.Int64

// land waits for the chunk in flight, if any, and settles it: its locks
// are released, its rows counted in their tablets, and, with synced
// writes, its commit numbered for the sync that drain waits for.
func (b *bulk) land() error {
	f := b.flying
	if f == nil {
		return nil
	}
	b.flying = nil
	err := <-f.done
	b.db.writeMu.RUnlock() // taken by startWrite in pipelined
	for _, mu := range f.locked {
		mu.RUnlock()
	}
	if b.db.group != nil {
		if seq := b.db.group.end(err == nil); seq > 0 {
			b.synced = seq
		}
	}
	b.db.wrote()
	if err != nil {
		return err
	}
	for n, i := range f.idx {
		b.db.noteWrite(b.ts, b.rows[i], f.written[n])
	}
	return nil
}

// drain lands the chunk in flight, drops the transaction made for a next
// chunk, and waits for the sync of the pipelined commits. Every ApplyBulk
// ends with it, also on an error.
func (b *bulk) drain() error {
	err := b.land()
	if b.next != nil {
		b.next.Discard()
		b.next = nil
	}
	if err == nil && b.synced > 0 {
		err = b.db.endSynced(b.synced)
		b.synced = 0
	}
	return err
}
