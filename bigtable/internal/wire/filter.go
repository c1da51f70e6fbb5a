package wire

import (
	btpb "cloud.google.com/go/bigtable/apiv2/bigtablepb"
	"github.com/webtable/webtable/bigtable"
)

// Filter translates a request's RowFilter; nil (no filter) gives nil.
func Filter(f *btpb.RowFilter) (bigtable.Filter, error) {
	if f == nil {
		return nil, nil
	}
	return filter(f, "filter")
}

// filter translates one node; where names it in errors ("filter.chain[2]").
func filter(f *btpb.RowFilter, where string) (bigtable.Filter, error) {
	if f == nil || f.Filter == nil {
		return nil, invalidf("%s: empty RowFilter (no filter set)", where)
	}
	switch x := f.Filter.(type) {
	case *btpb.RowFilter_Chain_:
		subs, err := filters(x.Chain.GetFilters(), where+".chain")
		if err != nil {
			return nil, err
		}
		return bigtable.ChainFilters(subs...), nil
	case *btpb.RowFilter_Interleave_:
		subs, err := filters(x.Interleave.GetFilters(), where+".interleave")
		if err != nil {
			return nil, err
		}
		return bigtable.InterleaveFilters(subs...), nil
	case *btpb.RowFilter_Condition_:
		return condition(x.Condition, where)
	case *btpb.RowFilter_Sink:
		return nil, unimplementedf("%s: sink filters", where)
	case *btpb.RowFilter_ApplyLabelTransformer:
		return nil, unimplementedf("%s: apply_label_transformer (cells carry no labels here)", where)
	}
	return leafFilter(f, where)
}

// condition translates a condition node.
func condition(c *btpb.RowFilter_Condition, where string) (bigtable.Filter, error) {
	if c.GetPredicateFilter() == nil {
		return nil, invalidf("%s.condition: no predicate_filter", where)
	}
	pred, err := filter(c.PredicateFilter, where+".condition.predicate_filter")
	if err != nil {
		return nil, err
	}
	var ifTrue, ifFalse bigtable.Filter
	if c.TrueFilter != nil {
		if ifTrue, err = filter(c.TrueFilter, where+".condition.true_filter"); err != nil {
			return nil, err
		}
	}
	if c.FalseFilter != nil {
		if ifFalse, err = filter(c.FalseFilter, where+".condition.false_filter"); err != nil {
			return nil, err
		}
	}
	return bigtable.ConditionFilter(pred, ifTrue, ifFalse), nil
}

