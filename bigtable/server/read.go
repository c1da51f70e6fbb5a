package server

import (
	"context"
	"sync/atomic"

	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/internal/hooks"
	"github.com/webtable/webtable/bigtable/internal/wire"
	"google.golang.org/grpc/codes"
)

const (
	// defaultBatchBytes is about how many bytes of responses one read
	// batch encodes before it sends them. Each batch reads from a fresh
	// snapshot of the store, and none is held while the client receives,
	// so a slow or stalled client pins no old versions.
	defaultBatchBytes = 1 << 20
	// maxChunkValue is the most bytes of a value one chunk carries; a
	// longer value is split with value_size, as Cloud Bigtable does.
	maxChunkValue = 1 << 20
	// responseBytes is about how many bytes of rows one ReadRowsResponse
	// carries before the next row starts another.
	responseBytes = 256 << 10
)

// ReadRows streams the rows of a row set, through a filter, up to a limit.
// NB: the read goes in batches of about batchBytes, each a ReadRows of the
// store from just after the last row sent; Cloud Bigtable promises no
// snapshot across a stream either.
func (s *dataServer) ReadRows(req *btpb.ReadRowsRequest, stream btpb.Bigtable_ReadRowsServer) error {
	switch {
	case req.AuthorizedViewName != "":
		return statusf(codes.Unimplemented, "authorized views are not supported by this server")
	case req.MaterializedViewName != "":
		return statusf(codes.Unimplemented, "materialized views are not supported by this server")
	case req.Reversed:
		return statusf(codes.Unimplemented, "reversed scans are not supported by this server")
	case req.RowsLimit < 0:
		return statusf(codes.InvalidArgument, "rows_limit %d is negative", req.RowsLimit)
	}
	tbl, err := s.table(req.TableName)
	if err != nil {
		return err
	}
	ranges, err := wire.RowSet(req.Rows)
	if err != nil {
		return toStatus(err)
	}
	f, err := wire.Filter(req.Filter)
	if err != nil {
		return toStatus(err)
	}
	if len(ranges) == 1 && ranges[0].StartBound == wire.Closed && ranges[0].EndBound == wire.Closed && ranges[0].Start == ranges[0].End {
		// One row (a ReadRow): nothing to overlap, so no second goroutine.
		batches := make(chan []encoded, 1)
		if err := s.readBatches(stream.Context(), tbl, ranges, f, req.RowsLimit, batches); err != nil {
			return toStatus(err)
		}
		for _, resp := range <-batches {
			if err := stream.SendMsg(resp); err != nil {
				return err
			}
		}
		return nil
	}
	// NB: one goroutine reads and encodes batches while this one sends
	// them, so the store's read overlaps the client's decoding; at most
	// two batches wait in between.
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	batches := make(chan []encoded, 2)
	done := make(chan error, 1)
	go func() {
		defer close(batches)
		done <- s.readBatches(ctx, tbl, ranges, f, req.RowsLimit, batches)
	}()
	for batch := range batches {
		for _, resp := range batch {
			if err := stream.SendMsg(resp); err != nil {
				cancel()
				for range batches { // let the reader see the cancel and end
				}
				return err
			}
		}
	}
	return toStatus(<-done)
}

// readBatches reads the rows of a ReadRows in batches of about batchBytes
// of responses, each from fresh ReadRows of the store starting just after
// the last row of the batch before, and hands them to out.
//
// NB: a request may list millions of row keys. The ranges are sorted and
// merged once, and each read of the store gets at most windowRanges of
// them, so that neither re-encoding nor re-sorting the rest per batch
// makes the work quadratic: N keys cost O(N log N) in all.
func (s *dataServer) readBatches(ctx context.Context, tbl *bigtable.Table, ranges []wire.Range, f bigtable.Filter, limit int64, out chan<- []encoded) error {
	left := limit // 0: no limit
	var enc chunker
	ranges = wire.Normalize(ranges)
	for len(ranges) > 0 {
		window := ranges[:min(len(ranges), windowRanges)]
		rangesRead.Add(int64(len(window)))
		var n int64
		var last []byte
		full := false
		// NB: the store hands out each row's cells without building a
		// bigtable.Row, and they are encoded at once: a scan allocates
		// nothing per row here.
		err := hooks.ReadCells(ctx, tbl, wire.BigtableRowSet(window), f, left, func(r *hooks.Row) bool {
			enc.cells(r)
			n++
			full = enc.total >= s.cfg.batchBytes
			if full {
				last = append(last[:0], r.Key...)
			}
			return !full
		})
		if err != nil {
			return err
		}
		if left > 0 {
			left -= n
		}
		switch {
		case full:
			ranges = wire.AfterSorted(ranges, string(last))
		default:
			ranges = ranges[len(window):]
			if len(ranges) > 0 && (limit == 0 || left > 0) {
				continue // the batch is not full: read the next window into it
			}
		}
		select {
		case out <- enc.flush():
		case <-ctx.Done():
			return ctx.Err()
		}
		if limit > 0 && left == 0 {
			return nil
		}
	}
	return nil
}

// windowRanges is the most ranges of a request one read of the store gets.
const windowRanges = 1024

// rangesRead counts the ranges readBatches passed to the store, for tests.
var rangesRead atomic.Int64
