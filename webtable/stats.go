package webtable

import (
	"context"
	"fmt"
	"sync"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/crawlstore"
	"github.com/webtable/webtable/urlkey"
)

// Stats summarises the rows of a range of the WebTable.
type Stats struct {
	Rows     int64            // rows (pages fetched, queued, or only linked to)
	Fetched  int64            // rows whose last fetch succeeded (fetch:state done)
	Failed   int64            // rows whose last fetch failed (fetch:state failed)
	Queued   int64            // page rows whose state is queued (waiting to be fetched)
	Frontier int64            // frontier entries (counted when the whole table is asked for)
	Versions int64            // contents:html versions stored
	Bytes    map[string]int64 // value bytes per family
	Cells    map[string]int64 // cells per family (all versions)
	// Rates counts the pages of a continuous crawl by estimated change
	// rate (crawl --continuous); empty otherwise.
	Rates RateHistogram
}

// parallelReader is a Table that can scan its tablets at once, in no
// particular order (both stores can: bigtable.Table.ReadRowsParallel and
// cloud.Table.ReadRowsParallel).
type parallelReader interface {
	ReadRowsParallel(ctx context.Context, rs bigtable.RowSet, f func(bigtable.Row) bool, opts ...bigtable.ReadOption) error
}

// Stats scans ranges (the whole table when empty) and counts rows, fetches,
// failures, versions and bytes per family. It reads every value once and
// keeps none of them; where the store can, it scans the tablets in
// parallel (order does not matter for a count). Only page rows are
// counted as rows; with no ranges, the frontier's entries are counted in
// Frontier.
func (w *WebTable) Stats(ctx context.Context, ranges []urlkey.Range) (Stats, error) {
	var mu sync.Mutex
	total := newStats()
	var ferr error
	count := func(r bigtable.Row) bool {
		// Counting is cheap beside reading the row, so one lock will do.
		mu.Lock()
		defer mu.Unlock()
		if err := total.add(r); err != nil {
			ferr = err
			return false
		}
		return true
	}
	var err error
	if p, ok := w.tbl.(parallelReader); ok {
		err = p.ReadRowsParallel(ctx, rowSet(ranges), count)
	} else {
		err = w.tbl.ReadRows(ctx, rowSet(ranges), count)
	}
	if err != nil {
		return total, fmt.Errorf("webtable: counting: %w", err)
	}
	if ferr != nil {
		return total, ferr
	}
	if len(ranges) == 0 {
		total.Frontier, err = w.FrontierSize(ctx, 0, urlkey.Buckets)
	}
	return total, err
}

func newStats() Stats {
	s := Stats{Bytes: map[string]int64{}, Cells: map[string]int64{}}
	for _, f := range Families {
		s.Bytes[f], s.Cells[f] = 0, 0
	}
	return s
}

// add counts one row.
func (s *Stats) add(r bigtable.Row) error {
	s.Rows++
	for fam, items := range r {
		for _, it := range items {
			s.Bytes[fam] += int64(len(it.Value))
			s.Cells[fam]++
			if fam == FamilyContents && qualifier(it.Column) == "html" {
				s.Versions++
			}
		}
	}
	f, err := parseFetch(latest(r, FamilyFetch))
	if err != nil {
		return err
	}
	s.Rates.add(f.Change)
	switch f.State {
	case crawlstore.StateDone:
		s.Fetched++
	case crawlstore.StateFailed:
		s.Failed++
	case crawlstore.StateQueued:
		s.Queued++
	}
	return nil
}

// latest keeps only the newest cell of each column of one family of r.
func latest(r bigtable.Row, family string) bigtable.Row {
	var items []bigtable.ReadItem
	for i, it := range r[family] {
		if i == 0 || it.Column != r[family][i-1].Column {
			items = append(items, it)
		}
	}
	if len(items) == 0 {
		return bigtable.Row{}
	}
	return bigtable.Row{family: items}
}

// Failure is a URL whose last fetch failed.
type Failure struct {
	Row   string
	Fetch crawlstore.Fetch
}

// Errors calls fn, in key order, for every row in ranges (the whole table
// when empty) whose last fetch failed, until fn returns false or limit
// failures (0 = no limit) were passed.
func (w *WebTable) Errors(ctx context.Context, ranges []urlkey.Range, limit int, fn func(Failure) bool) error {
	n := 0
	return w.eachFetch(ctx, ranges, "listing errors", bigtable.ChainFilters(bigtable.FamilyFilter(FamilyFetch), bigtable.LatestNFilter(1)), func(row string, f crawlstore.Fetch) bool {
		if f.State != crawlstore.StateFailed {
			return true
		}
		n++
		return fn(Failure{Row: row, Fetch: f}) && (limit <= 0 || n < limit)
	})
}

// Tablet is one tablet of the WebTable: a range of rows stored together.
type Tablet struct {
	Start, End string // row keys; Start inclusive, End exclusive, "" = unbounded
	Bytes      int64  // approximate size on disk
	Rows       int64  // approximate number of rows
}

// Tablets lists the tablets of the WebTable in key order. On a store that
// reports only tablet boundaries (Cloud Bigtable), Bytes and Rows are -1.
func (w *WebTable) Tablets(ctx context.Context) ([]Tablet, error) {
	if l, ok := w.store.(tabletLister); ok {
		infos, err := l.Tablets(ctx, w.name)
		if err != nil {
			return nil, fmt.Errorf("webtable: listing tablets: %w", err)
		}
		out := make([]Tablet, len(infos))
		for i, t := range infos {
			out[i] = Tablet{Start: t.Start, End: t.End, Bytes: t.Bytes, Rows: t.Rows}
		}
		return out, nil
	}
	return w.TabletBounds(ctx)
}
