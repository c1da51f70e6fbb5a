package bigtable

import (
	"bytes"
	"context"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
)

// Read-ahead.
//
// A long ReadRows does two kinds of work per row: reading the cells from
// Badger (the iterator, the value copies, the filter), and turning them
// into the Row map that the Cloud Bigtable API hands to the callback, plus
// the callback itself. After DefaultReadAhead rows have gone out in the
// calling goroutine, the rest of the scan runs as a pipeline: read-ahead
// goroutines do the first kind, in batches, while the caller's goroutine
// does the second, so a scan uses more than one core when there are
// several, as Cloud Bigtable's client reads the next response while the
// caller handles rows. The rows still reach the callback in key order, one
// at a time, from the caller's goroutine.
//
// The first kind is most of the work, and most of it is the values: so
// several goroutines share it (WithReadAheadGoroutines), each with its own
// iterator on the read's snapshot. Each walks every key, and reads the
// cells of its own rows only: rows are dealt out in groups of
// readAheadGroup (see dealer). The caller's goroutine merges their
// batches back into key order.
//
// Contract:
//   - Memory: at most three batches exist per read-ahead goroutine (one
//     filling, one queued, one being handed out), each of at most
//     readAheadRows rows or about readAheadBytes of values, plus the row
//     being read.
//   - Work: after the callback stops the scan, the read-ahead has read at
//     most those batches too many; nothing is lost or repeated.
//   - Errors: rows read before an error reach the callback first, as they
//     would without read-ahead; then ReadRows returns the error.
//   - ReadRows returns only after every read-ahead goroutine has stopped,
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
//
// NB: reading ahead costs CPU (each read-ahead goroutine walks every key,
// and batches change hands): about 0.9 us more per row of 1000 bytes, for
// a scan that then takes less wall time only when the range is long. With
// read-ahead from row 256, prefix scans of 1,000 such rows took 1.81-1.89
// us of wall time per row against 1.53-1.62 without (and 2.56 us of CPU
// against 1.63-1.73); scans of 10,000 rows and more gain from it at 2048 as
// much as at 256 (1.44-1.47 us against 1.40-1.54; one core: 1.50-1.62).
const DefaultReadAhead = 2048

// DefaultReadAheadGoroutines is the default of WithReadAheadGoroutines:
// how many goroutines read a long scan ahead. Each walks every key but
// reads the values of its own rows only (see dealer): values are most of
// a scan's work, so two of them, with the caller's goroutine building
// Rows, keep two cores busy.
const DefaultReadAheadGoroutines = 2

// readAheadGroup is how many consecutive rows go to one read-ahead
// goroutine in turn: values of neighbouring rows are neighbours in the
// value log.
const readAheadGroup = 8

// raProgressRows is how many rows a read-ahead goroutine passes, at most,
// before it sends a batch, full or not, when several read ahead (see
// readAhead.passed).
const raProgressRows = 1024

// readAheadReaders returns how many goroutines read a scan ahead.
func (db *DB) readAheadReaders() int { return max(1, db.opts.readAheadReaders) }

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
	ords  []int // the number of each row in the scan (see dealer)
	bytes int
	// upTo: every row of this goroutine's before row number upTo is in
	// this batch or an earlier one
	upTo   int
	err    error // the scan ended with this error after these rows
	errOrd int   // the number of the row the error came at
}

func (b *raBatch) reset() {
	clear(b.items) // drop the references to values handed out
	b.items, b.fams, b.ends, b.ords, b.bytes, b.err = b.items[:0], b.fams[:0], b.ends[:0], b.ords[:0], 0, nil
}

// readAhead is the pipeline between one read-ahead goroutine, which fills
// batches, and the caller's goroutine, which empties them.
type readAhead struct {
	full  chan *raBatch // filled batches, in key order; closed at the end
	free  chan *raBatch // emptied batches, for reuse
	stop  chan struct{} // closed when the caller's goroutine stops reading
	cur   *raBatch      // the batch being filled (read-ahead goroutine only)
	rows  int           // the row limit of the current batch
	dealt bool          // other goroutines read ahead too: tell the caller's how far this one is
	seen  int           // rows passed since the last batch went out
}

