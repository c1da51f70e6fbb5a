package cloud

import (
	"context"
	"fmt"
	"github.com/webtable/webtable/bigtable/internal/rowseq"
	"iter"

	gbt "cloud.google.com/go/bigtable"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/internal/spec"
)

// Table is a handle on one Cloud Bigtable table, from (*DB).Open, with the
// data-plane methods of *bigtable.Table. It takes and returns package
// bigtable's types. It is cheap and safe for concurrent use.
type Table struct {
	name string
	tbl  *gbt.Table
}

// Name returns the table's name.
func (t *Table) Name() string { return t.name }

// checkRowKey validates a row key as bigtable does (the server would reject
// it with a less specific error).
func checkRowKey(row string) error {
	if len(row) == 0 || len(row) > bigtable.MaxRowKeySize {
		return fmt.Errorf("%w: %d bytes, want 1 to %d", bigtable.ErrInvalidRowKey, len(row), bigtable.MaxRowKeySize)
	}
	return nil
}

// plainMutation translates a mutation that must not be conditional and
// must hold an operation, as bigtable demands.
func plainMutation(m *spec.Mutation) (*gbt.Mutation, error) {
	switch {
	case m == nil:
		return nil, fmt.Errorf("%w: nil mutation", bigtable.ErrInvalidMutation)
	case m.Cond:
		return nil, fmt.Errorf("%w: conditional mutations cannot be nested or applied in bulk", bigtable.ErrInvalidMutation)
	case len(m.Ops) == 0:
		return nil, fmt.Errorf("%w: no operations", bigtable.ErrInvalidMutation)
	}
	if err := checkOps(m.Ops); err != nil {
		return nil, err
	}
	return toMutation(m), nil
}

// checkOps applies bigtable's limits on timestamps, qualifiers and values,
// which are Cloud Bigtable's too, so a bad mutation fails alike on both
// stores and before anything is sent.
func checkOps(ops []spec.Op) error {
	for _, op := range ops {
		if op.Kind == spec.DeleteRow || op.Kind == spec.DeleteCellsInFamily {
			continue
		}
		if len(op.Qualifier) > bigtable.MaxQualifierSize {
			return fmt.Errorf("%w: %d bytes in family %q, limit %d", bigtable.ErrInvalidQualifier, len(op.Qualifier), op.Family, bigtable.MaxQualifierSize)
		}
		switch op.Kind {
		case spec.Set:
			if op.Timestamp < int64(bigtable.ServerTime) {
				return fmt.Errorf("%w: %d in %s:%q; want 0 or more, or ServerTime", bigtable.ErrInvalidTimestamp, op.Timestamp, op.Family, op.Qualifier)
			}
			if len(op.Value) > bigtable.MaxValueSize {
				return fmt.Errorf("%w: %d bytes in %s:%q, limit %d", bigtable.ErrValueTooLarge, len(op.Value), op.Family, op.Qualifier, bigtable.MaxValueSize)
			}
		case spec.DeleteTimestampRange:
			if op.Start < 0 || op.End < 0 || (op.End != 0 && op.Start >= op.End) {
				return fmt.Errorf("%w: range [%d, %d) in %s:%q", bigtable.ErrInvalidTimestamp, op.Start, op.End, op.Family, op.Qualifier)
			}
		}
	}
	return nil
}

// branch translates one branch of a conditional mutation (nil: nothing).
func branch(m *spec.Mutation) (*gbt.Mutation, error) {
	if m == nil || (!m.Cond && len(m.Ops) == 0) {
		return nil, nil
	}
	return plainMutation(m)
}

// Apply applies m to row atomically, like (*bigtable.Table).Apply; a
// conditional mutation is one CheckAndMutateRow call.
func (t *Table) Apply(ctx context.Context, row string, m *bigtable.Mutation, opts ...bigtable.ApplyOption) error {
	what := fmt.Sprintf("apply to row %q of table %q", row, t.name)
	a, err := applyArgs(row, m, opts)
	if err != nil {
		return fmt.Errorf("cloud: %s: %w", what, err)
	}
	if a.checkOnly != nil {
		return wrapErr(what, t.checkOnly(ctx, row, a))
	}
	var after []gbt.ApplyOption
	for _, p := range a.matched {
		after = append(after, gbt.GetCondMutationResult(p))
	}
	return wrapErr(what, t.tbl.Apply(ctx, row, a.m, after...))
}

