package webtable

import (
	"context"
	"errors"
	"fmt"

	"github.com/webtable/webtable/bigtable"
)

// Copy batching: a bulk write holds at most copyBatchRows rows or about
// copyBatchBytes of values, whichever comes first, so copying a table of
// any size keeps memory flat.
const (
	copyBatchRows  = 500
	copyBatchBytes = 32 << 20
)

// copyPartBytes and copyPartCells bound one mutation of a copied row: a row larger than that
// (a page that thousands of pages link to holds thousands of anchor
// columns) is written as several mutations of about this size each, so it
// fits in one transaction of a store sized for a crawl (about 1.2 MiB of
// keys and small values, internal/stores) and in one Cloud Bigtable
// mutation. The copy of such a row is not atomic, but Copy can be run again.
const (
	copyPartBytes = 256 << 10
	copyPartCells = 4000
)

// cellCost estimates what one cell costs a store's transaction: its key
// parts and its value. Values the embedded store keeps in its value log
// cost only a pointer there, but the estimate stays on the safe side.
func cellCost(row, fam, qual string, value []byte) int64 {
	return int64(len(row)+len(fam)+len(qual)+16) + int64(len(value))
}

// CopyStats says how much Copy moved.
type CopyStats struct {
	Rows, Cells, Bytes int64
}

// Copy writes every row of src into dst: every column, every stored
// version, with its timestamp, so that a WebTable moves between stores (the
// embedded one and Cloud Bigtable) intact. A row too large for one
// mutation is written in parts (copyPartBytes). Rows already in dst are merged
// cell by cell (a cell with the same column and timestamp is overwritten),
// so a copy that was interrupted can simply be run again. progress, when
// not nil, is called after each batch with the totals so far. dst takes
// src's [FormatVersion] before any row, so that a copy of an older store is
// migrated as that store would be.
func Copy(ctx context.Context, dst, src *WebTable, progress func(CopyStats)) (CopyStats, error) {
	var st CopyStats
	v, err := readFormat(ctx, src.tbl)
	if err == nil {
		err = writeFormat(ctx, dst.tbl, v)
	}
	if err != nil {
		return st, err
	}
	var rows []string
	var muts []*bigtable.Mutation
	var batchBytes int64
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		errs, err := dst.tbl.ApplyBulk(ctx, rows, muts)
		if err == nil {
			err = errors.Join(errs...)
		}
		if err != nil {
			return fmt.Errorf("webtable: copying rows %q to %q: %w", rows[0], rows[len(rows)-1], err)
		}
		rows, muts, batchBytes = rows[:0], nil, 0
		if progress != nil {
			progress(st)
		}
		return nil
	}
	var werr error
	err = src.tbl.ReadRows(ctx, bigtable.InfiniteRange(""), func(r bigtable.Row) bool {
		if r.Key() == FormatKey {
			return true // written above
		}
		m, partBytes, partCells := bigtable.NewMutation(), int64(0), 0
		for fam, items := range r {
			for _, it := range items {
				q := qualifier(it.Column)
				c := cellCost(r.Key(), fam, q, it.Value)
				if partBytes > 0 && (partBytes+c > copyPartBytes || partCells == copyPartCells) {
					rows, muts = append(rows, r.Key()), append(muts, m)
					m, partBytes, partCells = bigtable.NewMutation(), 0, 0
				}
				m.Set(fam, q, it.Timestamp, it.Value)
				partBytes += c
				partCells++
				st.Cells++
				st.Bytes += int64(len(it.Value))
				batchBytes += int64(len(it.Value))
			}
		}
		rows = append(rows, r.Key())
		muts = append(muts, m)
		st.Rows++
		if len(rows) >= copyBatchRows || batchBytes >= copyBatchBytes {
			werr = flush()
		}
		return werr == nil
	})
	if err != nil {
		return st, fmt.Errorf("webtable: reading the source: %w", err)
	}
	if werr != nil {
		return st, werr
	}
	return st, flush()
}
