package bigtable

import (
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Snapshot reuse.
//
// A read needs a Badger read transaction and an iterator (a row's columns
// are not known in advance, so even ReadRow seeks). Making the pair costs
// about as much as the seek and the value read together: NewIterator builds
// a merge iterator over every memtable and level. So reads keep finished
// pairs in a small free list and reuse one when no write has committed
// since it was made, which makes a reused snapshot the same as a fresh one:
// every write call bumps db.epoch after it commits (db.update and the other
// write paths), and a pair made at an older epoch is closed, not reused.
//
// NB: an open iterator pins Badger's memtables, tables and value-log files
// (a value-log GC defers deleting files until no iterator is open) and an
// open read transaction holds back the oracle's cleanup of committed
// transactions. So a pair is reused for at most snapMaxAge, and a timer
// closes idle pairs after that.

const (
	snapMaxAge  = 250 * time.Millisecond
	snapMaxFree = 8
)

// snap is a read transaction and an unbounded key-only iterator on it.
type snap struct {
	txn   *badger.Txn
	it    *badger.Iterator
	epoch uint64
	born  time.Time
}

func (s *snap) close() {
	s.it.Close()
	s.txn.Discard()
}

// snapCache is the free list of a DB's snapshots.
type snapCache struct {
	mu     sync.Mutex
	free   []*snap
	timer  *time.Timer
	closed bool
}

// getSnap returns a snapshot that sees every write committed before the
// call; give it back with putSnap. The caller holds db.opMu for reading.
func (db *DB) getSnap() *snap {
	epoch := db.epoch.Load()
	c := &db.snaps
	c.mu.Lock()
	for len(c.free) > 0 {
		s := c.free[len(c.free)-1]
		c.free = c.free[:len(c.free)-1]
		if s.epoch == epoch && time.Since(s.born) < snapMaxAge {
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
	return &snap{txn: txn, it: txn.NewIterator(badger.IteratorOptions{}), epoch: epoch, born: time.Now()}
}

// putSnap gives back a snapshot from getSnap, keeping it for reuse if it is
// still current.
func (db *DB) putSnap(s *snap) {
	c := &db.snaps
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || len(c.free) >= snapMaxFree || s.epoch != db.epoch.Load() || time.Since(s.born) >= snapMaxAge {
		s.close()
		return
	}
	c.free = append(c.free, s)
	if c.timer == nil {
		c.timer = time.AfterFunc(snapMaxAge, db.expireSnaps)
	}
}

// expireSnaps closes the idle snapshots that are too old to reuse, and runs
// again while any are left.
func (db *DB) expireSnaps() {
	c := &db.snaps
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timer = nil
	if c.closed {
		return
	}
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
	if len(c.free) > 0 {
		c.timer = time.AfterFunc(snapMaxAge, db.expireSnaps)
	}
}

// closeSnaps closes every idle snapshot for good; Close calls it before
// closing Badger, when no read is in flight.
func (db *DB) closeSnaps() {
	c := &db.snaps
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	for _, s := range c.free {
		s.close()
	}
	c.free = nil
}

// wrote marks that a write has committed: snapshots taken before it must
// not be reused.
func (db *DB) wrote() { db.epoch.Add(1) }
