package bigtable

import (
	"fmt"
	"sync"
	"time"
)

// Durable group commit (WithSyncWrites(true)).
//
// Badger's own SyncWrites syncs its log once per transaction, in its single
// write goroutine, so concurrent writers queue behind one flush each: a
// few hundred durable writes a second. Instead the store opens Badger
// without SyncWrites and syncs itself, once for a group of commits:
//
//   - a write call commits its transaction (its bytes are then in Badger's
//     log files, in the page cache), then takes the next commit sequence
//     number;
//   - it waits until the synced sequence number reaches its own. If no sync
//     is running, it runs one itself (the leader): it notes the last
//     sequence number taken, syncs the log files, and publishes that number
//     as synced, which releases every commit up to it at once.
//
// Commits that arrive while a sync runs are covered by the next one, so one
// flush serves every writer that committed during the previous flush.
//
// NB: Badger writes its logs through mmap and, without SyncWrites, never
// flushes a memtable log (.mem) or value log (.vlog) it has stopped writing
// to; the data of such a file reaches disk only when the memtable is
// flushed to a table. So the sync step flushes every log file that may hold
// writes since the last sync: each one whose number is at least the highest
// number the last sync saw (see logSyncer).
//
// NB: a failed sync is never retried. On Linux a failed fsync marks the
// dirty pages clean (or drops them), so a second fsync succeeds without
// having written them: a retry would report lost writes durable. Instead
// the first failure is kept: every write waiting on a sync gets it, and
// every later write is refused before it commits, until the store is
// reopened.

// groupSync hands out commit sequence numbers and runs group syncs.
type groupSync struct {
	mu        sync.Mutex
	cond      sync.Cond
	inflight  int           // writes between startWrite and endWrite
	committed uint64        // the last sequence number taken
	synced    uint64        // every commit up to this one is on disk
	syncing   bool          // a leader is syncing, or gathering commits to sync
	lastSync  time.Duration // how long the last sync took
	failed    error         // the first failed sync, wrapped in ErrSyncFailed; sticky
	sync      func() error
	afterSync func(synced uint64) // tests: called after each sync, before waiters are released
}

func newGroupSync(sync func() error, afterSync func(uint64)) *groupSync {
	g := &groupSync{sync: sync, afterSync: afterSync}
	g.cond.L = &g.mu
	return g
}

// start notes a write that is about to commit, or refuses it after a
// failed sync.
func (g *groupSync) start() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.failed != nil {
		return g.failed
	}
	g.inflight++
	return nil
}

// err returns the error of the first failed sync, or nil.
func (g *groupSync) err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.failed
}

// end notes that a write started with start has committed (or failed,
// when !ok); a committed write gets its sequence number.
func (g *groupSync) end(ok bool) (seq uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inflight--
	if g.inflight == 0 && g.syncing {
		g.cond.Broadcast() // a leader may be gathering
	}
	if !ok {
		return 0
	}
	g.committed++
	return g.committed
}

// wait returns once commit seq is on disk, syncing if no one else is.
//
// NB: a leader first gathers: while other writes are committing, it waits
// for them (at most as long as the last sync took), so that writers that
// the last sync released, and that are already committing their next
// write, join this sync instead of waiting a whole sync for the next. It
// is what lets N writers share one flush instead of splitting into two
// groups that alternate.
func (g *groupSync) wait(seq uint64) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.synced < seq {
		if g.failed != nil {
			return g.failed
		}
		if g.syncing {
			g.cond.Wait()
			continue
		}
		g.syncing = true
		if g.inflight > 0 && g.lastSync > 0 {
			expired := false
			t := time.AfterFunc(g.lastSync, func() {
				g.mu.Lock()
				expired = true
				g.cond.Broadcast()
				g.mu.Unlock()
			})
			for g.inflight > 0 && !expired {
				g.cond.Wait()
			}
			t.Stop()
		}
		target := g.committed
		g.mu.Unlock()
		start := time.Now()
		err := g.sync()
		took := time.Since(start)
		g.mu.Lock()
		g.syncing = false
		g.lastSync = took
		if err != nil {
			g.failed = fmt.Errorf("%w: %w", ErrSyncFailed, err)
			g.cond.Broadcast() // every waiter gets the error
			return g.failed
		}
		if target > g.synced {
			if g.afterSync != nil {
				g.afterSync(target)
			}
			g.synced = target
		}
		g.cond.Broadcast()
	}
	return nil
}

// startWrite is called by every write before it commits a Badger
// transaction or batch, and endWrite after, with the commit's error: with
// WithSyncWrites(true), endWrite of a successful commit returns once the
// commit is on disk. After a failed sync startWrite refuses the write with
// an error wrapping ErrSyncFailed, and the caller must not commit (nor call
// endWrite).
//
// Between the two the write holds db.writeMu for reading, so that GC can
// keep writes out of Badger while it rewrites a value log file.
func (db *DB) startWrite() error {
	db.writeMu.RLock()
	if db.group != nil {
		if err := db.group.start(); err != nil {
			db.writeMu.RUnlock()
			return err
		}
	}
	return nil
}

// endWrite: see startWrite. It returns err, or the error of the sync.
func (db *DB) endWrite(err error) error {
	// NB: the commit has completed: waiting for its sync needs no lock.
	db.writeMu.RUnlock()
	if db.group == nil {
		return err
	}
	seq := db.group.end(err == nil)
	if err != nil {
		return err
	}
	return db.endSynced(seq)
}

// endSynced returns once the commit numbered seq is on disk (see endWrite).
func (db *DB) endSynced(seq uint64) error {
	if err := db.group.wait(seq); err != nil {
		return err
	}
	if db.opts.afterDurable != nil {
		db.opts.afterDurable(seq)
	}
	return nil
}
