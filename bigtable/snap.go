package bigtable

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Snapshot reuse.
//
// A read needs a Badger read transaction and an iterator (a row's columns
// are not known in advance, so even ReadRow seeks, see snap.iterator). Making the pair costs
// about as much as the seek and the value read together: NewIterator builds
// a merge iterator over every memtable and level. So reads keep finished
// pairs for reuse, while no write has committed since they were made,
// which makes a reused snapshot the same as a fresh one: every write call
// bumps db.epoch after it commits (db.update and the other write paths),
// and a pair made at an older epoch is closed, not reused.
//
// NB: an open iterator pins Badger's memtables, tables and value-log files
// (a value-log GC defers deleting files until no iterator is open) and an
// open read transaction holds back the oracle's cleanup of committed
// transactions. So a janitor goroutine closes idle pairs older than
// snapMaxAge; a pair in constant use lives at most about twice that.
//
// One pair sits in an atomic slot, the fast path of a lone reader (one
// swap to take it, one compare-and-swap to give it back); concurrent
// readers use a short list under a mutex.

const (
	snapMaxAge  = 250 * time.Millisecond
	snapMaxFree = 8
)

// snap is a read transaction and a key-only iterator on it over the cells
// of one table.
type snap struct {
	txn   *badger.Txn
	epoch uint64
	born  time.Time

	it      *badger.Iterator // nil until iterator makes it
	itTable uint32           // the table it is restricted to
	// NB: a point read ends with it on the first key at or after the row
	// (the first key of the next row); when the next read is of a row at
	// or after that bound (point reads in key order), it is already where
	// a Seek would put it. at is that bound; atOK says whether it holds.
	at   []byte
	atOK bool
}

// iterator returns the snapshot's iterator over the cells of table.
//
// NB: the iterator is restricted to the table's key prefix, so Badger
// leaves out of it every table file that holds none of the table's cells
// (such as the small ones holding only metadata that each Close flushes):
// a Seek costs one seek per level file that may hold the row, not one per
// file.
func (s *snap) iterator(table uint32) *badger.Iterator {
	if s.it != nil && s.itTable == table {
		return s.it
	}
	if s.it != nil {
		s.it.Close()
	}
	s.it = s.txn.NewIterator(badger.IteratorOptions{Prefix: appendTablePrefix(nil, table)})
	s.itTable, s.atOK = table, false
	return s.it
}

func (s *snap) close() {
	if s.it != nil {
		s.it.Close()
	}
	s.txn.Discard()
}

// snapCache holds a DB's idle snapshots.
type snapCache struct {
	hot    atomic.Pointer[snap]
	mu     sync.Mutex
	free   []*snap
	closed bool
}

// getSnap returns a snapshot that sees every write committed before the
// call; give it back with putSnap. The caller holds db.opMu for reading.
func (db *DB) getSnap() *snap {
	epoch := db.epoch.Load()
	c := &db.snaps
	if s := c.hot.Swap(nil); s != nil {
		if s.epoch == epoch {
			return s
		}
		s.close()
	}
	c.mu.Lock()
	for len(c.free) > 0 {
		s := c.free[len(c.free)-1]
		c.free = c.free[:len(c.free)-1]
		if s.epoch == epoch {
			c.mu.Unlock()
			return s
		}
		s.close()
	}
	c.mu.Unlock()
	// NB: the epoch is read before the transaction starts, so a write that
	// commits in between makes this snapshot look older than it is, never
	// newer.
	txn := db.bdb.NewTransaction(false)
	return &snap{txn: txn, epoch: epoch, born: time.Now()}
}

// putSnap gives back a snapshot from getSnap, keeping it for reuse if it is
// still current. The caller holds db.opMu for reading, so Close is not
// running.
func (db *DB) putSnap(s *snap) {
	if s.epoch != db.epoch.Load() {
		s.close()
		return
	}
	c := &db.snaps
	if c.hot.CompareAndSwap(nil, s) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.free) >= snapMaxFree {
		s.close()
		return
	}
	c.free = append(c.free, s)
}

// snapJanitor closes idle snapshots older than snapMaxAge, until Close.
func (db *DB) snapJanitor(stop <-chan struct{}) {
	defer db.bgDone.Done()
	t := time.NewTicker(snapMaxAge)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			db.expireSnaps()
		}
	}
}

func (db *DB) expireSnaps() {
	c := &db.snaps
	if s := c.hot.Swap(nil); s != nil {
		if time.Since(s.born) >= snapMaxAge || !c.hot.CompareAndSwap(nil, s) {
			s.close()
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	keep := c.free[:0]
	for _, s := range c.free {
		if time.Since(s.born) >= snapMaxAge {
			s.close()
		} else {
			keep = append(keep, s)
		}
	}
	clear(c.free[len(keep):])
	c.free = keep
}

// closeSnaps closes every idle snapshot; Close calls it after stopping the
// janitor and before closing Badger, when no read is in flight.
func (db *DB) closeSnaps() {
	c := &db.snaps
	if s := c.hot.Swap(nil); s != nil {
		s.close()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	for _, s := range c.free {
		s.close()
	}
	c.free = nil
}

// wrote marks that a write has committed: snapshots taken before it must
// not be reused.
func (db *DB) wrote() { db.epoch.Add(1) }