// applyCall is an Apply translated.
type applyCall struct {
	m       *gbt.Mutation
	matched []*bool // GetCondMutationResult targets
	// checkOnly is set, instead of m, for a conditional mutation with
	// nothing in either branch: the filter that tells whether it matches.
	checkOnly gbt.Filter
}

func applyArgs(row string, m *bigtable.Mutation, opts []bigtable.ApplyOption) (applyCall, error) {
	if err := checkRowKey(row); err != nil {
		return applyCall{}, err
	}
	sm, err := spec.MutationOf(m)
	if err != nil {
		return applyCall{}, err
	}
	so, err := spec.ApplyOptionsOf(opts)
	if err != nil {
		return applyCall{}, err
	}
	if sm == nil || !sm.Cond {
		gm, err := plainMutation(sm)
		return applyCall{m: gm}, err
	}
	cond, err := toFilter(sm.Predicate)
	if err != nil {
		return applyCall{}, err
	}
	mtrue, err := branch(sm.True)
	if err != nil {
		return applyCall{}, err
	}
	mfalse, err := branch(sm.False)
	if err != nil {
		return applyCall{}, err
	}
	a := applyCall{}
	for _, p := range so.CondResults {
		if p != nil {
			a.matched = append(a.matched, p)
		}
	}
	if mtrue == nil && mfalse == nil {
		a.checkOnly = gbt.ChainFilters(gbt.CellsPerRowLimitFilter(1), gbt.StripValueFilter())
		if cond != nil {
			a.checkOnly = gbt.ChainFilters(cond, a.checkOnly)
		}
		return a, nil
	}
	a.m = gbt.NewCondMutation(cond, mtrue, mfalse)
	return a, nil
}

// checkOnly runs a conditional mutation with nothing in either branch,
// which bigtable allows and Cloud Bigtable refuses: it evaluates the
// condition with a read, for GetCondMutationResult. Writing nothing, it
// needs no atomicity.
func (t *Table) checkOnly(ctx context.Context, row string, a applyCall) error {
	r, err := t.tbl.ReadRow(ctx, row, gbt.RowFilter(a.checkOnly))
	if err != nil {
		return err
	}
	for _, p := range a.matched {
		*p = len(r) > 0
	}
	return nil
}

// ApplyBulk applies muts[i] to rows[i] for every i, each row atomically,
// with the contract of (*bigtable.Table).ApplyBulk: (nil, nil) if every row
// succeeded; otherwise per-row errors (nil for rows written) or an error of
// the whole call. Rows bigtable would reject (bad keys, nil, empty or
// conditional mutations) fail alone, before anything is sent.
func (t *Table) ApplyBulk(ctx context.Context, rows []string, muts []*bigtable.Mutation) ([]error, error) {
	if len(rows) != len(muts) {
		return nil, fmt.Errorf("cloud: apply bulk to table %q: %d rows but %d mutations", t.name, len(rows), len(muts))
	}
	errs := make([]error, len(rows))
	failed := false
	var sendRows []string
	var sendMuts []*gbt.Mutation
	var sendIdx []int
	for i, row := range rows {
		err := checkRowKey(row)
		var gm *gbt.Mutation
		if err == nil {
			var sm *spec.Mutation
			if sm, err = spec.MutationOf(muts[i]); err == nil {
				gm, err = plainMutation(sm)
			}
		}
		if err != nil {
			errs[i] = fmt.Errorf("cloud: apply bulk to row %q of table %q: %w", row, t.name, err)
			failed = true
			continue
		}
		sendRows, sendMuts, sendIdx = append(sendRows, row), append(sendMuts, gm), append(sendIdx, i)
	}
	if len(sendRows) > 0 {
		rowErrs, err := t.tbl.ApplyBulk(ctx, sendRows, sendMuts)
		if err != nil {
			return nil, wrapErr(fmt.Sprintf("apply bulk to table %q", t.name), err)
		}
		for j, e := range rowErrs {
			if e != nil {
				i := sendIdx[j]
				errs[i] = wrapErr(fmt.Sprintf("apply bulk to row %q of table %q", rows[i], t.name), e)
				failed = true
			}
		}
	}
	if failed {
		return errs, nil
	}
	return nil, nil
}

// readRowsArgs translates the arguments of a multi-row read: the options,
// and the row set as data and as the client's. A nil set with a nil error
// means the set holds no row: there is nothing to read.
func readRowsArgs(rs bigtable.RowSet, opts []bigtable.ReadOption) (ro []gbt.ReadOption, ss spec.RowSet, set gbt.RowSet, err error) {
	if ro, err = readArgs(opts); err != nil {
		return nil, ss, nil, err
	}
	if ss, err = spec.RowSetOf(rs); err != nil {
		return nil, ss, nil, err
	}
	set, ok, err := toRowSet(ss)
	if err != nil || !ok {
		return nil, ss, nil, err
	}
	return ro, ss, set, nil
}

