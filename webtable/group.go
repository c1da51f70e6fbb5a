package webtable

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Group commit of saves.
//
// Every page a crawl saves is one bulk write of some 25 rows, and the
// crawl's workers save at the same time. Each bulk write is at least one
// transaction, with its fixed costs (the transaction, the iterator that
// prunes old versions, the commit handed to Badger's writer). So the
// saves that arrive while one is being written wait, and the next writer
// writes all of them in one bulk call, in arrival order (group commit, as
// databases share a log flush between transactions).
//
// A save's frontier entry is deleted after the group's rows are written,
// in a second bulk call with the other saves' entries. NB: deleting a row
// reads its cells with an iterator, and an iterator of a Badger transaction
// copies and sorts the transaction's pending writes: after a group's
// hundreds of writes, that cost more than the rest of the delete. A crash
// between the two calls leaves done pages with their entries, which
// FrontierNext drops as stale.
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
	leading bool // a caller is writing a group
}

// groupWrite is one save's rows, waiting to be written.
type groupWrite struct {
	b    *batch
	drop *batch // the frontier entries deleted after b is written
	ctx  context.Context
	err  error
	// lead is closed when the write is done (err set), or receives true
	// when this caller is to write the next group.
	lead chan bool
}

// maxGroupRows bounds the rows of one group write: a larger group gains
// nothing more and makes its callers wait longer.
const maxGroupRows = 2048

// applyGrouped writes b as one bulk call, or as part of one with the
// batches of other saves that arrive meanwhile, then (once b is written
// without error) drop, and returns the error of their own rows.
func (w *WebTable) applyGrouped(ctx context.Context, b, drop *batch) error {
	if len(b.rows)+len(drop.rows) == 0 {
		return nil
	}
	me := &groupWrite{b: b, drop: drop, ctx: ctx, lead: make(chan bool, 1)}
	g := &w.group
	g.mu.Lock()
	g.pending = append(g.pending, me)
	if g.leading {
		g.mu.Unlock()
		if lead := <-me.lead; !lead {
			return me.err
		}
		g.mu.Lock()
	}
	g.leading = true
	for !me.done() {
		group := g.take()
		g.mu.Unlock()
		w.writeGroup(group)
		g.mu.Lock()
	}
	// NB: the next group is written by one of its own callers, not by
	// this one, whose save is over.
	if len(g.pending) > 0 {
		g.pending[0].lead <- true
	} else {
		g.leading = false
	}
	g.mu.Unlock()
	return me.err
}

// done reports whether gw was written (its lead channel closed).
func (gw *groupWrite) done() bool {
	select {
	case _, ok := <-gw.lead:
		return !ok
	default:
		return false
	}
}

func (gw *groupWrite) rows() int { return len(gw.b.rows) + len(gw.drop.rows) }

// take removes from pending the writes of the next group, in arrival
// order, up to maxGroupRows rows (at least one write).
func (g *saveGroup) take() []*groupWrite {
	n, rows := 0, 0
	for n < len(g.pending) && (n == 0 || rows+g.pending[n].rows() <= maxGroupRows) {
		rows += g.pending[n].rows()
		n++
	}
	group := g.pending[:n:n]
	g.pending = g.pending[n:]
	return group
}

// writeGroup writes the batches of group in one bulk call, in order, then
// the drops of those written without error in another, and hands each
// write its rows' errors. Writes whose context ended before the first call
// are left out with their context's error. NB: the calls take the first
// live write's context; the crawler's saves share theirs.
func (w *WebTable) writeGroup(group []*groupWrite) {
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
		return
	}
	ctx := live[0].ctx
	w.bulkEach(ctx, live, func(gw *groupWrite) *batch { return gw.b })
	var ok []*groupWrite
	for _, gw := range live {
		if gw.err == nil {
			ok = append(ok, gw)
		}
	}
	w.bulkEach(ctx, ok, func(gw *groupWrite) *batch { return gw.drop })
}

// bulkEach writes the batch of each write (part picks it) in one bulk
// call, in order, and sets each write's err from its own rows.
func (w *WebTable) bulkEach(ctx context.Context, writes []*groupWrite, part func(*groupWrite) *batch) {
	var all batch
	for _, gw := range writes {
		b := part(gw)
		all.rows = append(all.rows, b.rows...)
		all.muts = append(all.muts, b.muts...)
	}
	if len(all.rows) == 0 {
		return
	}
	errs, err := w.tbl.ApplyBulk(ctx, all.rows, all.muts)
	start := 0
	for _, gw := range writes {
		n := len(part(gw).rows)
		e := err
		if e == nil && errs != nil {
			e = errors.Join(errs[start : start+n]...)
		}
		if e != nil {
			gw.err = fmt.Errorf("bulk write of %d rows: %w", n, e)
		}
		start += n
	}
}