// leafFilter translates a node that holds no other filter: a test of the
// cells, a limit or a transformer.
func leafFilter(f *btpb.RowFilter, where string) (bigtable.Filter, error) {
	switch x := f.Filter.(type) {
	case *btpb.RowFilter_PassAllFilter:
		if !x.PassAllFilter {
			return nil, invalidf("%s: pass_all_filter must be true", where)
		}
		return bigtable.PassAllFilter(), nil
	case *btpb.RowFilter_BlockAllFilter:
		if !x.BlockAllFilter {
			return nil, invalidf("%s: block_all_filter must be true", where)
		}
		return bigtable.BlockAllFilter(), nil
	case *btpb.RowFilter_RowKeyRegexFilter:
		if len(x.RowKeyRegexFilter) == 0 {
			return nil, invalidf("%s: empty row_key_regex_filter", where)
		}
		return bigtable.RowKeyFilter(string(x.RowKeyRegexFilter)), nil
	case *btpb.RowFilter_RowSampleFilter:
		p := x.RowSampleFilter
		if !(p > 0 && p < 1) {
			return nil, invalidf("%s: row_sample_filter %v, want 0 < p < 1", where, p)
		}
		return bigtable.RowSampleFilter(p), nil
	case *btpb.RowFilter_FamilyNameRegexFilter:
		return bigtable.FamilyFilter(x.FamilyNameRegexFilter), nil
	case *btpb.RowFilter_ColumnQualifierRegexFilter:
		return bigtable.ColumnFilter(string(x.ColumnQualifierRegexFilter)), nil
	case *btpb.RowFilter_ColumnRangeFilter:
		r := x.ColumnRangeFilter
		start, end := columnBounds(r)
		if r.GetFamilyName() == "" {
			return nil, invalidf("%s: column_range_filter without family_name", where)
		}
		return bigtable.ColumnRangeFilter(r.FamilyName, start, end), nil
	case *btpb.RowFilter_TimestampRangeFilter:
		r := x.TimestampRangeFilter
		if r.GetStartTimestampMicros() < 0 || r.GetEndTimestampMicros() < 0 {
			return nil, invalidf("%s: negative timestamp in timestamp_range_filter", where)
		}
		return bigtable.TimestampRangeFilterMicros(bigtable.Timestamp(r.GetStartTimestampMicros()), bigtable.Timestamp(r.GetEndTimestampMicros())), nil
	case *btpb.RowFilter_ValueRegexFilter:
		return bigtable.ValueFilter(string(x.ValueRegexFilter)), nil
	case *btpb.RowFilter_ValueRangeFilter:
		start, end := valueBounds(x.ValueRangeFilter)
		return bigtable.ValueRangeFilter(start, end), nil
	case *btpb.RowFilter_CellsPerRowOffsetFilter:
		if x.CellsPerRowOffsetFilter < 0 {
			return nil, invalidf("%s: negative cells_per_row_offset_filter %d", where, x.CellsPerRowOffsetFilter)
		}
		return bigtable.CellsPerRowOffsetFilter(int(x.CellsPerRowOffsetFilter)), nil
	case *btpb.RowFilter_CellsPerRowLimitFilter:
		if x.CellsPerRowLimitFilter <= 0 {
			return nil, invalidf("%s: cells_per_row_limit_filter %d, want > 0", where, x.CellsPerRowLimitFilter)
		}
		return bigtable.CellsPerRowLimitFilter(int(x.CellsPerRowLimitFilter)), nil
	case *btpb.RowFilter_CellsPerColumnLimitFilter:
		if x.CellsPerColumnLimitFilter <= 0 {
			return nil, invalidf("%s: cells_per_column_limit_filter %d, want > 0", where, x.CellsPerColumnLimitFilter)
		}
		return bigtable.LatestNFilter(int(x.CellsPerColumnLimitFilter)), nil
	case *btpb.RowFilter_StripValueTransformer:
		if !x.StripValueTransformer {
			return nil, invalidf("%s: strip_value_transformer must be true", where)
		}
		return bigtable.StripValueFilter(), nil
	}
	return nil, unimplementedf("%s: filter %T", where, f.Filter)
}

// filters translates the members of a chain or interleave, which Cloud
// Bigtable wants at least two of.
func filters(fs []*btpb.RowFilter, where string) ([]bigtable.Filter, error) {
	if len(fs) < 2 {
		return nil, invalidf("%s has %d filter(s), want at least 2", where, len(fs))
	}
	out := make([]bigtable.Filter, len(fs))
	for i, f := range fs {
		var err error
		if out[i], err = filter(f, fmtIndex(where, i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// columnBounds gives a column range as bigtable's [start, end), "" being
// unbounded (see the package Caveats for open and closed bounds).
func columnBounds(r *btpb.ColumnRange) (start, end string) {
	switch b := r.StartQualifier.(type) {
	case *btpb.ColumnRange_StartQualifierClosed:
		start = string(b.StartQualifierClosed)
	case *btpb.ColumnRange_StartQualifierOpen:
		start = string(b.StartQualifierOpen) + "\x00"
	}
	switch b := r.EndQualifier.(type) {
	case *btpb.ColumnRange_EndQualifierClosed:
		end = string(b.EndQualifierClosed) + "\x00"
	case *btpb.ColumnRange_EndQualifierOpen:
		end = string(b.EndQualifierOpen)
	}
	return start, end
}

// valueBounds gives a value range as bigtable's [start, end), nil being
// unbounded.
func valueBounds(r *btpb.ValueRange) (start, end []byte) {
	switch b := r.StartValue.(type) {
	case *btpb.ValueRange_StartValueClosed:
		start = nonNil(b.StartValueClosed)
	case *btpb.ValueRange_StartValueOpen:
		start = append(append([]byte{}, b.StartValueOpen...), 0)
	}
	switch b := r.EndValue.(type) {
	case *btpb.ValueRange_EndValueClosed:
		end = append(append([]byte{}, b.EndValueClosed...), 0)
	case *btpb.ValueRange_EndValueOpen:
		if len(b.EndValueOpen) > 0 {
			end = b.EndValueOpen
		}
	}
	return start, end
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
