package cloud

import (
	"fmt"
	"time"

	gbt "cloud.google.com/go/bigtable"
	"github.com/webtable/webtable/bigtable"
	"github.com/webtable/webtable/bigtable/internal/spec"
)

// This file turns the spec descriptions of package bigtable's values into
// the Cloud client's values, smoothing over the few places where Cloud
// Bigtable is stricter than bigtable (empty row keys in a RowList, empty or
// inverted ranges).

// toFilter translates a filter. nil stays nil.
func toFilter(f *spec.Filter) (gbt.Filter, error) {
	if f == nil {
		return nil, nil
	}
	switch f.Kind {
	case spec.Chain, spec.Interleave:
		subs, err := toFilters(f.Sub)
		if err != nil {
			return nil, err
		}
		// NB: Cloud Bigtable and the embedded store both reject a chain or
		// interleave of fewer than two filters; say so here, in the store's
		// words, rather than after a round trip (the emulator accepts them).
		if len(subs) < 2 {
			return nil, fmt.Errorf("%w: %v of %d filter(s), want at least 2", bigtable.ErrInvalidFilter, f.Kind, len(subs))
		}
		if f.Kind == spec.Chain {
			return gbt.ChainFilters(subs...), nil
		}
		return gbt.InterleaveFilters(subs...), nil
	case spec.Condition:
		if f.Predicate == nil {
			return nil, fmt.Errorf("%w: condition without a predicate", bigtable.ErrInvalidFilter)
		}
		pred, err := toFilter(f.Predicate)
		if err != nil {
			return nil, err
		}
		ifTrue, err := toFilter(f.True)
		if err != nil {
			return nil, err
		}
		ifFalse, err := toFilter(f.False)
		if err != nil {
			return nil, err
		}
		return gbt.ConditionFilter(pred, ifTrue, ifFalse), nil
	}
	return toLeafFilter(f)
}

// toLeafFilter translates a filter that holds no other filter.
func toLeafFilter(f *spec.Filter) (gbt.Filter, error) {
	switch f.Kind {
	case spec.RowKey:
		if f.Pattern == "" {
			return nil, fmt.Errorf("%w: empty row key pattern", bigtable.ErrInvalidFilter)
		}
		return gbt.RowKeyFilter(f.Pattern), nil
	case spec.Family:
		return gbt.FamilyFilter(f.Pattern), nil
	case spec.Column:
		return gbt.ColumnFilter(f.Pattern), nil
	case spec.Value:
		return gbt.ValueFilter(f.Pattern), nil
	case spec.ValueRange:
		return gbt.ValueRangeFilter(f.StartValue, f.EndValue), nil
	case spec.ColumnRange:
		return gbt.ColumnRangeFilter(f.Family, f.StartQualifier, f.EndQualifier), nil
	case spec.LatestN:
		if f.N <= 0 {
			return nil, fmt.Errorf("%w: LatestNFilter(%d), want n > 0", bigtable.ErrInvalidFilter, f.N)
		}
		return gbt.LatestNFilter(f.N), nil
	case spec.StripValue:
		return gbt.StripValueFilter(), nil
	case spec.TimestampRange:
		return gbt.TimestampRangeFilterMicros(gbt.Timestamp(f.Start), gbt.Timestamp(f.End)), nil
	case spec.CellsPerRowLimit:
		if f.N <= 0 {
			return nil, fmt.Errorf("%w: CellsPerRowLimitFilter(%d), want n > 0", bigtable.ErrInvalidFilter, f.N)
		}
		return gbt.CellsPerRowLimitFilter(f.N), nil
	case spec.CellsPerRowOffset:
		if f.N < 0 {
			return nil, fmt.Errorf("%w: CellsPerRowOffsetFilter(%d), want n >= 0", bigtable.ErrInvalidFilter, f.N)
		}
		return gbt.CellsPerRowOffsetFilter(f.N), nil
	case spec.RowSample:
		if !(f.Probability > 0 && f.Probability < 1) {
			return nil, fmt.Errorf("%w: RowSampleFilter(%v), want 0 < p < 1", bigtable.ErrInvalidFilter, f.Probability)
		}
		return gbt.RowSampleFilter(f.Probability), nil
	case spec.PassAll:
		return gbt.PassAllFilter(), nil
	case spec.BlockAll:
		return gbt.BlockAllFilter(), nil
	}
	return nil, fmt.Errorf("%w: filter kind %v", spec.ErrUnknownVariant, f.Kind)
}

