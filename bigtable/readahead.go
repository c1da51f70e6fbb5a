package bigtable

import (
	"context"
	"runtime"
	"sync/atomic"
)

// Read-ahead.
//
// A long ReadRows does two kinds of work per row: reading the cells from
// Badger (the iterator, the value copies, the filter), and turning them
// into the Row map that the Cloud Bigtable API hands to the callback, plus
// the callback itself. After DefaultReadAhead rows have gone out in the
// calling goroutine, the rest of the scan runs as a pipeline: a read-ahead
// goroutine does the first kind, in batches, while the caller's goroutine
// does the second, so a scan uses a second core when there is one, as
// Cloud Bigtable's client reads the next response while the caller
// handles rows. The rows still reach the callback in key order, one at a
// time, from the caller's goroutine.
//
// Contract:
//   - Memory: at most three batches exist (one filling, one queued, one
//     being handed out), each of at most readAheadRows rows or about
//     readAheadBytes of values, plus the row being read.
//   - Work: after the callback stops the scan, the read-ahead has read at
//     most those batches too many; nothing is lost or repeated.
//   - Errors: rows read before an error reach the callback first, as they
//     would without read-ahead; then ReadRows returns the error.
//   - ReadRows returns only after the read-ahead goroutine has stopped,
//     also when the callback panics, so no iterator or snapshot outlives
//     the call.
//   - Short reads (ReadRow, a prefix of a few dozen rows) never start one;
//     nor does anything with GOMAXPROCS 1, or WithReadAhead(0).

const (
	readAheadRows  = 256     // rows per batch, at most
	readAheadBytes = 1 << 20 // value bytes per batch, about
	// readAheadFirst is the row limit of the first batch; each batch may
	// hold twice as many rows as the one before, up to readAheadRows.
	// NB: the caller's goroutine waits for the first batch, so a small
	// one starts the pipeline sooner (a scan of a thousand rows otherwise
	// spends half its time on one core); the larger ones after it make
	// fewer handoffs.
	readAheadFirst = 16
)

// DefaultReadAhead is the default of WithReadAhead: the number of rows a
// ReadRows call reads in the caller's goroutine before it reads the rest
// ahead on another.
const DefaultReadAhead = 256

// readAheadAfter returns the row count at which a multi-row read starts
// reading ahead, or 0 for never.
func (db *DB) readAheadAfter() int {
	if db.opts.readAhead <= 0 || runtime.GOMAXPROCS(0) < 2 {
		return 0
	}
	return db.opts.readAhead
}

// readAheads counts read-ahead goroutines: started ever, and running now.
var readAheads struct{ started, running atomic.Int64 }

// raBatch is a run of whole rows: the items and families of each row in
// turn, ends[i] being where row i's items end.
type raBatch struct {
	items []ReadItem
	fams  []string
	ends  []int
	bytes int
	err   error // the scan ended with this error after these rows
}

func (b *raBatch) reset() {
	clear(b.items) // drop the references to values handed out
	b.items, b.fams, b.ends, b.bytes, b.err = b.items[:0], b.fams[:0], b.ends[:0], 0, nil
}

// readAhead is the pipeline between the read-ahead goroutine, which fills
// batches, and the caller's goroutine, which empties them.
type readAhead struct {
	full chan *raBatch // filled batches, in key order; closed at the end
	free chan *raBatch // emptied batches, for reuse
	stop chan struct{} // closed when the caller's goroutine stops reading
	cur  *raBatch      // the batch being filled (read-ahead goroutine only)
	rows int           // the row limit of the current batch
}

// queue moves the current row of rr into the batch being filled, sending
// the batch when it is full. It reports whether the scan should stop
// because the caller's goroutine has stopped reading.
func (ra *readAhead) queue(rr *rowReader) (stop bool) {
	b := ra.cur
	b.items = append(b.items, rr.items...)
	b.fams = append(b.fams, rr.fams...)
	b.ends = append(b.ends, len(b.items))
	for i := range rr.items {
		b.bytes += len(rr.items[i].Value)
	}
	clear(rr.items)
	rr.items, rr.fams = rr.items[:0], rr.fams[:0]
	if len(b.ends) < ra.rows && b.bytes < readAheadBytes {
		return false
	}
	ra.rows = min(2*ra.rows, readAheadRows)
	if !ra.send() {
		return true
	}
	ra.cur = nil // the reader's now
	select {
	case ra.cur = <-ra.free:
		return false
	case <-ra.stop:
		return true
	}
}

// send passes the current batch on; false means the reader has stopped.
func (ra *readAhead) send() bool {
	select {
	case ra.full <- ra.cur:
		return true
	case <-ra.stop:
		return false
	}
}

// readAhead runs the rest of the scan, from the cell the cursor is on, as
// a pipeline (see the comment at the top of this file).
func (rr *rowReader) readAhead(ctx context.Context) error {
	ra := &readAhead{
		full: make(chan *raBatch, 1),
		free: make(chan *raBatch, 2),
		stop: make(chan struct{}),
		cur:  new(raBatch),
		rows: readAheadFirst,
	}
	ra.free <- new(raBatch)
	ra.free <- new(raBatch)
	emit := rr.emit
	rr.ra = ra
	done := make(chan struct{})
	readAheads.started.Add(1)
	readAheads.running.Add(1)
	go func() {
		defer close(done)
		defer readAheads.running.Add(-1)
		defer close(ra.full)
		err := rr.run(ctx, true)
		if b := ra.cur; b != nil && (len(b.ends) > 0 || err != nil) {
			b.err = err
			ra.send()
		}
	}()
	defer func() {
		close(ra.stop)
		<-done
		rr.ra = nil
	}()
	var sl slab // the items of this goroutine's rows (the values are the read-ahead's)
	for b := range ra.full {
		start := 0
		for _, end := range b.ends {
			row := buildRow(b.items[start:end], b.fams[start:end], &sl)
			start = end
			if !emit(row) {
				return nil
			}
		}
		if b.err != nil {
			return b.err
		}
		b.reset()
		select {
		case ra.free <- b:
		default: // the read-ahead has finished and taken no batch back
		}
	}
	return nil
}
