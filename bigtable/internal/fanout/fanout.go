// Package fanout runs one read as several pieces at once, on a few
// goroutines, and passes their rows to one callback. It holds the stopping
// rules of ReadRowsParallel, shared by package bigtable's embedded store
// (a piece is a tablet's part of the range) and by package cloud (a piece
// is the part between two of SampleRowKeys' keys).
package fanout

import (
	"context"
	"sync"
	"sync/atomic"
)

// Run calls read(ctx, i, emit) for every piece i in [0, pieces), at most
// workers at a time, and passes the rows that read hands to emit on to f.
//
// Contract (what ReadRowsParallel documents):
//   - f is called concurrently, from several goroutines.
//   - When f returns false, every read stops before its next row, and Run
//     returns nil once the calls of f under way have returned; Run never
//     calls f after it returns.
//   - The first error of a read, or ctx's end, stops the others the same
//     way, and Run returns it; the cancellations it causes do not count.
//   - limit >= 0 passes at most limit rows to f in all.
//   - read must stop when emit returns false and return promptly when the
//     ctx it is given is cancelled.
func Run[R any](ctx context.Context, pieces, workers int, limit int64, f func(R) bool,
	read func(ctx context.Context, i int, emit func(R) bool) error) error {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		stop     atomic.Bool
		passed   atomic.Int64
		errOnce  sync.Once
		firstErr error
		wg       sync.WaitGroup
		next     atomic.Int64
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err })
		stop.Store(true)
		cancel()
	}
	emit := func(r R) bool {
		if stop.Load() {
			return false
		}
		if err := parent.Err(); err != nil {
			fail(err)
			return false
		}
		if limit >= 0 && passed.Add(1) > limit {
			stop.Store(true)
			return false
		}
		if !f(r) {
			stop.Store(true)
			return false
		}
		return !stop.Load()
	}
	for range min(pieces, max(workers, 1)) {
		wg.Go(func() {
			for !stop.Load() {
				i := int(next.Add(1)) - 1
				if i >= pieces {
					return
				}
				if err := read(ctx, i, emit); err != nil {
					fail(err)
					return
				}
			}
		})
	}
	wg.Wait()
	// NB: only the first error counts; the others are the cancellation it
	// caused.
	return firstErr
}