func newReadAhead(dealt bool) *readAhead {
	ra := &readAhead{
		full:  make(chan *raBatch, 1),
		free:  make(chan *raBatch, 2),
		stop:  make(chan struct{}),
		cur:   new(raBatch),
		rows:  readAheadFirst,
		dealt: dealt,
	}
	ra.free <- new(raBatch)
	ra.free <- new(raBatch)
	return ra
}

// queue moves the current row of rr into the batch being filled, sending
// the batch when it is full. It reports whether the scan should stop
// because the caller's goroutine has stopped reading.
func (ra *readAhead) queue(rr *rowReader) (stop bool) {
	b := ra.cur
	b.items = append(b.items, rr.items...)
	b.fams = append(b.fams, rr.fams...)
	b.ends = append(b.ends, len(b.items))
	b.ords = append(b.ords, rr.deal.ord)
	for i := range rr.items {
		b.bytes += len(rr.items[i].Value)
	}
	clear(rr.items)
	rr.items, rr.fams = rr.items[:0], rr.fams[:0]
	if len(b.ends) < ra.rows && b.bytes < readAheadBytes {
		return false
	}
	ra.rows = min(2*ra.rows, readAheadRows)
	return ra.flush(rr.deal.ord + 1)
}

// passed notes that the read-ahead goroutine is at row ord. When rows are
// dealt to several goroutines and this one has passed many rows since its
// last batch (rows of the others, or rows its filter dropped), it sends
// its batch as it is, so that the caller's goroutine, waiting to learn
// whether a row before another goroutine's next comes from this one, does
// not wait for the end of the scan. It reports whether the scan should
// stop.
func (ra *readAhead) passed(ord int) (stop bool) {
	ra.seen++
	if !ra.dealt || ra.seen < raProgressRows {
		return false
	}
	return ra.flush(ord)
}

// flush sends the current batch, telling the caller's goroutine that every
// row of this goroutine's before row upTo is in it or an earlier one, and
// takes an empty one. It reports whether the scan should stop.
func (ra *readAhead) flush(upTo int) (stop bool) {
	ra.cur.upTo, ra.seen = upTo, 0
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
	readers := []*rowReader{rr}
	if rr.readers > 1 && rr.txn != nil {
		// NB: the other readers start at the row rr stands on, with
		// iterators of their own on the same snapshot, so that they see
		// the same rows in the same order.
		if rr.now == 0 {
			rr.now = Now() // every reader judges GC policies at one time
		}
		for i := 1; i < rr.readers; i++ {
			o, err := rr.another()
			if err != nil {
				for _, o := range readers[1:] {
					o.cur.it.Close()
					o.release()
				}
				return err
			}
			readers = append(readers, o)
		}
	}
	streams := make([]raStream, len(readers))
	dones := make([]chan struct{}, len(readers))
	emit := rr.emit
	for i, r := range readers {
		ra := newReadAhead(len(readers) > 1)
		r.ra, r.deal = ra, dealer{n: len(readers), me: i, group: max(1, rr.group), ord: -1}
		streams[i].ra = ra
		dones[i] = make(chan struct{})
		readAheads.started.Add(1)
		readAheads.running.Add(1)
		go func(r *rowReader, done chan struct{}) {
			defer close(done)
			defer readAheads.running.Add(-1)
			defer close(r.ra.full)
			err := r.run(ctx, r == rr)
			if b := r.ra.cur; b != nil && (len(b.ends) > 0 || err != nil) {
				b.err, b.errOrd, b.upTo = err, r.deal.ord, math.MaxInt
				r.ra.send()
			}
		}(r, dones[i])
	}
	defer func() {
		for i, r := range readers {
			close(r.ra.stop)
			<-dones[i]
			r.ra = nil
			if r != rr {
				r.cur.it.Close()
				r.release()
			}
		}
	}()
	var sl slab // the items of this goroutine's rows (the values are the read-ahead's)
	for {
		s, err := nextStream(streams)
		if s == nil || err != nil {
			return err
		}
		items, fams := s.take()
		if !emit(buildRow(items, fams, &sl)) {
			return nil
		}
	}
}

