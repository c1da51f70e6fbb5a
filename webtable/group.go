package webtable

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Group commit of saves.
//
// Every page a crawl saves is one bulk write of some 25 rows, and the
// crawl's workers save at the same time. Each bulk write is at least one
// transaction, with its fixed costs (the transaction, the iterator that
// prunes old versions, the commit handed to Badger's writer). So at most
// maxGroupWriters saves write at once; the saves that arrive meanwhile
// wait, and the next writer writes all of them in one bulk call, in
// arrival order (group commit, as databases share a log flush between
// transactions).
//
// A save's frontier entry is deleted in the next group's bulk call, at its
// front, once the save's own rows are committed (or at Close). NB: this
// was first done because deleting a row read its cells with an iterator,
// which among a group's hundreds of pending writes copied and sorted them
// all, and a bulk call of its own costs a commit's wait; an entry is now
// one known cell deleted unread (see frontier.go), and the carry stays as
// the one place that orders the delete after its page's mark. A crash
// before then leaves done pages with their entries, which FrontierNext
// drops as stale.
//
// Nothing a caller relies on changes: a Save returns only after its rows
// are committed, with its own rows' errors; on the embedded store a bulk
// call commits its rows in order, so a crash leaves each page either
// complete, or without its done mark (fetched again), exactly as when
// pages are written one call each. Two saves in one group that queue the
// same new URL both queue it, as two concurrent saves do (the frontier
// drops the second entry once the URL is fetched).

// saveGroup gathers the bulk writes of concurrent saves.
type saveGroup struct {
	mu      sync.Mutex
	pending []*groupWrite
	writers int   // groups being written (at most maxGroupWriters)
	carry   batch // frontier entries of written saves, for the next group
}

// groupWrite is one save's rows, waiting to be written.
type groupWrite struct {
	b    *batch
	drop *batch // the frontier entries deleted once b is written
	ctx  context.Context
	err  error
	// lead is closed when the write is done (err set), or receives true
	// when this caller is to write the next group.
	lead chan bool
}

// maxGroupRows bounds the rows of one group write: a larger group gains
// nothing more and makes its callers wait longer.
const maxGroupRows = 2048

// maxGroupWriters is how many groups are written at once. NB: with one, a
// save waits for the group before its own and then for its own, and the
// crawl's saves queue behind one writer; two keep the CPU busy while a
// group waits for its commit, and still group the saves of a busy crawl.
var maxGroupWriters = 2

// applyGrouped writes b as one bulk call, or as part of one with the
// batches of other saves that arrive meanwhile, and returns the error of
// its own rows. Once b is written without error, drop goes to the front of
// the next group's bulk call (or is written by Close).
func (w *WebTable) applyGrouped(ctx context.Context, b, drop *batch) error {
	if len(b.rows)+len(drop.rows) == 0 {
		return nil
	}
	me := &groupWrite{b: b, drop: drop, ctx: ctx, lead: make(chan bool, 1)}
	g := &w.group
	g.mu.Lock()
	if g.writers >= maxGroupWriters {
		g.pending = append(g.pending, me)
		g.mu.Unlock()
		if lead := <-me.lead; !lead {
			return me.err // written in another caller's group
		}
		g.mu.Lock() // handed a writer's turn
	} else {
		g.writers++
	}
	group := g.take(me)
	carry := g.carry
	g.carry = batch{}
	g.mu.Unlock()
	drops := w.writeGroup(group, &carry)
	g.mu.Lock()
	g.carry.rows = append(g.carry.rows, drops.rows...)
	g.carry.muts = append(g.carry.muts, drops.muts...)
	// NB: the next group is written by one of its own callers, not by
	// this one, whose save is over.
	if len(g.pending) > 0 {
		next := g.pending[0]
		g.pending = g.pending[1:]
		next.lead <- true
	} else {
		g.writers--
	}
	g.mu.Unlock()
	return me.err
}

func (gw *groupWrite) rows() int { return len(gw.b.rows) + len(gw.drop.rows) }

// take returns the next group: first, then the writes waiting, in arrival
// order, up to maxGroupRows rows; it removes them from pending.
func (g *saveGroup) take(first *groupWrite) []*groupWrite {
	group := []*groupWrite{first}
	n, rows := 0, first.rows()
	for n < len(g.pending) && rows+g.pending[n].rows() <= maxGroupRows {
		rows += g.pending[n].rows()
		n++
	}
	group = append(group, g.pending[:n]...)
	g.pending = g.pending[n:]
	return group
}

// writeGroup writes carry (the frontier entries of saves written before)
// and the batches of group in one bulk call, in order, hands each write
// its rows' errors, and returns the drops of the writes written without
// error. Writes whose context ended before the call are left out with
// their context's error. NB: the call takes the first live write's
// context; the crawler's saves share theirs. An error of a carried delete
// only leaves an entry FrontierNext drops later.
func (w *WebTable) writeGroup(group []*groupWrite, carry *batch) (drops batch) {
	defer func() {
		for _, gw := range group {
			close(gw.lead)
		}
	}()
	var live []*groupWrite
	for _, gw := range group {
		if err := gw.ctx.Err(); err != nil {
			gw.err = err
			continue
		}
		live = append(live, gw)
	}
	if len(live) == 0 {
		return *carry // NB: kept for the next group
	}
	all := batch{rows: slices.Clip(carry.rows), muts: slices.Clip(carry.muts)}
	for _, gw := range live {
		all.rows = append(all.rows, gw.b.rows...)
		all.muts = append(all.muts, gw.b.muts...)
	}
	errs, err := w.tbl.ApplyBulk(live[0].ctx, all.rows, all.muts)
	start := len(carry.rows)
	for _, gw := range live {
		n := len(gw.b.rows)
		e := err
		if e == nil && errs != nil {
			e = errors.Join(errs[start : start+n]...)
		}
		if e != nil {
			gw.err = fmt.Errorf("bulk write of %d rows: %w", n, e)
		} else {
			drops.rows = append(drops.rows, gw.drop.rows...)
			drops.muts = append(drops.muts, gw.drop.muts...)
		}
		start += n
	}
	return drops
}

// FlushDeletes writes now the deletes of the frontier entries of saved
// pages, which Save leaves for the next group's bulk write (see Save);
// Close does it too, with no deadline. A caller whose store may hang calls
// it first with a context it can cancel: once it returns, error or not,
// nothing is left for Close to write. A delete that is lost leaves an
// entry of a page already done, which the frontier drops as stale.
func (w *WebTable) FlushDeletes(ctx context.Context) error { return w.flushCarry(ctx) }

// flushCarry writes the frontier deletes waiting for a group (Close).
func (w *WebTable) flushCarry(ctx context.Context) error {
	g := &w.group
	g.mu.Lock()
	carry := g.carry
	g.carry = batch{}
	g.mu.Unlock()
	if err := w.applyBatch(ctx, &carry); err != nil {
		return fmt.Errorf("webtable: deleting the frontier entries of saved pages: %w", err)
	}
	return nil
}
