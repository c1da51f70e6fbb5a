package server

import (
	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/internal/wire"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/wrapperspb"
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
	ctx := stream.Context()
	left := req.RowsLimit // 0: no limit
	var enc chunker
	for len(ranges) > 0 {
		var opts []bigtable.ReadOption
		if f != nil {
			opts = append(opts, bigtable.RowFilter(f))
		}
		if left > 0 {
			opts = append(opts, bigtable.LimitRows(left))
		}
		var n int64
		var last string
		full := false
		err := tbl.ReadRows(ctx, wire.BigtableRowSet(ranges), func(r bigtable.Row) bool {
			enc.row(r)
			n++
			last = r.Key()
			full = enc.total >= s.cfg.batchBytes
			return !full
		}, opts...)
		if err != nil {
			return toStatus(err)
		}
		for _, resp := range enc.flush() {
			if err := stream.Send(resp); err != nil {
				return err
			}
		}
		if left > 0 {
			if left -= n; left == 0 {
				break
			}
		}
		if !full {
			break
		}
		ranges = wire.After(ranges, last)
	}
	return nil
}

// chunker encodes rows as the chunks of ReadRowsResponses: the row key,
// family and qualifier only when they change, long values split, the
// row's last chunk committing it.
type chunker struct {
	resps []*btpb.ReadRowsResponse
	cur   *btpb.ReadRowsResponse
	size  int // bytes in cur, about
	total int // bytes in resps and cur, about
}

func (c *chunker) add(ch *btpb.ReadRowsResponse_CellChunk, n int) {
	c.cur.Chunks = append(c.cur.Chunks, ch)
	n += 16 // the chunk's own framing and timestamp, about
	c.size += n
	c.total += n
}

// row encodes one row; a row without cells sends nothing.
// NB: a row never spans two responses: the Go client checks after each
// response that no row is left half read.
func (c *chunker) row(r bigtable.Row) {
	if c.cur == nil || c.size >= responseBytes {
		c.cur = &btpb.ReadRowsResponse{Chunks: make([]*btpb.ReadRowsResponse_CellChunk, 0, 64)}
		c.resps = append(c.resps, c.cur)
		c.size = 0
	}
	var lastChunk *btpb.ReadRowsResponse_CellChunk
	key := []byte(r.Key())
	for _, fam := range sortedFamilies(r) {
		items := r[fam]
		prevQual := ""
		for i, it := range items {
			qual := it.Column[len(fam)+1:]
			ch := &btpb.ReadRowsResponse_CellChunk{TimestampMicros: int64(it.Timestamp)}
			n := 0
			if key != nil {
				ch.RowKey, key = key, nil
				n += len(ch.RowKey)
			}
			if i == 0 {
				ch.FamilyName = wrapperspb.String(fam)
				n += len(fam)
			}
			if i == 0 || qual != prevQual {
				ch.Qualifier = wrapperspb.Bytes([]byte(qual))
				n += len(qual)
			}
			prevQual = qual
			v := it.Value
			if len(v) <= maxChunkValue {
				ch.Value = v
				c.add(ch, n+len(v))
				lastChunk = ch
				continue
			}
			// A long value: the first chunk names the cell, the rest carry
			// only bytes; all but the last say the whole size.
			size := int32(len(v))
			ch.Value, ch.ValueSize = v[:maxChunkValue], size
			c.add(ch, n+maxChunkValue)
			for rest := v[maxChunkValue:]; len(rest) > 0; {
				part := rest[:min(len(rest), maxChunkValue)]
				rest = rest[len(part):]
				next := &btpb.ReadRowsResponse_CellChunk{Value: part}
				if len(rest) > 0 {
					next.ValueSize = size
				}
				c.add(next, len(part))
				lastChunk = next
			}
		}
	}
	if lastChunk != nil {
		lastChunk.RowStatus = &btpb.ReadRowsResponse_CellChunk_CommitRow{CommitRow: true}
	}
}

// flush returns the responses encoded so far and starts afresh.
func (c *chunker) flush() []*btpb.ReadRowsResponse {
	out := c.resps
	*c = chunker{}
	return out
}