// another returns a second reader for the rest of rr's scan: the same
// filter and settings, and an iterator of its own on rr's snapshot over
// the rest of rr's ranges, from the start of the row rr's cursor is on.
func (rr *rowReader) another() (*rowReader, error) {
	o, err := getRowReader(rr.ts, rr.filter)
	if err != nil {
		return nil, err
	}
	o.now, o.noValues, o.fast, o.slabbed = rr.now, rr.noValues, rr.fast, rr.slabbed
	c := &rr.cur
	ranges := slices.Clone(c.ranges[c.ri:])
	// The row's cells all start with the table prefix and the escaped row
	// with its terminator.
	if lo := appendRowKey(nil, rr.ts.id, string(c.rowRaw)); bytes.Compare(lo, ranges[0].lo) > 0 {
		ranges[0].lo = lo
	}
	it := newIterator(rr.txn, ranges)
	o.cur.reset(it, ranges, rr.ts)
	o.cur.steps = cursorSteps
	o.cur.families = o.families
	o.emit = func(Row) bool { return false } // NB: never called: every row is queued
	return o, nil
}

// raStream is the caller's end of one read-ahead goroutine's batches.
type raStream struct {
	ra    *readAhead
	b     *raBatch // the batch being handed out, nil before the first
	row   int      // the next row of b
	start int      // where that row's items start in b
	// low: after the rows of b, none of this stream's rows is before low
	low   int
	ended bool
}

// pending reports whether s holds a row, or its error, not yet taken.
func (s *raStream) pending() bool {
	return s.b != nil && (s.row < len(s.b.ends) || s.b.err != nil)
}

// head returns the ordinal of the row, or of the error, s holds.
func (s *raStream) head() int {
	if s.row < len(s.b.ends) {
		return s.b.ords[s.row]
	}
	return s.b.errOrd
}

// fetch gives back the batch s has handed out and waits for the next one,
// or the end of the stream.
func (s *raStream) fetch() {
	if s.b != nil {
		s.b.reset()
		select {
		case s.ra.free <- s.b:
		default: // the read-ahead has finished and taken no batch back
		}
		s.b = nil
	}
	b, ok := <-s.ra.full
	if !ok {
		s.ended = true
		return
	}
	s.b, s.row, s.start, s.low = b, 0, 0, b.upTo
}

// take returns the items and families of the row s holds, and moves on.
func (s *raStream) take() ([]ReadItem, []string) {
	end := s.b.ends[s.row]
	items, fams := s.b.items[s.start:end], s.b.fams[s.start:end]
	s.row, s.start = s.row+1, end
	return items, fams
}

// nextStream returns the stream holding the next row in key order, or the
// error that comes before it, waiting for the read-ahead goroutines as
// needed; nil and no error at the end of every stream.
//
// NB: a stream without a row in hand may still send one before the best
// row in hand, unless its last batch said it is past it (raBatch.upTo).
func nextStream(streams []raStream) (*raStream, error) {
	for {
		var best *raStream
		for i := range streams {
			if s := &streams[i]; s.pending() && (best == nil || s.head() < best.head()) {
				best = s
			}
		}
		var wait *raStream
		for i := range streams {
			if s := &streams[i]; !s.ended && !s.pending() && (best == nil || s.low <= best.head()) {
				wait = s
				break
			}
		}
		if wait != nil {
			wait.fetch()
			continue
		}
		if best != nil && best.row >= len(best.b.ends) {
			return nil, best.b.err
		}
		return best, nil
	}
}

// dealer deals the rows of a scan read ahead by several goroutines: rows
// are numbered from the first row read ahead, and groups of group rows go
// to each goroutine in turn, so that every one reads the keys of every row
// and the values of its own rows only.
type dealer struct {
	n, me, group int
	ord          int // the current row's number
}

// next moves to the next row and reports whether it is this goroutine's.
func (d *dealer) next() bool {
	d.ord++
	return (d.ord/d.group)%d.n == d.me
}