func toFilters(fs []*spec.Filter) ([]gbt.Filter, error) {
	out := make([]gbt.Filter, len(fs))
	for i, s := range fs {
		if s == nil {
			return nil, fmt.Errorf("%w: nil sub-filter", bigtable.ErrInvalidFilter)
		}
		var err error
		if out[i], err = toFilter(s); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// toRowSet translates a row set. ok is false when the set holds no row, so
// there is nothing to read (Cloud Bigtable would read every row for an empty
// RowList).
func toRowSet(rs spec.RowSet) (set gbt.RowSet, ok bool, err error) {
	switch rs.Kind {
	case spec.ListSet:
		keys := make(gbt.RowList, 0, len(rs.Keys))
		for _, k := range rs.Keys {
			if k != "" { // bigtable: "" matches no row
				keys = append(keys, k)
			}
		}
		return keys, len(keys) > 0, nil
	case spec.RangeSet:
		r, ok := toRowRange(rs.Ranges[0])
		return r, ok, nil
	case spec.RangeListSet:
		var list gbt.RowRangeList
		for _, sr := range rs.Ranges {
			if r, ok := toRowRange(sr); ok {
				list = append(list, r)
			}
		}
		return list, len(list) > 0, nil
	case spec.NoRowSet:
		return nil, false, fmt.Errorf("nil RowSet")
	}
	return nil, false, fmt.Errorf("%w: row set kind %v", spec.ErrUnknownVariant, rs.Kind)
}

// toRowRange translates a range; ok is false for a range that holds no row.
func toRowRange(r spec.RowRange) (gbt.RowRange, bool) {
	var out gbt.RowRange
	switch {
	case r.StartBound == spec.Open && r.EndBound == spec.Open:
		out = gbt.NewOpenRange(r.Start, r.End)
	case r.StartBound == spec.Open && r.EndBound == spec.Closed:
		out = gbt.NewOpenClosedRange(r.Start, r.End)
	case r.StartBound == spec.Open: // end unbounded
		// NB: the Cloud client has no (start, ∞) constructor; an open range
		// with an empty end is that, since "" end means unbounded.
		out = gbt.NewOpenRange(r.Start, "")
	case r.EndBound == spec.Closed && r.StartBound == spec.Unbounded:
		out = gbt.InfiniteReverseRange(r.End)
	case r.EndBound == spec.Closed:
		out = gbt.NewClosedRange(r.Start, r.End)
	default: // start closed or unbounded, end open or unbounded
		out = gbt.NewClosedOpenRange(r.Start, r.End)
	}
	if r.StartBound == spec.Unbounded || r.EndBound == spec.Unbounded {
		return out, true
	}
	if r.StartBound == spec.Closed && r.EndBound == spec.Closed {
		return out, r.Start <= r.End
	}
	return out, r.Start < r.End
}

// toMutation translates a plain mutation.
func toMutation(m *spec.Mutation) *gbt.Mutation {
	if m == nil {
		return nil
	}
	out := gbt.NewMutation()
	for _, op := range m.Ops {
		switch op.Kind {
		case spec.Set:
			out.Set(op.Family, op.Qualifier, gbt.Timestamp(op.Timestamp), op.Value)
		case spec.DeleteCellsInColumn:
			out.DeleteCellsInColumn(op.Family, op.Qualifier)
		case spec.DeleteTimestampRange:
			out.DeleteTimestampRange(op.Family, op.Qualifier, gbt.Timestamp(op.Start), gbt.Timestamp(op.End))
		case spec.DeleteCellsInFamily:
			out.DeleteCellsInFamily(op.Family)
		case spec.DeleteRow:
			out.DeleteRow()
		}
	}
	return out
}

// toGCPolicy translates a GC policy, rejecting negative counts and ages as
// bigtable does.
func toGCPolicy(p spec.GCPolicy) (gbt.GCPolicy, error) {
	switch p.Kind {
	case spec.NoGC:
		return gbt.NoGcPolicy(), nil
	case spec.MaxVersions:
		if p.Versions < 0 {
			return nil, fmt.Errorf("cloud: invalid GC policy: negative version count %d", p.Versions)
		}
		return gbt.MaxVersionsPolicy(p.Versions), nil
	case spec.MaxAge:
		if p.Age < 0 {
			return nil, fmt.Errorf("cloud: invalid GC policy: negative age %v", p.Age)
		}
		return gbt.MaxAgePolicy(p.Age), nil
	case spec.Union, spec.Intersection:
		subs := make([]gbt.GCPolicy, 0, len(p.Sub))
		for _, s := range p.Sub {
			g, err := toGCPolicy(s)
			if err != nil {
				return nil, err
			}
			subs = append(subs, g)
		}
		// NB: bigtable defines empty unions and intersections as collecting
		// nothing; Cloud Bigtable wants members, so send what they mean.
		switch len(subs) {
		case 0:
			return gbt.NoGcPolicy(), nil
		case 1:
			return subs[0], nil
		}
		if p.Kind == spec.Union {
			return gbt.UnionPolicy(subs...), nil
		}
		return gbt.IntersectionPolicy(subs...), nil
	}
	return nil, fmt.Errorf("%w: GC policy kind %v", spec.ErrUnknownVariant, p.Kind)
}

// fromGCPolicy translates a Cloud GC policy back into bigtable's.
func fromGCPolicy(p gbt.GCPolicy) bigtable.GCPolicy {
	switch p := p.(type) {
	case gbt.MaxVersionsGCPolicy:
		return bigtable.MaxVersionsPolicy(int(p))
	case gbt.MaxAgeGCPolicy:
		return bigtable.MaxAgePolicy(time.Duration(p))
	case gbt.UnionGCPolicy:
		return bigtable.UnionPolicy(fromGCPolicies(p.Children)...)
	case gbt.IntersectionGCPolicy:
		return bigtable.IntersectionPolicy(fromGCPolicies(p.Children)...)
	}
	return bigtable.NoGcPolicy()
}

func fromGCPolicies(ps []gbt.GCPolicy) []bigtable.GCPolicy {
	out := make([]bigtable.GCPolicy, len(ps))
	for i, p := range ps {
		out[i] = fromGCPolicy(p)
	}
	return out
}

// toReadModifyWrite translates read-modify-write rules.
func toReadModifyWrite(m *spec.ReadModifyWrite) *gbt.ReadModifyWrite {
	out := gbt.NewReadModifyWrite()
	for _, r := range m.Rules {
		if r.Increment {
			out.Increment(r.Family, r.Qualifier, r.Delta)
		} else {
			out.AppendValue(r.Family, r.Qualifier, r.Append)
		}
	}
	return out
}

// fromRow translates a Cloud row. Empty values become nil, as bigtable
// returns them; a row without cells is nil.
func fromRow(r gbt.Row) bigtable.Row {
	if len(r) == 0 {
		return nil
	}
	out := make(bigtable.Row, len(r))
	for fam, items := range r {
		if len(items) == 0 {
			continue
		}
		conv := make([]bigtable.ReadItem, len(items))
		for i, it := range items {
			v := it.Value
			if len(v) == 0 {
				v = nil
			}
			conv[i] = bigtable.ReadItem{Row: it.Row, Column: it.Column, Timestamp: bigtable.Timestamp(it.Timestamp), Value: v}
		}
		out[fam] = conv
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
