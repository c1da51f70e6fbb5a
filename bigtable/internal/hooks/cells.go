package hooks

import "context"

// Row is one row of a ReadCells: its key and the cells the filter passed,
// in key order (family, qualifier, newest first). It and every byte slice
// in it are valid only during the call of f that receives it; ReadCells
// reuses them for the next row.
type Row struct {
	Key   []byte
	Cells []Cell
}

// Cell is one cell version of a Row. Family and Qualifier are strings that
// stay valid; Value (nil when empty or stripped) is valid only during the
// call that receives its Row.
type Cell struct {
	Family, Qualifier string
	Timestamp         int64 // µs, as bigtable.Timestamp
	Value             []byte
}

// ReadCells reads tbl (a *bigtable.Table) as its ReadRows does over rs (a
// bigtable.RowSet) with RowFilter(filter) when filter (a bigtable.Filter)
// is not nil and LimitRows(limit) when limit > 0, but hands f each row as
// a Row instead of a bigtable.Row: no map, no string per column, and no
// copy of each value of its own, so a caller that encodes the cells at
// once (the gRPC server) allocates nothing per row. f returning false
// stops the read, which is not an error. The read never reads ahead on a
// second goroutine: f runs on the caller's.
func ReadCells(ctx context.Context, tbl any, rs any, filter any, limit int64, f func(r *Row) bool) error {
	return get().ReadCells(ctx, tbl, rs, filter, limit, f)
}