// readArgs translates read options.
func readArgs(opts []bigtable.ReadOption) ([]gbt.ReadOption, error) {
	s, err := spec.ReadOptionsOf(opts)
	if err != nil {
		return nil, err
	}
	var out []gbt.ReadOption
	if s.Filter != nil {
		f, err := toFilter(s.Filter)
		if err != nil {
			return nil, err
		}
		out = append(out, gbt.RowFilter(f))
	}
	// NB: bigtable's LimitRows means what the Cloud client's does (0 reads
	// no row, a negative n is an error), so it passes through unchanged.
	if s.LimitSet {
		out = append(out, gbt.LimitRows(s.Limit))
	}
	return out, nil
}

// ReadRow reads one row. A row that does not exist, or of which the filter
// passes no cell, is a nil Row and no error.
func (t *Table) ReadRow(ctx context.Context, row string, opts ...bigtable.ReadOption) (bigtable.Row, error) {
	what := fmt.Sprintf("read row %q of table %q", row, t.name)
	ro, err := readArgs(opts)
	if err != nil {
		return nil, fmt.Errorf("cloud: %s: %w", what, err)
	}
	if row == "" {
		return nil, nil // bigtable: matches no row
	}
	r, err := t.tbl.ReadRow(ctx, row, ro...)
	if err != nil {
		return nil, wrapErr(what, err)
	}
	return fromRow(r), nil
}

// ReadRows reads the rows of rs in key order and calls f with each,
// stopping early when f returns false (not an error), like
// (*bigtable.Table).ReadRows. Unlike bigtable's store, the rows are streamed
// from the server rather than read from one snapshot.
func (t *Table) ReadRows(ctx context.Context, rs bigtable.RowSet, f func(bigtable.Row) bool, opts ...bigtable.ReadOption) error {
	what := fmt.Sprintf("read rows of table %q", t.name)
	ro, _, set, err := readRowsArgs(rs, opts)
	if err != nil {
		return fmt.Errorf("cloud: %s: %w", what, err)
	}
	if set == nil {
		return nil // no row
	}
	return wrapErr(what, t.stream(ctx, set, f, ro))
}

// Rows returns an iterator over the rows ReadRows would pass to its
// callback. An error ends the sequence as its last element, with a nil Row.
func (t *Table) Rows(ctx context.Context, rs bigtable.RowSet, opts ...bigtable.ReadOption) iter.Seq2[bigtable.Row, error] {
	return rowseq.Of(func(fn func(bigtable.Row) bool) error { return t.ReadRows(ctx, rs, fn, opts...) })
}

// ApplyReadModifyWrite applies m to row atomically on the server and returns
// the new cells it wrote, one per column touched.
func (t *Table) ApplyReadModifyWrite(ctx context.Context, row string, m *bigtable.ReadModifyWrite) (bigtable.Row, error) {
	what := fmt.Sprintf("read-modify-write of row %q of table %q", row, t.name)
	if err := checkRowKey(row); err != nil {
		return nil, fmt.Errorf("cloud: %s: %w", what, err)
	}
	sm, err := spec.ReadModifyWriteOf(m)
	if err != nil {
		return nil, fmt.Errorf("cloud: %s: %w", what, err)
	}
	if sm == nil || len(sm.Rules) == 0 {
		return nil, fmt.Errorf("cloud: %s: %w: no read-modify-write rules", what, bigtable.ErrInvalidMutation)
	}
	r, err := t.tbl.ApplyReadModifyWrite(ctx, row, toReadModifyWrite(sm))
	if err != nil {
		return nil, wrapErr(what, err)
	}
	return fromRow(r), nil
}

// SampleRowKeys returns row keys that split the table into pieces of
// roughly equal size, in key order, the last being "" (the end of the
// table), like (*bigtable.Table).SampleRowKeys.
func (t *Table) SampleRowKeys(ctx context.Context) ([]string, error) {
	keys, err := t.tbl.SampleRowKeys(ctx)
	if err != nil {
		return nil, wrapErr(fmt.Sprintf("sample row keys of table %q", t.name), err)
	}
	// NB: the server ends its samples with "", but the Cloud client drops
	// empty keys; put the end of the table back, as bigtable returns it.
	return append(keys, ""), nil
}
