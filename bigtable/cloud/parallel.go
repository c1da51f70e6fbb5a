package cloud

import (
	"context"
	"fmt"
	"slices"

	gbt "cloud.google.com/go/bigtable"

	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/internal/fanout"
	"github.com/webtable/webtable/bigtable/internal/spec"
)

// ParallelStreams is how many ReadRows streams ReadRowsParallel keeps open
// at once, at most. The work is the server's and the network's, so it does
// not depend on this machine's processors.
const ParallelStreams = 8

// ReadRowsParallel reads the rows of rs as ReadRows does, but cuts the
// range at the keys SampleRowKeys returns (about one piece per tablet) and
// reads the pieces on up to ParallelStreams streams at once, for callers
// that do not need the rows in order: statistics, a recrawl pass. Its
// contract is (*bigtable.Table).ReadRowsParallel's: f is called
// concurrently; rows of one piece arrive in key order; a false from f or
// an error stops every stream and ReadRowsParallel returns once the calls
// of f under way have returned; LimitRows(n) passes at most n rows in all.
func (t *Table) ReadRowsParallel(ctx context.Context, rs bigtable.RowSet, f func(bigtable.Row) bool, opts ...bigtable.ReadOption) error {
	what := fmt.Sprintf("read rows of table %q in parallel", t.name)
	s, err := spec.ReadOptionsOf(opts)
	if err != nil {
		return fmt.Errorf("cloud: %s: %w", what, err)
	}
	ro, ss, set, err := readRowsArgs(rs, opts)
	if err != nil {
		return fmt.Errorf("cloud: %s: %w", what, err)
	}
	if set == nil {
		return nil // no row
	}
	if s.LimitSet && s.Limit == 0 {
		return nil // as bigtable: LimitRows(0) reads nothing
	}
	samples, err := t.SampleRowKeys(ctx)
	if err != nil {
		return err
	}
	pieces := splitRowSet(ss, samples)
	limit := int64(-1)
	if s.LimitSet {
		limit = s.Limit
	}
	err = fanout.Run(ctx, len(pieces), ParallelStreams, limit, f,
		func(ctx context.Context, i int, emit func(bigtable.Row) bool) error {
			set, ok, err := toRowSet(pieces[i])
			if err != nil || !ok {
				return err
			}
			return t.stream(ctx, set, emit, ro)
		})
	return wrapErr(what, err)
}

// stream reads set from the server and passes each non-empty row to f.
func (t *Table) stream(ctx context.Context, set gbt.RowSet, f func(bigtable.Row) bool, ro []gbt.ReadOption) error {
	return t.tbl.ReadRows(ctx, set, func(r gbt.Row) bool {
		if row := fromRow(r); row != nil {
			return f(row)
		}
		return true
	}, ro...)
}

// splitRowSet cuts rs at the sample keys: piece i holds the rows of rs in
// [keys[i-1], keys[i]), the first piece starting at the beginning of the
// table and the last ending at its end. Pieces with no row are left out.
func splitRowSet(rs spec.RowSet, samples []string) []spec.RowSet {
	var bounds []string
	for _, k := range samples {
		if k != "" {
			bounds = append(bounds, k)
		}
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	var out []spec.RowSet
	for i := 0; i <= len(bounds); i++ {
		lo, hi := "", "" // "": the table's beginning or end
		if i > 0 {
			lo = bounds[i-1]
		}
		if i < len(bounds) {
			hi = bounds[i]
		}
		piece := spec.RowSet{Kind: spec.RangeListSet}
		if rs.Kind == spec.ListSet {
			piece.Kind = spec.ListSet
			for _, k := range rs.Keys {
				if k != "" && k >= lo && (hi == "" || k < hi) {
					piece.Keys = append(piece.Keys, k)
				}
			}
		} else {
			for _, r := range rs.Ranges {
				if c, ok := clipRange(r, lo, hi); ok {
					piece.Ranges = append(piece.Ranges, c)
				}
			}
		}
		if len(piece.Keys) > 0 || len(piece.Ranges) > 0 {
			out = append(out, piece)
		}
	}
	return out
}

// clipRange returns the part of r in [lo, hi) ("" lo or hi: no limit on
// that side), and whether it holds any row.
func clipRange(r spec.RowRange, lo, hi string) (spec.RowRange, bool) {
	if lo != "" && (r.StartBound == spec.Unbounded || r.Start < lo) {
		r.StartBound, r.Start = spec.Closed, lo
	}
	if hi != "" && (r.EndBound == spec.Unbounded || r.End > hi || r.End == hi && r.EndBound == spec.Closed) {
		r.EndBound, r.End = spec.Open, hi
	}
	_, ok := toRowRange(r)
	return r, ok
}
